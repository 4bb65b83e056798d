"""Opening a bundle: check it, then memory-map what callers ask for.

`Bundle.open` reads the manifest, file metadata, `.npy` headers and the Parquet footer, nothing more,
so opening a large bundle costs milliseconds. Arrays are memory-mapped on first use and checked
against the manifest; the chunk table is read on first use and cached.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas_core.bundle.manifest import (
    CHUNKS,
    MIRROR,
    MODEL,
    REPAIR_HINT,
    VECTORS,
    VECTORS_PENDING,
    read_manifest,
    sha256_file,
)
from atlas_core.bundle.verify import first_problem_error, structural_problems
from atlas_core.errors import BundleError
from atlas_core.safeio import safe_relpath
from atlas_core.sources import PUBLISHER_KINDS
from atlas_core.types import BundleInfo

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

log = logging.getLogger(__name__)


class Bundle:
    """An opened, structurally checked bundle directory. Read-only and thread-safe."""

    def __init__(self, path: Path, manifest: dict[str, Any], *, load_ms: float = 0.0) -> None:
        self.path = path
        self.manifest: Mapping[str, Any] = manifest
        self.load_ms = load_ms
        self._lock = threading.Lock()
        self._arrays: dict[str, np.ndarray] = {}
        self._chunks: pa.Table | None = None

    @classmethod
    def open(cls, path: str | Path) -> Bundle:
        """Open the bundle at `path`; BundleError (or BundleVersionError) naming what is wrong."""
        started = time.perf_counter()
        # Resolved once: an install's `current` link may flip later, and every lazy read of this
        # bundle must keep coming from the release it was opened on.
        root = Path(path).expanduser().resolve()
        manifest = read_manifest(root)
        problems = structural_problems(root, manifest)
        if problems:
            raise first_problem_error(root, problems)
        load_ms = (time.perf_counter() - started) * 1000
        log.debug("opened bundle %s in %.1f ms", root, load_ms)
        return cls(root, manifest, load_ms=load_ms)

    def __repr__(self) -> str:
        return f"Bundle({str(self.path)!r}, chunks={self.chunk_count}, model={self.model_name!r})"

    # --- manifest facts -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.manifest.get("name") or self.path.name)

    @property
    def format_version(self) -> str:
        return str(self.manifest["format_version"])

    @property
    def is_demo(self) -> bool:
        """Whether this is the embedded demo bundle (sample docs, not Collibra's): its manifest
        says so with ``"demo": true``, which only the demo build writes."""
        return self.manifest.get("demo") is True

    @property
    def vectors_pending(self) -> bool:
        """Whether the vectors are zero rows still being computed (manifest
        ``"vectors_pending": true``): keyword and identifier search answer, vector search not yet."""
        return self.manifest.get(VECTORS_PENDING) is True

    @property
    def has_publishers(self) -> bool:
        """Whether the build recorded who publishes each page (manifest ``publishers``, since
        1.4); a bundle without it ranks without source authority, as before."""
        return isinstance(self.manifest.get("publishers"), Mapping)

    def publisher(self, file: str) -> str:
        """Who publishes the page `file` (`vendor-portal`, `vendor-spec`, `third-party`,
        `team`); "" when the bundle does not say, or says a kind this reader does not know."""
        section = self.manifest.get("publishers")
        if not isinstance(section, Mapping):
            return ""
        files, folders = section.get("files"), section.get("folders")
        kind = files.get(file) if isinstance(files, Mapping) else None
        if kind is None and isinstance(folders, Mapping):
            kind = folders.get(file.partition("/")[0] + "/")
        return kind if kind in PUBLISHER_KINDS else ""

    def publishers(self) -> dict[str, list[str]]:
        """Each publisher kind the bundle records, with its folders (`rest-core/`) and single
        pages, for `atlas info`; {} when the bundle records none."""
        section = self.manifest.get("publishers")
        out: dict[str, list[str]] = {}
        if not isinstance(section, Mapping):
            return out
        for part in ("folders", "files"):
            table = section.get(part)
            for where, kind in table.items() if isinstance(table, Mapping) else ():
                out.setdefault(str(kind), []).append(str(where))
        return out

    @property
    def files(self) -> Mapping[str, Mapping[str, Any]]:
        return self.manifest["files"]

    @property
    def model(self) -> Mapping[str, Any]:
        return self.manifest["model"]

    @property
    def model_name(self) -> str:
        return str(self.model["name"])

    @property
    def dims(self) -> int:
        return int(self.model["dims"])

    @property
    def chunk_count(self) -> int:
        return int(self.manifest["counts"]["chunks"])

    @property
    def size(self) -> int:
        """Total bytes of the listed files (the manifest itself excluded)."""
        return sum(int(entry["size"]) for entry in self.files.values())

    @property
    def mirror_dir(self) -> Path:
        return self.path / MIRROR

    @property
    def model_dir(self) -> Path:
        return self.path / MODEL

    def section(self, key: str) -> Mapping[str, Any] | None:
        """An optional manifest section such as ``keyword`` or ``identifiers``."""
        value = self.manifest.get(key)
        return value if isinstance(value, Mapping) else None

    def has(self, relpath: str) -> bool:
        return relpath in self.files

    # --- files and arrays -----------------------------------------------------------------------

    def file(self, relpath: str) -> Path:
        """The path of a file inside the bundle; BundleError for paths that would leave it."""
        if not safe_relpath(relpath):
            raise BundleError(
                f"{relpath!r} is not a path inside the bundle {self.path}",
                hint="use a relative POSIX path without '..', e.g. 'mirror/rest-core/assets-api.md'",
                path=str(self.path),
            )
        path = self.path / relpath
        if not path.resolve().is_relative_to(self.path.resolve()):
            raise BundleError(
                f"{relpath!r} leads outside the bundle {self.path}",
                hint="bundles hold plain files only; " + REPAIR_HINT,
                path=str(path),
            )
        return path

    def changed(self, relpaths: Iterable[str]) -> list[str]:
        """Those of the listed `relpaths` whose bytes no longer hash to the manifest's sha256 (a
        file altered in place at the same size passes `open`, which checks sizes and headers
        only). Reads each file whole: callers hash what they are about to load, once."""
        changed = []
        for rel in relpaths:
            entry = self.files.get(rel)
            if entry is None:
                continue
            try:
                digest = sha256_file(self.file(rel))
            except OSError:
                digest = ""
            if digest != entry["sha256"]:
                changed.append(rel)
        return changed

    def array(self, relpath: str) -> np.ndarray:
        """A read-only memory map of a listed `.npy`, checked against its manifest dtype and shape."""
        with self._lock:
            cached = self._arrays.get(relpath)
            if cached is not None:
                return cached
        entry = self.files.get(relpath)
        if entry is None or "dtype" not in entry:
            raise BundleError(
                f"{self.path}: manifest.json lists no array {relpath!r}",
                hint="the bundle was built without it; rebuild it with a current `atlas build`",
                path=str(self.path / relpath),
            )
        import numpy as np

        path = self.file(relpath)
        shape = tuple(int(n) for n in entry["shape"])
        try:
            if 0 in shape:
                # mmap cannot map zero bytes; an empty array is still a valid array.
                array = np.empty(shape, dtype=np.dtype(entry["dtype"]))
            else:
                array = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise BundleError(
                f"{path}: cannot load ({exc})", hint=REPAIR_HINT, path=str(path)
            ) from exc
        if array.dtype.str != entry["dtype"] or array.shape != shape:
            raise BundleError(
                f"{path}: is {array.dtype.str} {list(array.shape)}, manifest.json says "
                f"{entry['dtype']} {list(shape)}",
                hint=REPAIR_HINT,
                path=str(path),
            )
        with self._lock:
            return self._arrays.setdefault(relpath, array)

    def vectors(self) -> np.ndarray:
        """The float16 (chunk_count, dims) matrix; row i is chunk row i."""
        return self.array(VECTORS)

    def chunks(self) -> pa.Table:
        """The chunk table (SPEC "chunks.parquet"), read on first use and cached."""
        with self._lock:
            if self._chunks is not None:
                return self._chunks
        import pyarrow.parquet as pq

        path = self.file(CHUNKS)
        try:
            table = pq.read_table(path, memory_map=True)
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise BundleError(
                f"{path}: cannot read the chunk table ({exc})", hint=REPAIR_HINT, path=str(path)
            ) from exc
        if table.num_rows != self.chunk_count:
            raise BundleError(
                f"{path}: has {table.num_rows} rows, manifest.json counts {self.chunk_count}",
                hint=REPAIR_HINT,
                path=str(path),
            )
        from atlas_core.bundle.chunk_schema import table_problems

        problems = table_problems(table)
        if problems:
            raise BundleError(f"{path}: {'; '.join(problems)}", hint=REPAIR_HINT, path=str(path))
        with self._lock:
            if self._chunks is None:
                self._chunks = table
            return self._chunks

    # --- summary --------------------------------------------------------------------------------

    def info(self) -> BundleInfo:
        counts = self.manifest["counts"]
        identifiers = counts.get("identifiers")
        if identifiers is None:
            section = self.section("identifiers") or {}
            identifiers = section.get("count", 0)
        return BundleInfo(
            path=str(self.path),
            name=self.name,
            format_version=self.format_version,
            built_at=str(self.manifest["built_at"]),
            chunks=self.chunk_count,
            doc_files=int(counts.get("mirror_files", counts.get("documents", 0))),
            bundle_files=len(self.files),
            identifiers=int(identifiers),
            model=self.model_name,
            dims=self.dims,
            sources=tuple(self.manifest["sources"]),
            atlas_version=str(self.manifest.get("atlas_version", "")),
            mirror=str(self.mirror_dir),
            load_ms=self.load_ms,
            demo=self.is_demo,
            extra={
                "documents": int(counts.get("documents", 0)),
                "size": self.size,
                "model_kind": self.model.get("kind", ""),
                "keyword": self.section("keyword") is not None,
            },
        )
