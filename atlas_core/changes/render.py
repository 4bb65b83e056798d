"""A `BundleDiff` as text a person reads, and as JSON with stable keys (every kind and change is
always present, empty or not)."""

from __future__ import annotations

from typing import Any

from atlas_core.changes.compare import CHANGES, BundleDiff, Change
from atlas_core.changes.facts import KINDS, PLURALS, Side
from atlas_core.changes.sources import disagreement_line

MARKS = {"added": "+", "removed": "-", "changed": "~"}
SUMMARY_ITEMS = 30  # changes a summary lists (an agent is told to run `atlas diff` for more)


def side_json(side: Side) -> dict[str, Any]:
    return {
        "name": side.name,
        "path": side.path,
        "built_at": side.built_at,
        "format_version": side.format_version,
        "model": side.model,
        "dims": side.dims,
        "chunks": side.chunks,
    }


def change_json(c: Change) -> dict[str, Any]:
    return {"name": c.name, "details": list(c.details), "file": c.file}


def diff_json(diff: BundleDiff) -> dict[str, Any]:
    """The whole diff: both bundles, what could be compared, counts and every change."""
    listed = {
        PLURALS[kind]: {
            change: [change_json(c) for c in diff.of(kind, change)] for change in CHANGES
        }
        for kind in KINDS
    }
    return {
        "old": side_json(diff.old),
        "new": side_json(diff.new),
        "comparable": {
            "pages": True,
            "api": diff.api_compared,
            "vectors": diff.vectors_comparable,
        },
        "notes": list(diff.notes),
        "total": len(diff.changes),
        "counts": diff.counts(),
        "changes": listed,
        "disagreements": list(diff.disagreements),
    }


def summary_json(diff: BundleDiff) -> dict[str, Any]:
    """A bounded summary for an agent: the earlier bundle, counts per kind, and the first
    `SUMMARY_ITEMS` changes as one line each, the API's before the pages'."""
    order = [kind for kind in KINDS if kind != "page"] + ["page"]
    ranked = sorted(diff.changes, key=lambda c: order.index(c.kind))
    lines = [_cut(_change_line(c, with_kind=True)) for c in ranked[:SUMMARY_ITEMS]]
    out: dict[str, Any] = {
        "since": {key: side_json(diff.old)[key] for key in ("name", "built_at", "path")},
        "total": len(diff.changes),
        "counts": {plural: n for plural, n in diff.counts().items() if any(n.values())},
        "changes": lines,
    }
    if diff.notes:
        out["notes"] = list(diff.notes)
    if len(ranked) > len(lines):
        out["more"] = (
            f"{len(ranked) - len(lines)} more; `atlas diff {diff.old.path} {diff.new.path}` "
            "lists them all"
        )
    return out


def _cut(line: str, limit: int = 300) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _change_line(c: Change, *, with_kind: bool = False) -> str:
    details = f": {'; '.join(c.details)}" if c.details and c.kind != "page" else ""
    kind = f"{c.kind} " if with_kind else ""
    return f"{MARKS[c.change]} {kind}{c.name}{details}"


def diff_text(diff: BundleDiff, limit: int = 0) -> str:
    """Readable lines grouped by kind with counts; `limit` changes of each kind (0: all)."""
    lines = [
        f"old: {_side_line(diff.old)}",
        f"new: {_side_line(diff.new)}",
    ]
    lines += [f"note: {note}" for note in diff.notes]
    if diff.vectors_comparable:
        lines.append("same model and format: search results are comparable")
    if diff.disagreements:
        lines.append(f"sources disagree ({len(diff.disagreements)}), in the new bundle:")
        lines += [f"  {disagreement_line(d)}" for d in diff.disagreements]
    if not diff.changes:
        lines.append("no changes")
        return "\n".join(lines)
    for kind in KINDS:
        found = diff.of(kind)
        if not found:
            continue
        counts = ", ".join(
            f"{len(diff.of(kind, change))} {change}" for change in CHANGES if diff.of(kind, change)
        )
        lines.append("")
        lines.append(f"{PLURALS[kind]}: {counts}")
        shown = found if limit <= 0 else found[:limit]
        lines += [f"  {_change_line(c)}" for c in shown]
        if len(shown) < len(found):
            lines.append(f"  ... {len(found) - len(shown)} more (--limit 0 shows all)")
    lines.append("")
    lines.append(f"{len(diff.changes)} changes")
    return "\n".join(lines)


def _side_line(side: Side) -> str:
    built = f", built {side.built_at}" if side.built_at else ""
    return (
        f"{side.name} ({side.path}{built}; format {side.format_version}, model {side.model}, "
        f"{side.chunks} chunks)"
    )
