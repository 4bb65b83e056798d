"""What a lookup candidate is about, so that one subject is answered once.

The same endpoint is often documented on several pages (a written guide, the generated reference
of its spec, a client library's page); a lookup finds each of them. `subject_keys` says what a
candidate documents and `group_pages` folds the candidates of one subject into the best one, the
others kept as its `also` pages in rank order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from atlas_core.identifiers.spelling import compact, path_key
from atlas_core.types import Candidate, PageRef, Symbol

# Kinds whose candidates on several pages are one subject; the rest (JSON keys, commands,
# headings, mentions) are answers of their own on each page.
_GROUPED_KINDS = frozenset({"endpoint", "operation", "schema", "type", "parameter", "property"})


def subject_keys(cand: Candidate) -> frozenset[str]:
    """What a candidate documents, as keys that two pages documenting the same operation,
    endpoint or type share: method and path template, operation id in any case style, type name."""
    keys: set[str] = set()
    if cand.method and cand.path:
        keys.add(f"{cand.method.upper()} {path_key(cand.path)}")
    if cand.operation_id:
        keys.add("operation " + compact(cand.operation_id))
    if cand.kind in ("schema", "type"):
        keys.add("type " + compact(cand.name))
    elif cand.kind != "endpoint":
        keys.add(f"{cand.kind} " + compact(cand.name))
    return frozenset(keys)


def _group_keys(cand: Candidate) -> frozenset[str]:
    if cand.kind in ("parameter", "property"):
        # One owner's parameter: the 13 operations that take `nameMatchMode` stay 13 answers.
        where = f"{cand.method.upper()} {path_key(cand.path)}" if cand.path else ""
        return frozenset({f"{cand.kind} {compact(cand.name)} {where} {compact(cand.owner)}"})
    return subject_keys(cand)


def group_pages(candidates: Sequence[Candidate], limit: int) -> list[Candidate]:
    """One candidate per subject and bundle, best first, at most `limit`; each keeps the other
    pages of its subject (a page once) in `also`."""
    groups: list[tuple[Candidate, frozenset[str], dict[tuple[str, str], PageRef]]] = []
    for cand in candidates:
        keys = _group_keys(cand) if cand.kind in _GROUPED_KINDS else frozenset()
        home = next(
            (g for g in groups if keys and g[0].bundle == cand.bundle and g[1] & keys), None
        )
        if home is None:
            if len(groups) < limit:
                groups.append((cand, keys, {(cand.bundle, cand.file): PageRef("", 0)}))
            continue
        pages = home[2]
        if (cand.bundle, cand.file) not in pages:
            pages[(cand.bundle, cand.file)] = PageRef(cand.file, cand.line, cand.url, cand.bundle)
    return [
        replace(best, also=tuple(p for p in pages.values() if p.file)) for best, _, pages in groups
    ]


def one_per_subject(symbols: Sequence[Symbol], limit: int) -> list[Symbol]:
    """The best symbol of each endpoint, operation or type name (`find_assets` on a client page
    and `findAssets` in the spec are one operation), at most `limit`, and one symbol per place;
    headings, keys and commands are listed on each page, where each is a section of its own."""
    seen: set[tuple[str, str, str]] = set()
    places: set[tuple[str, str, int]] = set()
    out: list[Symbol] = []
    for symbol in symbols:
        place = (symbol.bundle, symbol.file, symbol.line)
        if place in places:
            continue  # the heading of the section an operation was just listed at
        places.add(place)
        if symbol.kind in _GROUPED_KINDS:
            key = (symbol.bundle, symbol.kind, compact(symbol.name))
            if key in seen:
                continue
            seen.add(key)
        out.append(symbol)
        if len(out) >= limit:
            break
    return out
