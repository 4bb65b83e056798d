"""Case records: the sample of every class with its capped expected files (method, steps 2-4)."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Any

from benchmarks.devset.corpus import Corpus
from benchmarks.devset.pages import Page
from benchmarks.devset.population import CLASSES, populations
from benchmarks.devset.population.member import dedupe
from benchmarks.devset.population.spellings import choose
from benchmarks.devset.sampling import draw

PER_CLASS = 28
MIN_PER_STRATUM = {
    "path": 5,
    "operation": 8,
    "parameter": 6,
    "json_key": 5,
    "type": 3,
    "near_tie": 12,
}
CAP = 8
WRITTEN_IN_CAP = 3


def finish(expected: list[str], extra: list[str], pages: dict[str, Page]) -> list[str]:
    """Cap a case's files: primary, up to WRITTEN_IN_CAP written pages, then the rule's order,
    then pages that define the same string under another class's rule."""
    own = dedupe(expected)
    written = [f for f in own[1:] if f in pages][:WRITTEN_IN_CAP]
    ordered = dedupe([own[0], *written, *own[1:], *extra])
    return ordered[:CAP]


def build_cases(c: Corpus, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    members = populations(c)
    defined_as: dict[str, list[str]] = defaultdict(list)
    for cls in CLASSES:
        for m in members[cls]:
            defined_as[m.name].extend(m.expected)
    rng = random.Random(seed)
    taken: set[str] = set()
    cases: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    for cls in CLASSES:
        pool = [m for m in members[cls] if m.name not in taken]
        chosen = draw(pool, PER_CLASS, MIN_PER_STRATUM.get(cls, 1), rng)
        taken.update(m.name for m in chosen)
        for i, m in enumerate(chosen, start=1):
            label, text = choose(seed, cls, m.name, m.spellings)
            own = dedupe(m.expected)
            extra = [f for f in defined_as[m.name] if f not in own]
            files = finish(own, extra, c.pages)
            cases.append(
                {
                    "id": f"{cls}-{i:03d}",
                    "category": "identifier",
                    "class": cls,
                    "identifier": text,
                    "spelling": label,
                    "canonical": m.name,
                    "stratum": m.stratum,
                    "expected_files": files,
                    "primary": files[0],
                    "definitions": len(dedupe([*own, *extra])),
                    "ambiguous": len(dedupe([*own, *extra])) > CAP,
                    "needs_spec": not any(f in c.pages for f in files),
                    "source": m.source,
                }
            )
        strata = Counter(m.stratum for m in members[cls])
        summary.append(
            {
                "class": cls,
                "population": len(members[cls]),
                "strata": dict(sorted(strata.items())),
                "sample": len(chosen),
                "ambiguous": sum(1 for case in cases[-len(chosen) :] if case["ambiguous"])
                if chosen
                else 0,
                "needs_spec": sum(1 for case in cases[-len(chosen) :] if case["needs_spec"])
                if chosen
                else 0,
            }
        )
    return cases, summary
