"""Score fusion, reciprocal-rank fusion and file diversification."""

from __future__ import annotations

import numpy as np
import pytest

from atlas_core.search.fusion import Ranked, diversify, fuse, rrf_fusion, score_fusion


def ranked(rows: list[int], scores: list[float]) -> Ranked:
    return Ranked(np.array(rows, dtype=np.int64), np.array(scores, dtype=np.float64))


KEYWORD = ranked([1, 2, 3], [12.0, 6.0, 2.0])
VECTOR = ranked([3, 4, 1], [0.9, 0.8, 0.5])


def test_score_fusion_normalises_and_weights() -> None:
    fused = score_fusion(KEYWORD, VECTOR, vector_weight=0.5)
    got = dict(zip(fused.rows.tolist(), fused.scores.tolist(), strict=True))
    # keyword min-max: 1 -> 1, 2 -> 0.4, 3 -> 0; vector: 3 -> 1, 4 -> 0.75, 1 -> 0
    assert got == pytest.approx({1: 0.5, 2: 0.2, 3: 0.5, 4: 0.375})
    assert fused.rows.tolist()[:2] == [1, 3]  # tie broken by row
    only_vector = score_fusion(KEYWORD, VECTOR, vector_weight=1.0)
    assert only_vector.rows[0] == 3


def test_rrf_uses_ranks_not_scores() -> None:
    fused = rrf_fusion(KEYWORD, VECTOR, k=60)
    got = dict(zip(fused.rows.tolist(), fused.scores.tolist(), strict=True))
    assert got[1] == pytest.approx(1 / 61 + 1 / 63)
    assert got[3] == pytest.approx(1 / 63 + 1 / 61)
    assert got[4] == pytest.approx(1 / 62)
    # the scale of the keyword scores changes nothing
    scaled = rrf_fusion(ranked([1, 2, 3], [1200.0, 600.0, 1.0]), VECTOR, k=60)
    assert scaled.rows.tolist() == fused.rows.tolist()


def test_fuse_dispatch_and_empty_lists() -> None:
    assert fuse(KEYWORD, VECTOR, method="rrf").rows.size == 4
    empty = ranked([], [])
    assert fuse(empty, empty).rows.size == 0
    one = fuse(ranked([5], [3.0]), empty)
    assert one.rows.tolist() == [5]
    with pytest.raises(ValueError, match="unknown fusion"):
        fuse(KEYWORD, VECTOR, method="max")


def test_diversify_penalises_repeats_and_drops_duplicate_sections() -> None:
    rows = [0, 1, 2, 3, 4]
    scores = [1.0, 0.95, 0.9, 0.85, 0.5]
    files = ["a.md", "a.md", "a.md", "b.md", "a.md"]
    headings = ["A > x", "A > y", "A > x", "B", "A > z"]
    out = diversify(rows, scores, files, headings, penalty=0.8)
    assert [r for r, _ in out] == [0, 3, 1, 4]  # row 2 repeats (a.md, A > x): dropped
    got = dict(out)
    assert got[1] == pytest.approx(0.95 * 0.8)
    assert got[4] == pytest.approx(0.5 * 0.8**2)


def test_one_file_cannot_fill_the_list_when_others_are_close() -> None:
    rows = list(range(6))
    scores = [1.0, 0.99, 0.98, 0.97, 0.96, 0.9]
    files = ["a"] * 5 + ["b"]
    headings = [f"h{i}" for i in rows]
    top3 = [r for r, _ in diversify(rows, scores, files, headings)[:3]]
    assert 5 in top3


def test_penalty_lowers_negative_scores_too() -> None:
    out = diversify([0, 1], [-0.1, -0.2], ["a", "a"], ["x", "y"], penalty=0.5)
    assert dict(out)[1] == pytest.approx(-0.4)
