"""Which bundle(s) a command or server opens when the user names none.

Order: the bundles setting (``--bundle``, else ``$ATLAS_BUNDLE``, several joined with
``os.pathsep``, else the ``[bundle] path`` key of the config file: `atlas_core.config` resolves
those), the installed bundle (``atlas download``: ``<data dir>/current``), and last the embedded
demo bundle, built on first use. The CLI, the language server and the MCP server all call
`resolve_bundle_paths`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

from atlas_core.config import Settings, installed_bundle_dir
from atlas_core.errors import BundleError

log = logging.getLogger(__name__)


def _split(value: str) -> list[Path]:
    return [Path(p).expanduser() for p in value.split(os.pathsep) if p.strip()]


def resolve_bundle_paths(
    explicit: Sequence[str | os.PathLike[str]] | None = None,
    settings: Settings | None = None,
    *,
    allow_demo: bool = True,
) -> list[Path]:
    """The bundle directories to open, first match of the order above wins: `explicit` paths,
    then `settings.bundles` (the entry point's settings; None: no bundle configured).

    Paths are returned as given (not checked here beyond the installed bundle's existence); the
    engine reports a missing or broken one with a precise message.
    """
    if explicit:
        paths: list[Path] = []
        for item in explicit:
            paths.extend(_split(os.fspath(item)))
        if paths:
            return paths
    if settings is not None and settings.bundles:
        return list(settings.bundles)
    installed = installed_bundle_dir()
    if (installed / "manifest.json").is_file():
        return [installed]
    if not allow_demo:
        raise BundleError(
            "no bundle given and none installed",
            hint="pass --bundle DIR, set ATLAS_BUNDLE, or run `atlas download`",
        )
    try:
        from atlas_core.demo import ensure_demo_bundle
    except ImportError as exc:
        raise BundleError(
            "no bundle given, none installed, and the embedded demo is not available",
            hint="pass --bundle DIR, set ATLAS_BUNDLE, or run `atlas download`",
        ) from exc
    log.info("no bundle configured; using the embedded demo bundle")
    return [Path(ensure_demo_bundle())]
