"""Combining keyword and vector rankings, and keeping one file from filling the results.

Two fusions are offered. Score fusion min-max normalises each list over its own candidates and adds
them with weights; reciprocal-rank fusion (RRF) adds ``1 / (k + rank)`` and ignores the scores. The
engine's default is the one that scored better on the development set (see `DEFAULT_FUSION`).

Diversification walks a ranked list: a chunk whose file and heading already appeared is dropped (an
oversized section split in parts says the same thing twice), and every further chunk of a file
already shown has its score multiplied by `penalty` once per earlier chunk of that file.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

FusionMethod = Literal["score", "rrf"]
FUSION_METHODS: tuple[str, ...] = ("score", "rrf")

DEFAULT_FUSION: FusionMethod = "score"
DEFAULT_VECTOR_WEIGHT = 0.5  # keyword weight is 1 - this
DEFAULT_RRF_K = 60
DEFAULT_FILE_PENALTY = 0.85


@dataclass(frozen=True, slots=True)
class Ranked:
    """A ranked list of chunk rows with their scores, best first."""

    rows: np.ndarray  # int64
    scores: np.ndarray  # float32/float64


def _minmax(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size == 0:
        return scores
    low, high = float(scores.min()), float(scores.max())
    if high - low <= 1e-12:
        # one candidate or all tied: they are all as good as this list gets
        return np.ones_like(scores)
    return (scores - low) / (high - low)


def score_fusion(
    keyword: Ranked, vector: Ranked, *, vector_weight: float = DEFAULT_VECTOR_WEIGHT
) -> Ranked:
    """Weighted sum of min-max normalised scores; a row missing from a list gets 0 from it."""
    fused: dict[int, float] = {}
    for ranked, weight in ((keyword, 1.0 - vector_weight), (vector, vector_weight)):
        for row, value in zip(ranked.rows.tolist(), _minmax(ranked.scores).tolist(), strict=True):
            fused[row] = fused.get(row, 0.0) + weight * value
    return _from_dict(fused)


def rrf_fusion(
    keyword: Ranked,
    vector: Ranked,
    *,
    k: int = DEFAULT_RRF_K,
    vector_weight: float = DEFAULT_VECTOR_WEIGHT,
) -> Ranked:
    """Reciprocal-rank fusion, weighted per list (0.5/0.5 is plain RRF up to a factor)."""
    fused: dict[int, float] = {}
    for ranked, weight in ((keyword, 1.0 - vector_weight), (vector, vector_weight)):
        for rank, row in enumerate(ranked.rows.tolist(), start=1):
            fused[row] = fused.get(row, 0.0) + 2.0 * weight / (k + rank)
    return _from_dict(fused)


def fuse(
    keyword: Ranked,
    vector: Ranked,
    *,
    method: str = DEFAULT_FUSION,
    vector_weight: float = DEFAULT_VECTOR_WEIGHT,
    rrf_k: int = DEFAULT_RRF_K,
) -> Ranked:
    if method == "rrf":
        return rrf_fusion(keyword, vector, k=rrf_k, vector_weight=vector_weight)
    if method == "score":
        return score_fusion(keyword, vector, vector_weight=vector_weight)
    raise ValueError(f"unknown fusion method {method!r}; expected one of {FUSION_METHODS}")


def _from_dict(fused: dict[int, float]) -> Ranked:
    if not fused:
        return Ranked(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    rows = np.fromiter(fused.keys(), dtype=np.int64, count=len(fused))
    scores = np.fromiter(fused.values(), dtype=np.float64, count=len(fused))
    order = np.lexsort((rows, -scores))
    return Ranked(rows[order], scores[order])


def diversify(
    rows: Sequence[int],
    scores: Sequence[float],
    files: Sequence[Hashable],
    headings: Sequence[Hashable],
    *,
    penalty: float = DEFAULT_FILE_PENALTY,
) -> list[tuple[int, float]]:
    """Re-rank (row, score) pairs so one file cannot fill the list.

    `files[i]` and `headings[i]` belong to `rows[i]`. A penalty makes any score worse (positive ones
    shrink toward zero, a negative cosine is pushed further down); pairs come back best first.
    """
    seen_sections: set[tuple[Hashable, Hashable]] = set()
    per_file: dict[Hashable, int] = {}
    kept: list[tuple[int, float, int]] = []
    for position, (row, score, file, heading) in enumerate(
        zip(rows, scores, files, headings, strict=True)
    ):
        section = (file, heading)
        if section in seen_sections:
            continue
        seen_sections.add(section)
        earlier = per_file.get(file, 0)
        per_file[file] = earlier + 1
        factor = penalty**earlier
        value = float(score)
        kept.append((int(row), value * factor if value >= 0 else value / factor, position))
    kept.sort(key=lambda item: (-item[1], item[2]))
    return [(row, score) for row, score, _ in kept]
