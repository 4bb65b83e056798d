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


def test_background_conversion_equals_the_direct_copy() -> None:
    # Many blocks, converted by the background thread and by queries arriving meanwhile.
    m = unit_rows(40_000, 8, seed=3).astype(np.float16)
    q = unit_rows(1, 8, seed=4)[0]
    expected = DenseIndex(m, threads=1).scores(q)
    for _ in range(3):
        index = DenseIndex(m, threads=1)
        assert not index.ready
        index.start_conversion()
        index.start_conversion()  # a second call starts nothing new
        scores = index.scores(q)  # may arrive before the last block: it helps convert
        assert index.ready
        np.testing.assert_array_equal(scores, expected)
        np.testing.assert_array_equal(index.matrix(), np.ascontiguousarray(m, dtype=np.float32))
        index.close()


def test_background_conversion_completes_without_a_query() -> None:
    m = unit_rows(10_000, 8, seed=5).astype(np.float16)
    index = DenseIndex(m)
    index.start_conversion()
    conversion = index._conversion
    if conversion is not None:  # None: it already finished
        assert conversion.done.wait(30)
    assert index.ready
    index.close()
    assert not index.ready


def test_empty_matrix_converts_to_an_empty_one() -> None:
    index = DenseIndex(np.zeros((0, 8), dtype=np.float16))
    index.start_conversion()
    assert index.ready and index.matrix().shape == (0, 8)
    assert index.search(np.ones(8, dtype=np.float32), 3)[0].size == 0


class _Unreadable(np.ndarray):
    """Vectors whose rows past the first block cannot be read, like a truncated file's."""

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, slice) and (key.start or 0) > 0:
            raise OSError("Input/output error")
        return super().__getitem__(key)


def test_unreadable_vectors_fail_the_query_with_a_hint_and_a_later_query_retries() -> None:
    rows = unit_rows(5_000, 8, seed=6).astype(np.float16)
    index = DenseIndex(rows.view(_Unreadable))
    index.start_conversion()
    with pytest.raises(BundleError, match="cannot read the bundle's vectors") as caught:
        index.scores(rows[0].astype(np.float32))
    assert "atlas verify" in (caught.value.hint or "")
    assert not index.ready
    # the file is readable again (a repaired bundle): the next query converts afresh
    index._stored = rows
    assert index.search(rows[9].astype(np.float32), 1)[0].tolist() == [9]
