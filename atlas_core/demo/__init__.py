"""The embedded demo: documentation written by this project, built into a bundle on first use.

The package ships a small crawled-style mirror (``docs/markdown/<section>/*.md`` plus
``docs/crawl_meta.json``) and an OpenAPI file. `ensure_demo_bundle` builds them once into the cache
dir, under a name carrying a hash of that content, so a changed demo (or a new bundle format)
builds afresh while an unchanged one opens instantly. The build goes through `build_bundle`, which
stages in a temporary directory and renames, so an interrupted build never leaves half a bundle.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from atlas_core.config import cache_dir
from atlas_core.errors import BuildError, BundleError

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parent
DOCS_DIR = DEMO_DIR / "docs"
OPENAPI_FILE = DEMO_DIR / "openapi.yaml"
BUNDLE_PREFIX = "demo-bundle-"
BUNDLE_NAME = "atlas-demo"
# What every surface serving the demo says (hover, the servers' messages, MCP info, doctor,
# smoke); they tell it by the manifest's ``"demo": true`` (`Bundle.is_demo`), never by a name.
DEMO_NOTE = "the embedded demo docs: sample pages written for Atlas, not Collibra's documentation"
REAL_DOCS_HINT = "run `atlas download` for the Collibra docs, or point ATLAS_BUNDLE at a bundle"

__all__ = [
    "DEMO_NOTE",
    "DOCS_DIR",
    "OPENAPI_FILE",
    "REAL_DOCS_HINT",
    "demo_content_hash",
    "demo_sources",
    "ensure_demo_bundle",
]


def demo_sources() -> list[str]:
    """The ``KIND=PATH`` source specs the demo bundle is built from."""
    return [f"mirror={DOCS_DIR}", f"openapi={OPENAPI_FILE}"]


def _demo_files() -> list[Path]:
    files = [p for p in DOCS_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return sorted([*files, OPENAPI_FILE])


def demo_content_hash(model: str = "default") -> str:
    """A short hash of every demo file, the bundle format version and the model spec.

    The format version is part of it so an Atlas upgrade that changes the bundle layout never opens
    a stale cached demo; the model spec so a hash-model demo never masquerades as the real one.
    """
    import hashlib  # here: the servers import this package for DEMO_NOTE at start

    from atlas_core.bundle import FORMAT_VERSION

    digest = hashlib.sha256()
    digest.update(f"format={FORMAT_VERSION}\0model={model}\0".encode())
    for path in _demo_files():
        digest.update(path.relative_to(DEMO_DIR).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _model_tag(model: str) -> str:
    """Empty for the default model, else a short tag so each model keeps its own cached demo."""
    if model == "default":
        return ""
    return "hash-" if model == "hash" else "custom-"


def _bundle_dir(model: str) -> Path:
    return cache_dir() / f"{BUNDLE_PREFIX}{_model_tag(model)}{demo_content_hash(model)}"


def _usable(path: Path) -> bool:
    if not (path / "manifest.json").is_file():
        return False
    from atlas_core.bundle import Bundle

    try:
        bundle = Bundle.open(path)
    except BundleError as exc:
        log.warning("cached demo bundle %s is unusable (%s); rebuilding it", path, exc.message)
        return False
    if not bundle.is_demo:  # built before the demo marked itself: it would pass for real docs
        log.info("cached demo bundle %s is not marked as the demo; rebuilding it", path)
        return False
    return True


@contextlib.contextmanager
def _build_lock(directory: Path) -> Iterator[None]:
    """Serialise first-use builds across processes (an editor may start LSP and MCP at once)."""
    try:
        import fcntl
    except ImportError:  # Windows: the staged rename still keeps every bundle whole
        yield
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle = open(directory / ".demo-bundle.lock", "w")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise BuildError(
            f"cannot write the demo bundle under {directory}: {exc.strerror or exc}",
            hint="set ATLAS_CACHE_DIR to a writable directory",
            path=str(directory),
        ) from exc
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _remove_stale(keep: Path, model: str) -> None:
    """Drop this model's demo bundles of older demo content.

    A server still reading one keeps its open files (POSIX); elsewhere the removal may fail and the
    old directory simply stays.
    """
    import shutil  # here, like hashlib above

    same_model = re.compile(rf"{re.escape(BUNDLE_PREFIX + _model_tag(model))}[0-9a-f]{{16}}")
    for old in keep.parent.glob(f"{BUNDLE_PREFIX}*"):
        if old != keep and old.is_dir() and same_model.fullmatch(old.name):
            shutil.rmtree(old, ignore_errors=True)


def ensure_demo_bundle(progress: bool = True, *, model: str = "default") -> Path:
    """The demo bundle's directory, built on first use (and after the demo content changes).

    `model` is a `load_embedder` spec; tests pass ``"hash"`` to build without the real model.
    """
    target = _bundle_dir(model)
    if _usable(target):
        return target
    with _build_lock(target.parent):
        if _usable(target):  # another process finished the build while we waited
            return target
        from atlas_core.build import build_bundle

        if progress:
            print(
                f"atlas: building the demo bundle (first use) into {target}",
                file=sys.stderr,
                flush=True,
            )
        report = build_bundle(
            demo_sources(), target, model=model, progress=progress, name=BUNDLE_NAME, demo=True
        )
        _remove_stale(report.output, model)
        log.info("built the demo bundle at %s (%d chunks)", report.output, report.chunks)
        return report.output
