"""Bundle format v1: the manifest, the writer, the reader and the verifier (see bundle_spec/SPEC.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atlas_core.bundle.manifest import FORMAT_VERSION, read_manifest
from atlas_core.bundle.reader import Bundle
from atlas_core.bundle.verify import verify_bundle

if TYPE_CHECKING:
    from atlas_core.bundle.writer import BundleWriter

__all__ = ["FORMAT_VERSION", "Bundle", "BundleWriter", "read_manifest", "verify_bundle"]


def __getattr__(name: str) -> Any:
    # The writer needs numpy; readers (the language server's lookup path) never do.
    if name == "BundleWriter":
        from atlas_core.bundle.writer import BundleWriter

        return BundleWriter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
