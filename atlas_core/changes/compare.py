"""Two bundles' facts compared: what was added, removed and changed, kind by kind, and what could
not be compared (another model, another format, an unreadable identifier table)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from atlas_core.changes.facts import KINDS, PLURALS, BundleFacts, Item, Side, read_facts
from atlas_core.changes.sources import source_disagreements

CHANGES = ("added", "removed", "changed")


@dataclass(frozen=True, slots=True)
class Change:
    kind: str  # one of `facts.KINDS`
    change: str  # "added" | "removed" | "changed"
    name: str  # "GET /pots", "GET /pots nameMatchMode (query)", "Pot.status", a page's path
    details: tuple[str, ...] = ()  # what changed: "type: string -> integer", "enum: +ALL -EXACT"
    file: str = ""  # the page that documents it (the new one's, for a removal the old one's)


@dataclass(frozen=True, slots=True)
class BundleDiff:
    old: Side
    new: Side
    changes: tuple[Change, ...]  # by kind (in `KINDS` order), then change, then name
    api_compared: bool  # the identifier tables were read: endpoints ... deprecations are compared
    vectors_comparable: bool  # same model and format: search scores mean the same in both
    notes: tuple[str, ...]  # what could not be compared, and why
    # Where the new bundle's docs pages and spec files define an operation differently
    # (`sources.source_disagreements`); empty for bundles built before they were recorded.
    disagreements: tuple[dict[str, str], ...] = ()

    def of(self, kind: str, change: str | None = None) -> list[Change]:
        return [c for c in self.changes if c.kind == kind and change in (None, c.change)]

    def counts(self) -> dict[str, dict[str, int]]:
        """kind (plural) -> change -> how many; every kind and change present, zeros too."""
        counts: dict[str, dict[str, int]] = {
            PLURALS[kind]: {change: 0 for change in CHANGES} for kind in KINDS
        }
        for c in self.changes:
            counts[PLURALS[c.kind]][c.change] += 1
        return counts


def diff_bundles(old: Path, new: Path) -> BundleDiff:
    """Compare the bundles at `old` and `new`; BundleError when either is not a bundle."""
    found = compare(read_facts(old), read_facts(new))
    return replace(found, disagreements=tuple(source_disagreements(new)))


def compare(old: BundleFacts, new: BundleFacts) -> BundleDiff:
    changes = _page_changes(old.pages, new.pages)
    api_compared = not old.table_problem and not new.table_problem
    if api_compared:
        for kind in KINDS[1:]:
            changes += _item_changes(old.items.get(kind, {}), new.items.get(kind, {}))
    notes, vectors = _comparability(old, new)
    order = {kind: i for i, kind in enumerate(KINDS)}
    changes.sort(key=lambda c: (order[c.kind], CHANGES.index(c.change), c.name.lower(), c.name))
    return BundleDiff(old.side, new.side, tuple(changes), api_compared, vectors, tuple(notes))


def _page_changes(old: Mapping[str, str], new: Mapping[str, str]) -> list[Change]:
    out = [Change("page", "added", rel, file=rel) for rel in new.keys() - old.keys()]
    out += [Change("page", "removed", rel, file=rel) for rel in old.keys() - new.keys()]
    out += [
        Change("page", "changed", rel, ("content",), rel)
        for rel in old.keys() & new.keys()
        if old[rel] != new[rel]
    ]
    return out


def _item_changes(old: Mapping[str, Item], new: Mapping[str, Item]) -> list[Change]:
    out = [Change(item.kind, "added", name, file=item.file) for name, item in new.items()
           if name not in old]  # fmt: skip
    out += [Change(item.kind, "removed", name, file=item.file) for name, item in old.items()
            if name not in new]  # fmt: skip
    for name in old.keys() & new.keys():
        details = _fact_changes(old[name].facts, new[name].facts)
        if details:
            out.append(Change(new[name].kind, "changed", name, details, new[name].file))
    return out


def _fact_changes(
    old: Mapping[str, str | tuple[str, ...]], new: Mapping[str, str | tuple[str, ...]]
) -> tuple[str, ...]:
    out: list[str] = []
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key, ""), new.get(key, "")
        if before == after:
            continue
        if isinstance(before, tuple) or isinstance(after, tuple):
            was, now = set(_values(before)), set(_values(after))
            added = [f"+{v}" for v in _values(after) if v not in was]
            removed = [f"-{v}" for v in _values(before) if v not in now]
            out.append(f"{key}: {' '.join(added + removed) or 'reordered'}")
        else:
            out.append(f"{key}: {_shown(before)} -> {_shown(after)}")
    return tuple(out)


def _values(value: str | tuple[str, ...]) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else ((value,) if value else ())


def _shown(value: str, limit: int = 60) -> str:
    text = " ".join(value.split())
    if not text:
        return "(none)"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _comparability(old: BundleFacts, new: BundleFacts) -> tuple[list[str], bool]:
    """Notes on what cannot be compared, and whether vector-level results can be."""
    notes: list[str] = []
    a, b = old.side, new.side
    same_model = (a.model, a.dims, dict(a.model_files)) == (b.model, b.dims, dict(b.model_files))
    same_format = a.format_version.split(".")[0] == b.format_version.split(".")[0]
    if not same_model:
        notes.append(
            f"the bundles were built with different models ({a.model}, {a.dims} dims vs "
            f"{b.model}, {b.dims} dims): pages and the API are compared; vectors and search "
            "scores are not comparable"
        )
    if not same_format:
        notes.append(
            f"the bundles have different format versions ({a.format_version} vs "
            f"{b.format_version}): pages and the API are compared where both can be read; "
            "vectors and indexes are not comparable"
        )
    for side, facts in (("old", old), ("new", new)):
        if facts.table_problem:
            notes.append(
                f"the {side} bundle's identifier table was not read ({facts.table_problem}): "
                "only pages are compared, not endpoints, parameters, schemas or deprecations"
            )
    return notes, same_model and same_format
