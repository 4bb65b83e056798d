"""Bundle format v1: the manifest, the writer, the reader and the verifier (see bundle_spec/SPEC.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports
from atlas_core.bundle.manifest import (
    FORMAT_VERSION,
    MANIFEST,
    MIRROR,
    MODEL,
    REPAIR_HINT,
    VECTOR_DTYPE,
    VECTORS_PENDING,
    bundle_name_problem,
    file_entry,
    read_manifest,
    sanitized_bundle_name,
)
from atlas_core.bundle.reader import Bundle
from atlas_core.bundle.verify import UNLISTED, bundle_problems, verify_bundle

if TYPE_CHECKING:
    from atlas_core.bundle.chunk_schema import file_problem
    from atlas_core.bundle.writer import BundleWriter, check_output

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST",
    "MIRROR",
    "MODEL",
    "REPAIR_HINT",
    "UNLISTED",
    "VECTORS_PENDING",
    "VECTOR_DTYPE",
    "Bundle",
    "BundleWriter",
    "bundle_name_problem",
    "bundle_problems",
    "check_output",
    "file_entry",
    "file_problem",
    "read_manifest",
    "sanitized_bundle_name",
    "verify_bundle",
]
# The writer needs numpy and the chunk schema pyarrow; readers (the language server's lookup path)
# never do.
__getattr__ = lazy_exports(
    __name__,
    {"BundleWriter": "writer", "check_output": "writer", "file_problem": "chunk_schema"},
)
