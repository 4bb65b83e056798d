"""Vendor twins: the vendor's own section on the same named subject as a third party's page,
placed just above that page when the page reaches the first results.

A community client's generated docs give every schema a page of its own (`ChangeUserRequest`),
while the vendor's spec describes the same schema as one section of a long page (`Schemas of the
... Core API > ChangeUserRequest`). A sentence model and the page-level ranking find the short
page; the long page's section loses to it and to its neighbours, so a question about the schema
showed the third party's page and not the vendor's. Measured on the held-out questions
(benchmarks/questions, real Collibra bundle, default model), hybrid MRR@10 / Recall@5 with twins
pulled into the first five against none: dev 0.872 / 0.882 against 0.871 / 0.873, train 0.885 /
0.902 against 0.880 / 0.868, test 0.817 / 0.858 against 0.806 / 0.830 (docs/evaluation.md).

A twin is matched by name only: the third party's page title and the last part of the vendor's
heading are the same compound name (an inner capital: `ChangeUserRequest`, not `Overview`), case
aside. Nothing is stored; a bundle that does not say who publishes its pages has no twins.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Sequence
from typing import Any

# A schema's or class's name: one word of letters and digits with a capital after its first
# letter, and a small letter somewhere (`ChangeUserRequest`; not `API`, not `Overview`).
_NAME = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*")


def _name(text: Any) -> str | None:
    text = str(text or "").strip()
    if _NAME.fullmatch(text) and not text.isupper():
        return text.lower()
    return None


def vendor_twins(
    titles: Sequence[Any], headings: Sequence[Any], third_party: Sequence[bool]
) -> dict[int, int]:
    """Each third party's row whose page title names a subject -> the first vendor row whose
    heading ends in the same name (rows of the chunk table, in its order)."""
    vendor: dict[str, int] = {}
    for row, (heading, theirs) in enumerate(zip(headings, third_party, strict=True)):
        if not theirs:
            name = _name(str(heading or "").rsplit(" > ", 1)[-1])
            if name is not None:
                vendor.setdefault(name, row)
    twins: dict[int, int] = {}
    if not vendor:
        return twins
    for row, (title, theirs) in enumerate(zip(titles, third_party, strict=True)):
        if theirs:
            twin = vendor.get(_name(title) or "")
            if twin is not None:
                twins[row] = twin
    return twins


def with_twins(
    found: Sequence[tuple[int, float]],
    twins: dict[int, int],
    section: Callable[[int], tuple[Hashable, Hashable]],
    depth: int,
) -> list[tuple[int, float]]:
    """`found` (row, score), best first, with the vendor twin of each of the first `depth`
    results placed just above it, unless the twin's page already ranks higher (as
    diversification keeps one page from filling the list). A twin further down moves up (any
    row of its section); the results it passes move down. `section` gives a row's (page,
    heading). The twin's score is the least float above its page's, so a merge that sorts by
    score keeps it above."""
    out = list(found)
    if not twins or depth <= 0:
        return out
    limit = depth
    i = 0
    while i < min(limit, len(out)):
        row, score = out[i]
        twin = twins.get(row)
        if twin is not None:
            wanted = section(twin)
            shown = {section(r)[0] for r, _ in out[:i]}
            at = next((j for j, (r, _) in enumerate(out) if section(r) == wanted), None)
            if wanted[0] not in shown and (at is None or at > i):
                if at is not None:
                    twin = out.pop(at)[0]
                out.insert(i, (twin, math.nextafter(score, math.inf)))
                i += 1
                limit += 1
        i += 1
    return out
