"""The four retrieval metrics of one case, judged per file: a file ranks where its best chunk
ranks in the result list, and a file that appears again further down adds nothing."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

METRICS: tuple[str, ...] = ("mrr@10", "recall@5", "hit@1", "ndcg@10")


def first_relevant_rank(files: Sequence[str], expected: Iterable[str]) -> int | None:
    wanted = set(expected)
    for rank, file in enumerate(files, start=1):
        if file in wanted:
            return rank
    return None


def case_metrics(files: Sequence[str], expected: Sequence[str]) -> dict[str, float]:
    """The four metrics of one case, judged per file (a file counts once, at its best rank)."""
    wanted = set(expected)
    best: dict[str, int] = {}
    for rank, file in enumerate(files, start=1):
        best.setdefault(file, rank)
    relevant_ranks = sorted(r for f, r in best.items() if f in wanted)
    first = relevant_ranks[0] if relevant_ranks else None
    dcg = sum(1.0 / math.log2(r + 1) for r in relevant_ranks if r <= 10)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(wanted), 10) + 1))
    return {
        "mrr@10": 1.0 / first if first is not None and first <= 10 else 0.0,
        "recall@5": sum(1 for r in relevant_ranks if r <= 5) / len(wanted),
        "hit@1": 1.0 if first == 1 else 0.0,
        "ndcg@10": dcg / ideal if ideal else 0.0,
    }
