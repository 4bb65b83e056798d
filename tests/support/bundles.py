"""One factory for the tests' fixture bundles: each distinct bundle is built once per test run.

A bundle is known by what goes into it: the bytes of every source file (with the path under its
source folder), the source kinds and their ``#fragment``, the name and the model (a model folder by
its files). Two builders asking for the same recipe get one build, kept under pytest's basetemp
(CI runs on a fresh clone, so a cache that outlives a run would save nothing there).

The folder a recipe returns is shared and read-only. A test that changes a bundle asks for
`BundleFactory.copy` (a fresh ``copytree``), never for the shared folder itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# Builds run outside any test's monkeypatch (session fixtures, module-level caches): these are set
# for the build and put back after, so no build reads or writes the user's real directories.
ATLAS_DIRS = ("ATLAS_CONFIG", "ATLAS_DATA_DIR", "ATLAS_CACHE_DIR")


@contextmanager
def isolated_home(home: Path) -> Iterator[None]:
    """Point Atlas's config, data and cache dirs under `home` (and drop a chosen embed backend)
    for the duration, and put the environment back after."""
    keys = (*ATLAS_DIRS, "ATLAS_EMBED_BACKEND")
    saved = {key: os.environ.get(key) for key in keys}
    os.environ.update(
        ATLAS_CONFIG=str(home / "config" / "atlas.toml"),
        ATLAS_DATA_DIR=str(home / "data"),
        ATLAS_CACHE_DIR=str(home / "cache"),
    )
    os.environ.pop("ATLAS_EMBED_BACKEND", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _hash_tree(digest: Any, path: Path) -> None:
    """Feed `path` (a file, or every file below a folder, in a stable order) into `digest`."""
    if path.is_file():
        digest.update(b"F" + path.read_bytes())
        return
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(b"P" + file.relative_to(path).as_posix().encode() + b"\0")
        digest.update(file.read_bytes())


def recipe_key(sources: Sequence[str], *, name: str, model: str) -> str:
    """A short content hash of everything a build reads: two recipes with one key build the same
    bundle."""
    digest = hashlib.sha256()
    digest.update(json.dumps({"name": name}).encode())
    model_path = Path(model)
    if model_path.exists():
        digest.update(b"model-folder")
        _hash_tree(digest, model_path)
    else:
        digest.update(b"model=" + model.encode())
    for spec in sources:
        kind, _, rest = spec.partition("=")
        path, hash_mark, fragment = rest.partition("#")
        digest.update(f"\0source {kind} #{fragment if hash_mark else ''}\0".encode())
        _hash_tree(digest, Path(path))
    return digest.hexdigest()[:16]


class BundleFactory:
    """Builds fixture bundles under `root`, each distinct recipe once, and hands out copies."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home  # config, data and cache dirs of the builds: the tests' own
        self.builds = 0  # how many bundles this factory built (the rest came from its cache)

    def build(self, sources: Sequence[str], *, name: str, model: str = "hash") -> Path:
        """The bundle of `sources` (``KIND=PATH[#FRAGMENT]`` specs) named `name` (always given:
        the writer would otherwise name it after this cache's folder): built on the first
        request, the same folder after. Read-only."""
        key = recipe_key(sources, name=name, model=model)
        out = self.root / f"{name}-{key}"
        if (out / "manifest.json").is_file():
            return out
        from atlas_core.build import build_bundle

        # The writer stages beside `out` and renames on commit, so a build that fails half way
        # leaves no folder a later request would take for a finished bundle.
        with isolated_home(self.home):
            build_bundle(list(sources), out, model=model, progress=False, name=name)
        self.builds += 1
        return out

    def build_pages(
        self,
        pages: Mapping[str, str],
        *,
        name: str,
        spec: Mapping[str, Any] | None = None,
        model: str = "hash",
    ) -> Path:
        """The bundle of markdown `pages` (path under the docs folder -> text), with an OpenAPI
        `spec` (as JSON) beside them when given. The pages are written into a folder named by
        their content, so the bundle's manifest names the same source paths on every request."""
        text = json.dumps({"pages": dict(pages), "spec": spec}, sort_keys=True)
        src = self.root / ".sources" / hashlib.sha256(text.encode()).hexdigest()[:16]
        docs = src / "docs"
        if not docs.is_dir():
            staging = src.with_name(src.name + ".writing")
            shutil.rmtree(staging, ignore_errors=True)
            for rel, page in pages.items():
                (staging / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
                (staging / "docs" / rel).write_text(page, encoding="utf-8")
            (staging / "docs").mkdir(parents=True, exist_ok=True)
            if spec is not None:
                (staging / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            staging.rename(src)
        sources = [f"local={docs}"]
        if spec is not None:
            sources.append(f"openapi={src / 'spec.json'}")
        return self.build(sources, name=name, model=model)

    @staticmethod
    def copy(bundle: Path, dest: Path) -> Path:
        """A copy of `bundle` at `dest` that a test may change as it likes."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copytree(bundle, dest, symlinks=True))


def manifest_changed_copy(
    bundle: Path, dest: Path, *, drop: str = "", change: Mapping[str, Any] | None = None
) -> Path:
    """A copy of `bundle` at `dest` whose manifest lacks the section `drop` and has `change`
    applied: a bundle built before a section existed, or one whose section says something else."""
    copy = BundleFactory.copy(bundle, dest)
    manifest = json.loads((copy / "manifest.json").read_text())
    if drop:
        del manifest[drop]
    manifest.update(change or {})
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return copy


_RUN: list[BundleFactory] = []  # the run's factory, once the session has started it


def start_run(basetemp: Path) -> BundleFactory:
    """Start the run's factory under pytest's `basetemp` (one per run, and one per xdist worker);
    builds use the tests' isolated Atlas home there."""
    _RUN[:] = [BundleFactory(basetemp / "bundles", basetemp / "atlas-home")]
    return _RUN[0]


def bundle_factory() -> BundleFactory:
    """The run's factory (tests/conftest.py starts it before any test's fixtures run)."""
    if not _RUN:
        raise RuntimeError(
            "no bundle factory: tests/conftest.py's `bundle_cache` fixture starts one"
        )
    return _RUN[0]
