"""Exact cosine search over the bundle's float16 vector matrix.

The bundle stores vectors as float16 to halve the download, but numpy has no fast float16 kernels:
a float16 matmul (or converting blocks to float32 on every query) runs 10-30x slower than reading
float32. Measured here on 100,000 x 384: converting 4,096-row blocks per query took 69-186 ms, a
float32 matrix-vector product 6.6 ms. So the matrix is converted to float32 once (1.5 MB per
1,000 chunks at 384 dims) and kept. A server starts the conversion in the background when it opens
a bundle (`DenseIndex.start_conversion`), so the first question does not pay it: the rows are
converted in blocks, each claimed under a lock, and a query that arrives before the last block
converts the remaining blocks alongside the background thread instead of waiting idle. numpy lets
go of the interpreter while it copies a block, so hover and keyword search keep running meanwhile.

The product uses ``np.einsum`` rather than ``@``: einsum runs numpy's own SIMD loop, never BLAS, so
there is no BLAS thread pool to pin (OpenBLAS's default two threads collapsed under contention on
two shared cores: 13 ms against 6.6 ms single-threaded). Large matrices are split in row blocks
across `threads` Python threads instead (numpy releases the GIL inside the loop). Rows are
L2-normalised at build time, so the dot product with a normalised query is the cosine.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import numpy as np

from atlas_core.errors import BundleError, QueryError
from atlas_core.search.keyword import top_k

log = logging.getLogger(__name__)

VECTORS_FILE = "vectors.npy"
# Below this many rows one thread finishes before a second would have started.
PARALLEL_MIN_ROWS = 50_000
# Rows converted to float32 per step (3 MB of output at 384 dims): small enough that a query and
# the background thread share the work evenly, large enough that claiming a block costs nothing.
CONVERT_BLOCK_ROWS = 2048


def default_threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def best_rows(
    scores: np.ndarray, k: int, mask: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Top-k rows of one score per row (best first) and their scores, restricted to `mask` when
    given (`scores` is changed there)."""
    if mask is not None:
        scores[~mask] = -np.inf
    rows = top_k(scores, k)
    if mask is not None:
        rows = rows[np.isfinite(scores[rows])]
    return rows, scores[rows]


class _BundleLike(Protocol):
    manifest: Mapping[str, Any]

    def array(self, relpath: str) -> np.ndarray: ...


