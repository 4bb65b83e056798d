"""Exact cosine search over float16 vectors, computed in float32."""

from __future__ import annotations

import numpy as np
import pytest

from atlas_core.errors import BundleError, QueryError
from atlas_core.search.dense import DenseIndex


def unit_rows(n: int, dims: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, dims)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_scores_are_cosines_and_matrix_is_float32() -> None:
    m = unit_rows(50, 16)
    index = DenseIndex(m.astype(np.float16))
    q = m[7] * 3.0  # scale must not matter: the query is normalised
    scores = index.scores(q)
    expected = m.astype(np.float16).astype(np.float32) @ (m[7] / np.linalg.norm(m[7]))
    assert index.matrix().dtype == np.float32
    np.testing.assert_allclose(scores, expected, rtol=1e-5, atol=1e-5)
    rows, top = index.search(q, 3)
    assert rows[0] == 7 and top[0] == pytest.approx(1.0, abs=2e-3)
    assert list(top) == sorted(top, reverse=True)


def test_threaded_blocks_equal_single_thread() -> None:
    m = unit_rows(60_000, 8, seed=1).astype(np.float16)
    q = unit_rows(1, 8, seed=2)[0]
    one = DenseIndex(m, threads=1).scores(q)
    two_index = DenseIndex(m, threads=2)
    two = two_index.scores(q)
    two_index.close()
    np.testing.assert_array_equal(one, two)


def test_mask_restricts_rows() -> None:
    m = unit_rows(20, 8)
    index = DenseIndex(m.astype(np.float16))
    mask = np.zeros(20, dtype=bool)
    mask[[3, 4]] = True
    rows, _ = index.search(m[10], 5, mask)
    assert sorted(rows.tolist()) == [3, 4]


def test_bad_shapes() -> None:
    with pytest.raises(BundleError):
        DenseIndex(np.zeros(5, dtype=np.float16))
    index = DenseIndex(unit_rows(4, 8).astype(np.float16))
    with pytest.raises(QueryError, match="dimensions"):
        index.scores(np.ones(3, dtype=np.float32))
    # an all-zero query is not a crash: every score is 0
    assert not index.scores(np.zeros(8, dtype=np.float32)).any()
