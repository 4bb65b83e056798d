"""Installed packages' versions and entry points, read from their metadata folders directly.

`importlib.metadata` answers the same questions, but imports email, zipfile, csv and calendar to
do so (about 450 KB of source). The language server asks both questions before its first hover
(its own version, and the recogniser plugins), and without a bytecode cache compiling those
modules took a tenth of its start. This reads only what it needs: a ``NAME-VERSION.dist-info``
(or ``.egg-info``) folder's name and its ``entry_points.txt``, the first folder of a distribution
along `sys.path` winning, as with importlib.metadata. Where `sys.path` holds anything but folders
(a zip archive), it hands the question to importlib.metadata.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SUFFIXES = (".dist-info", ".egg-info")
_SEPARATORS = re.compile(r"[-_.]+")


def normalize(name: str) -> str:
    """A distribution name as the packaging specifications compare them."""
    return _SEPARATORS.sub("-", name).lower()


@dataclass(frozen=True, slots=True)
class Distribution:
    name: str
    version: str
    path: Path  # its metadata folder


@dataclass(frozen=True, slots=True)
class EntryPoint:
    name: str
    value: str  # "module:attribute", as importlib.metadata's
    group: str
    dist: Distribution | None = None

    def load(self) -> Any:
        """The object the entry point names (importing its module)."""
        target = self.value.split("[", 1)[0].strip()  # drop an "[extra]" marker
        module_name, _, attribute = target.partition(":")
        found: Any = importlib.import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            found = getattr(found, part)
        return found


def distributions() -> list[Distribution] | None:
    """Every installed distribution (the first of each name along `sys.path`), or None where
    `sys.path` holds something only importlib.metadata can read."""
    seen: dict[str, Distribution] = {}
    for entry in sys.path:
        folder = entry or os.getcwd()
        if not os.path.isdir(folder):
            if os.path.exists(folder):
                return None  # a zip archive or other importable file
            continue
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(_SUFFIXES):
                continue
            dist = _distribution(Path(folder, name))
            if dist is not None:
                seen.setdefault(normalize(dist.name), dist)
    return list(seen.values())


def version(name: str) -> str | None:
    """The installed version of distribution `name`, or None when it is not installed."""
    dists = distributions()
    if dists is None:
        import importlib.metadata

        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None
    wanted = normalize(name)
    return next((d.version for d in dists if normalize(d.name) == wanted), None)


def entry_points(group: str) -> list[Any]:
    """The entry points of `group` over the installed distributions: `EntryPoint`s (or
    importlib.metadata's, which have the same ``name``, ``value``, ``dist`` and ``load``)."""
    dists = distributions()
    if dists is None:
        import importlib.metadata

        return list(importlib.metadata.entry_points(group=group))
    found: list[Any] = []
    for dist in dists:
        try:
            text = (dist.path / "entry_points.txt").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found += [EntryPoint(name, value, group, dist) for name, value in _section(text, group)]
    return found


def _distribution(path: Path) -> Distribution | None:
    stem = path.name.rsplit(".", 1)[0]
    name, _, rest = stem.partition("-")
    version = rest.split("-", 1)[0]
    if not version:  # a development egg-info folder: the version is in its PKG-INFO
        version = _header(path / "PKG-INFO", "Version") or ""
    return Distribution(name, version, path) if name else None


def _header(path: Path, field: str) -> str | None:
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    break  # the headers end at the first blank line
                key, _, value = line.partition(":")
                if key.strip().lower() == field.lower():
                    return value.strip()
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of section ``[group]`` of an entry_points.txt."""
    out: list[tuple[str, str]] = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            continue
        if current == group and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out
