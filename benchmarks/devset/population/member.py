"""A member of a class's population, and the orderings the rules share."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(slots=True)
class Member:
    cls: str
    name: str  # canonical: how the corpus or spec writes it
    stratum: str
    expected: list[str]  # this class's definition pages, primary first, uncapped
    spellings: list[tuple[str, str]]  # (label, text as code writes it)
    source: str


def dedupe(items: Iterable[str]) -> list[str]:
    """First occurrences in order, empty strings dropped."""
    return list(dict.fromkeys(i for i in items if i))


def by_weight(weights: dict[str, int], counts: dict[str, int] | None = None) -> list[str]:
    """Files by weight, then count, most first; ties by file name."""
    counts = counts or {}
    return [f for f in sorted(weights, key=lambda f: (-weights[f], -counts.get(f, 0), f))]