class DenseIndex:
    """Cosine scores of a query vector against every chunk vector."""

    def __init__(self, vectors: np.ndarray, *, threads: int | None = None) -> None:
        if vectors.ndim != 2:
            raise BundleError(
                f"vector matrix has shape {vectors.shape}, expected (chunks, dims)",
                hint="rebuild the bundle with `atlas build`",
            )
        self._stored = vectors
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()
        self.threads = default_threads() if threads is None else max(1, threads)
        self._pool: ThreadPoolExecutor | None = None
        self._conversion: _Conversion | None = None
        self._converter: threading.Thread | None = None

    @classmethod
    def open(cls, bundle: _BundleLike, *, threads: int | None = None) -> DenseIndex:
        return cls(bundle.array(VECTORS_FILE), threads=threads)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self._stored.shape[0]), int(self._stored.shape[1]))

    @property
    def dims(self) -> int:
        return self.shape[1]

    @property
    def ready(self) -> bool:
        """Whether the float32 copy is complete (a query then pays no conversion)."""
        return self._matrix is not None

    def start_conversion(self) -> None:
        """Convert the matrix to float32 on a background thread; returns at once. Calling it
        again, or after the conversion, does nothing."""
        conversion = self._begin()
        if conversion is None:
            return
        with self._lock:
            started, conversion.started = conversion.started, True
        if not started:
            thread = threading.Thread(
                target=self._finish, args=(conversion,), name="atlas-vectors", daemon=True
            )
            self._converter = thread
            thread.start()

    def wait_converted(self, timeout: float | None = None) -> None:
        """Wait until the background conversion's thread has ended (a process about to fork
        must have none running)."""
        thread = self._converter
        if thread is not None:
            thread.join(timeout)

    def matrix(self) -> np.ndarray:
        """The float32 copy (thread-safe): made here if no conversion runs, finished here, side
        by side with the background thread, if one does."""
        if self._matrix is None:
            conversion = self._begin()
            if conversion is not None:
                self._finish(conversion)
                conversion.done.wait()
                if conversion.error is not None:
                    raise conversion.error
        matrix = self._matrix
        if matrix is None:  # closed while converting
            raise BundleError(
                "the vector index was closed while it was being read",
                hint="search again: the server has opened the bundle anew",
            )
        return matrix

    def _begin(self) -> _Conversion | None:
        """The running conversion, started if there is none; None once the matrix is ready."""
        with self._lock:
            if self._matrix is not None:
                return None
            if self._conversion is None or self._conversion.error is not None:
                target = np.empty(self.shape, dtype=np.float32)
                if target.shape[0] == 0:
                    self._matrix = target
                    return None
                self._conversion = _Conversion(target, target.shape[0])
            return self._conversion

    def _finish(self, conversion: _Conversion) -> None:
        """Convert blocks until none is left unclaimed; whoever converts the last one publishes
        the matrix."""
        while True:
            with self._lock:
                if conversion.cancelled or conversion.next_row >= conversion.rows:
                    return
                start = conversion.next_row
                end = min(conversion.rows, start + CONVERT_BLOCK_ROWS)
                conversion.next_row = end
            try:
                np.copyto(conversion.target[start:end], self._stored[start:end], casting="safe")
            except Exception as exc:  # a truncated or unreadable file: every waiter sees it
                log.warning("converting vectors failed: %s", exc)
                with self._lock:
                    conversion.error = BundleError(
                        f"cannot read the bundle's vectors: {exc}",
                        hint="run `atlas verify` on the bundle, then download it again",
                    )
                    conversion.cancelled = True
                conversion.done.set()
                return
            with self._lock:
                conversion.converted += end - start
                complete = conversion.converted == conversion.rows and not conversion.cancelled
                if complete:
                    self._matrix = conversion.target
                    self._conversion = None
            if complete:
                conversion.done.set()

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of `query` (normalised here) with every row, as float32 of shape (n,)."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dims:
            raise QueryError(
                f"query vector has {q.shape[0]} dimensions, the bundle's vectors have {self.dims}",
                hint="the bundle's own model must embed the query",
            )
        norm = float(np.linalg.norm(q))
        if norm > 0:
            q = q / np.float32(norm)
        matrix = self.matrix()
        n = matrix.shape[0]
        out = np.empty(n, dtype=np.float32)
        if self.threads < 2 or n < PARALLEL_MIN_ROWS:
            np.einsum("ij,j->i", matrix, q, out=out)
            return out
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(
                        self.threads - 1, thread_name_prefix="atlas-dense"
                    )
        bounds = np.linspace(0, n, self.threads + 1).astype(int)
        futures = [
            self._pool.submit(np.einsum, "ij,j->i", matrix[a:b], q, out=out[a:b])
            for a, b in itertools.pairwise(bounds[1:])
        ]
        # the calling thread takes the first block instead of waiting idle
        np.einsum("ij,j->i", matrix[: bounds[1]], q, out=out[: bounds[1]])
        for future in futures:
            future.result()
        return out

    def search(
        self, query: np.ndarray, k: int, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k rows (best first) and their cosines, restricted to `mask` when given."""
        return best_rows(self.scores(query), k, mask)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None
        with self._lock:
            conversion, self._conversion = self._conversion, None
            self._matrix = None
        if conversion is not None:
            conversion.cancelled = True
            conversion.done.set()


class _Conversion:
    """One float32 conversion in progress: its output and which rows are claimed and done."""

    def __init__(self, target: np.ndarray, rows: int) -> None:
        self.target = target
        self.rows = rows
        self.next_row = 0  # first row no thread has claimed
        self.converted = 0  # rows written
        self.started = False  # a background thread works on it
        self.cancelled = False
        self.error: BundleError | None = None
        self.done = threading.Event()
