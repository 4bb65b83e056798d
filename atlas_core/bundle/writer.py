"""Writing a bundle: stage everything in a sibling directory, then rename it into place.

Whatever was at the output stays untouched until the very last step, so an interrupted or failed
build changes nothing (SPEC "How a writer builds a bundle"). Usage::

    with BundleWriter(output, name="collibra-docs") as writer:
        model_section = embedder.stage(writer.staging / "model")
        writer.write_mirror(documents)
        writer.write_chunks(chunks)
        writer.write_vectors(vectors)
        writer.set_section("keyword", write_keyword_index(chunks, writer.staging))
        writer.commit(model=model_section, sources=[...], counts={"documents": len(documents)})
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import logging
import os
import platform
import re
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from atlas_core import __version__
from atlas_core.bundle.manifest import (
    CHUNKS,
    FORMAT_VERSION,
    MANIFEST,
    MIRROR,
    VECTOR_DTYPE,
    VECTORS,
    bundle_name_problem,
    file_entry,
    npy_dtype_problem,
    sanitized_bundle_name,
    schema_errors,
)
from atlas_core.bundle.verify import bundle_files, structural_problems
from atlas_core.safeio import has_pickle_suffix, safe_relpath

if TYPE_CHECKING:
    from atlas_core.bundle.reader import Bundle
from atlas_core.errors import BuildError
from atlas_core.types import Chunk, Document

log = logging.getLogger(__name__)

_STAGING_RE = re.compile(r"^\.(?P<name>.+)\.(?:building|old)-(?P<pid>[0-9]+)-")


def _is_bundle_dir(path: Path) -> bool:
    return path.is_dir() and (path / MANIFEST).is_file()


def check_output(output: Path) -> Path:
    """Where the bundle will go; BuildError when that place holds something Atlas did not build.

    A symbolic link is followed, so the link keeps pointing at the rebuilt bundle.
    """
    output = Path(output).expanduser().absolute()
    if output.is_symlink():
        output = output.resolve()
    if output.exists():
        if output.is_dir() and (_is_bundle_dir(output) or not any(output.iterdir())):
            return output
        raise BuildError(
            f"--output {output} exists and is not an Atlas bundle; refusing to replace it",
            hint="choose a new directory, an empty one, or an existing bundle to rebuild",
            path=str(output),
        )
    return output


def _unwritable(output: Path, exc: OSError) -> BuildError:
    reason = exc.strerror or str(exc)
    return BuildError(
        f"cannot write the bundle at {output}: {reason}",
        hint="choose an --output in a writable directory with free space",
        path=str(output),
    )


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(parent: Path, name: str) -> None:
    """Staging directories left by builds that were killed outright (SIGKILL, power loss)."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            match = _STAGING_RE.match(entry.name)
            if not match or match.group("name") != name or not entry.is_dir():
                continue
            if int(match.group("pid")) != os.getpid() and not _pid_alive(int(match.group("pid"))):
                log.info("removing %s left by an interrupted build", entry)
                shutil.rmtree(entry, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if result == 0:
        return True
    log.debug("renameat2 exchange unavailable (errno %d); using two renames", ctypes.get_errno())
    return False


def _install(staging: Path, output: Path, *, defer_cleanup: bool = False) -> None:
    """Put the finished staging directory at `output`, replacing an old bundle at the last moment.
    With `defer_cleanup` the old bundle's files are deleted on a background thread (a process
    that lives on, `atlas index --watch`; one that exits first leaves them to the next build's
    clean-up of stale staging folders)."""
    if not output.exists():
        os.rename(staging, output)
        return
    if _exchange(staging, output):
        if defer_cleanup:  # `staging` now holds the old bundle
            threading.Thread(target=shutil.rmtree, args=(staging, True), daemon=True).start()
        else:
            shutil.rmtree(staging, ignore_errors=True)
        return
    old = output.with_name(f".{output.name}.old-{os.getpid()}-{os.urandom(4).hex()}")
    os.rename(output, old)
    try:
        os.rename(staging, output)
    except OSError:
        os.rename(old, output)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    if sys.platform == "win32":  # directories cannot be opened for fsync there
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path, durable: frozenset[str] = frozenset()) -> None:
    """fsync every file and folder under `root`, but the files in `durable` (paths as joined
    below): links to files of a committed bundle, whose data is on disk already."""
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if path in durable:
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(dirpath))


