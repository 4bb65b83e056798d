"""Bundle format v1: the manifest, the writer, the reader and the verifier (see bundle_spec/SPEC.md)."""

from __future__ import annotations

from atlas_core.bundle.manifest import FORMAT_VERSION, read_manifest
from atlas_core.bundle.reader import Bundle
from atlas_core.bundle.verify import verify_bundle
from atlas_core.bundle.writer import BundleWriter

__all__ = ["FORMAT_VERSION", "Bundle", "BundleWriter", "read_manifest", "verify_bundle"]
