"""The fixed-seed stratified draw of each class's sample (method, step 2)."""

from __future__ import annotations

import random
from collections import defaultdict

from benchmarks.devset.population import Member


def allocate(sizes: dict[str, int], n: int, floor: int) -> dict[str, int]:
    """Per-stratum counts: a floor each, the rest in proportion to size (largest remainder)."""
    if sum(sizes.values()) <= n:
        return dict(sizes)
    take = {s: min(floor, size) for s, size in sizes.items()}
    left = n - sum(take.values())
    spare = {s: sizes[s] - take[s] for s in sizes}
    total = sum(spare.values())
    if left <= 0 or total == 0:
        return take
    quotas = {s: left * spare[s] / total for s in sizes}
    for s in sizes:
        take[s] += int(quotas[s])
    rest = left - sum(int(q) for q in quotas.values())
    for s in sorted(sizes, key=lambda s: (-(quotas[s] - int(quotas[s])), s))[:rest]:
        take[s] += 1
    return take


def draw(members: list[Member], n: int, floor: int, rng: random.Random) -> list[Member]:
    strata: dict[str, list[Member]] = defaultdict(list)
    for m in sorted(members, key=lambda m: m.name):
        strata[m.stratum].append(m)
    counts = allocate({s: len(v) for s, v in sorted(strata.items())}, n, floor)
    chosen: list[Member] = []
    for s in sorted(strata):
        chosen.extend(rng.sample(strata[s], counts[s]))
    return sorted(chosen, key=lambda m: m.name)