def _utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class BundleWriter:
    """Builds one bundle in a staging directory next to `output`; `commit` moves it into place."""

    def __init__(
        self, output: str | Path, *, name: str | None = None, defer_cleanup: bool = False
    ) -> None:
        self.output = check_output(Path(output))
        if name is None:
            # The folder name is anything a user typed; the bundle's name must be a safe path
            # segment (installs and backups are named after it).
            name = sanitized_bundle_name(self.output.name)
        elif why := bundle_name_problem(name):
            raise BuildError(f"--name {why}", hint="for example --name collibra-docs")
        self.name = name
        parent = self.output.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            _remove_stale(parent, self.output.name)
            self.staging = Path(
                tempfile.mkdtemp(prefix=f".{self.output.name}.building-{os.getpid()}-", dir=parent)
            )
        except OSError as exc:
            raise _unwritable(self.output, exc) from exc
        self._defer_cleanup = defer_cleanup
        self._sections: dict[str, Any] = {}
        self._chunk_rows: int | None = None
        self._mirror_files = 0
        self._linked: set[str] = set()  # staged files that are links to a previous bundle's
        # Manifest entries of files whose bytes the writer had in memory (the mirror): hashed
        # there, not read back from disk at commit.
        self._entries: dict[str, dict[str, Any]] = {}
        self._done = False
        self.committed: dict[str, Any] | None = None  # the manifest, once committed

    def __enter__(self) -> BundleWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None or not self._done:
            self.abort()

    def abort(self) -> None:
        """Delete the staging directory; the output is left as it was."""
        if self.staging.exists():
            shutil.rmtree(self.staging, ignore_errors=True)
        self._done = True

    def path(self, relpath: str) -> Path:
        """A path inside the staging directory, parents created."""
        if not safe_relpath(relpath) or has_pickle_suffix(relpath):
            raise ValueError(f"not an allowed bundle path: {relpath!r}")
        path = self.staging / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    # --- content ------------------------------------------------------------------------------

    def write_mirror(self, documents: Sequence[Document], previous: Bundle | None = None) -> int:
        """Write each document's text verbatim (UTF-8) to ``mirror/<path>``; paths must be unique.

        A page whose bytes a `previous` bundle holds at the same path (listed in its manifest
        with the same size, and read back equal) is hard-linked from there instead: an update of
        a large project rewrites only what changed, and bundles are never changed in place."""
        seen: dict[str, Document] = {}
        folders: set[Path] = set()
        for doc in documents:
            rel = doc.path
            if (
                not safe_relpath(rel)
                or has_pickle_suffix(rel)
                or PurePosixPath(rel).name.startswith(".")
            ):
                raise BuildError(
                    f"document path {rel!r} (source {doc.source or '?'}) is not a safe relative path",
                    hint="this is a bug in the source reader; report it with the source that produced it",
                )
            if rel in seen:
                raise BuildError(
                    f"two documents have the same path {rel!r} (sources {seen[rel].source or '?'} "
                    f"and {doc.source or '?'})",
                    hint="give each --source its own folder layout, or drop the duplicate source",
                )
            seen[rel] = doc
            data = doc.text.encode("utf-8")
            relpath = f"{MIRROR}/{rel}"
            entry = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            target = self.staging / relpath
            if target.parent not in folders:  # one mkdir per folder, not per page
                target.parent.mkdir(parents=True, exist_ok=True)
                folders.add(target.parent)
            if previous is None or not self._link(previous, relpath, data, target):
                target.write_bytes(data)
            self._entries[relpath] = entry
        self._mirror_files = len(seen)
        return len(seen)

    def _link(self, previous: Bundle, relpath: str, data: bytes, target: Path) -> bool:
        listed = previous.files.get(relpath)
        if not listed or listed.get("size") != len(data):
            return False
        source = os.path.join(previous.path, relpath)
        try:
            # Read back, not trusted from the manifest: a page damaged there is written afresh.
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode) or fh.read() != data:
                    return False
            os.link(source, target)
        except OSError:  # gone, a link, another file system, links not allowed: write it instead
            return False
        self._linked.add(str(target))
        return True

    def write_chunks(self, chunks: Sequence[Chunk]) -> int:
        """Write ``chunks.parquet`` (SPEC "chunks.parquet"); returns the row count."""
        import pyarrow.parquet as pq

        from atlas_core.bundle.chunk_schema import chunks_to_table

        table = chunks_to_table(chunks)
        pq.write_table(table, self.path(CHUNKS), compression="zstd")
        self._chunk_rows = table.num_rows
        return table.num_rows

    def write_array(self, relpath: str, array: np.ndarray) -> None:
        """Save a plain numeric array as little-endian, C-order `.npy` (never pickle)."""
        if not relpath.endswith(".npy"):
            raise ValueError(f"array paths end in .npy: {relpath!r}")
        array = np.asarray(array)
        why = npy_dtype_problem(
            array.dtype.newbyteorder("<") if array.dtype.str[0] == ">" else array.dtype
        )
        if why:
            raise ValueError(f"{relpath} {why}")
        array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        with self.path(relpath).open("wb") as fh:
            np.save(fh, array, allow_pickle=False)

    def write_vectors(self, vectors: np.ndarray) -> None:
        """Write ``vectors.npy`` as float16 (rows must match the chunk table)."""
        if vectors.ndim != 2:
            raise ValueError(f"vectors must be 2-D, got shape {vectors.shape}")
        if self._chunk_rows is not None and vectors.shape[0] != self._chunk_rows:
            raise ValueError(f"{vectors.shape[0]} vectors for {self._chunk_rows} chunks")
        self.write_array(VECTORS, vectors.astype(VECTOR_DTYPE, copy=False))

    def set_section(self, key: str, section: dict[str, Any] | bool) -> None:
        """An extra manifest section (``keyword``, ``identifiers``, ...) or flag (``demo``)."""
        if key in _RESERVED:
            raise ValueError(f"manifest key {key!r} is written by the writer itself")
        self._sections[key] = section

    # --- finishing ----------------------------------------------------------------------------

    def manifest(
        self,
        *,
        model: dict[str, Any],
        sources: list[dict[str, Any]],
        counts: dict[str, int],
        build: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Hash every staged file and assemble the manifest (does not write it)."""
        files: dict[str, Any] = {}
        for rel in sorted(bundle_files(self.staging)):
            if rel == MANIFEST:
                continue
            known = self._entries.get(rel)
            if known is not None:  # a file this writer wrote from memory: a plain file
                files[rel] = dict(known)
                continue
            path = self.staging / rel
            if path.is_symlink():
                raise BuildError(
                    f"{rel} in the staged bundle is a symbolic link; bundles hold plain files"
                )
            files[rel] = file_entry(path)
        all_counts = {
            "documents": 0,
            "chunks": self._chunk_rows or 0,
            "mirror_files": self._mirror_files,
        }
        identifiers = self._sections.get("identifiers", {})
        if isinstance(identifiers.get("count"), int):
            all_counts["identifiers"] = identifiers["count"]
        all_counts.update(counts)
        build_info = {
            "python": platform.python_version(),
            "platform": f"{platform.system()}-{platform.machine()}",
        }
        build_info.update(build or {})
        manifest: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "built_at": _utc_now(),
            "atlas_version": __version__,
            "build": build_info,
            "sources": sources,
            "model": model,
            "counts": all_counts,
        }
        manifest.update(self._sections)
        manifest["files"] = files
        return manifest

    def commit(
        self,
        *,
        model: dict[str, Any],
        sources: list[dict[str, Any]],
        counts: dict[str, int] | None = None,
        build: dict[str, Any] | None = None,
    ) -> Path:
        """Write the manifest last, check the staged bundle as a reader would, move it into place."""
        manifest = self.manifest(model=model, sources=sources, counts=counts or {}, build=build)
        errors = schema_errors(manifest)
        if errors:
            raise BuildError(f"the manifest this build produced is invalid: {'; '.join(errors)}")
        problems = structural_problems(self.staging, manifest)
        if problems:
            raise BuildError(
                "the staged bundle fails its own checks: " + "; ".join(str(p) for p in problems[:5])
            )
        # Data on disk before the manifest that vouches for it, so a crash cannot leave a manifest
        # next to empty files.
        _fsync_tree(self.staging, frozenset(self._linked))
        manifest_path = self.staging / MANIFEST
        with manifest_path.open("w", encoding="utf-8") as fh:
            # allow_nan=False: NaN and Infinity are not JSON, and readers refuse them.
            json.dump(manifest, fh, indent=2, ensure_ascii=False, allow_nan=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        # Re-check right before the swap: a concurrent writer may have put something there.
        check_output(self.output)
        try:
            _install(self.staging, self.output, defer_cleanup=self._defer_cleanup)
            _fsync_dir(self.output.parent)
        except OSError as exc:
            raise _unwritable(self.output, exc) from exc
        self._done = True
        self.committed = manifest
        log.info("bundle written to %s", self.output)
        return self.output


_RESERVED = frozenset(
    {
        "format_version",
        "name",
        "built_at",
        "atlas_version",
        "build",
        "sources",
        "model",
        "counts",
        "files",
    }
)
