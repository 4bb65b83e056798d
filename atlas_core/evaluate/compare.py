"""Two runs of `atlas evaluate` side by side, for `--compare`.

Cases are matched by id (the n-th case of an id in one run with the n-th in the other). Both runs'
figures are recomputed on the matched cases only, so a golden file that gained or lost cases still
compares like with like; groups are compared where both runs have them. A previous run saved
before per-case figures existed is taken at its own figures when it holds the very same cases, and
otherwise estimated case by case from the rank (and the notes say so). Cases whose first relevant
rank moved are listed, worst regression first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from atlas_core.errors import ConfigError
from atlas_core.evaluate.metrics import METRICS
from atlas_core.evaluate.runs import Run, RunCase

MAX_MOVERS = 25  # per mode and direction in the JSON and the report
MAX_MOVERS_SHOWN = 10  # per mode and direction in the terminal


@dataclass(frozen=True, slots=True)
class GroupDelta:
    """One row of the comparison: a group (or "all") with both runs' figures on its matched cases."""

    name: str
    count: int
    previous: Mapping[str, float]
    current: Mapping[str, float]

    def delta(self) -> dict[str, float]:
        return {m: round(self.current[m] - self.previous[m], 4) for m in METRICS}

    def as_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "previous": dict(self.previous),
            "current": dict(self.current),
            "delta": self.delta(),
        }


@dataclass(frozen=True, slots=True)
class Mover:
    """A matched case whose first relevant rank changed (None: not in the results)."""

    id: str
    group: str
    query: str
    before: int | None
    after: int | None
    changed: bool  # its query or expected files differ between the runs

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "group": self.group,
            "query": self.query,
            "before": self.before,
            "after": self.after,
        }
        if self.changed:
            out["changed"] = True
        return out


@dataclass(frozen=True, slots=True)
class ModeComparison:
    mode: str
    previous_mode: str
    overall: GroupDelta
    groups: tuple[GroupDelta, ...]
    better: tuple[Mover, ...]  # biggest gain first, at most MAX_MOVERS
    worse: tuple[Mover, ...]  # worst regression first, at most MAX_MOVERS
    better_total: int
    worse_total: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "previous_mode": self.previous_mode,
            **self.overall.as_dict(),
            "by_group": {g.name: g.as_dict() for g in self.groups},
            "worse": [m.as_dict() for m in self.worse],
            "better": [m.as_dict() for m in self.better],
            "worse_total": self.worse_total,
            "better_total": self.better_total,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    source: str
    previous_cases: int
    current_cases: int
    matched: int
    changed: int
    estimated: int
    groups_only_previous: tuple[str, ...]
    groups_only_current: tuple[str, ...]
    previous_top_k: int
    current_top_k: int
    modes: tuple[ModeComparison, ...]
    modes_not_compared: tuple[str, ...] = ()  # in one run only

    def notes(self) -> list[str]:
        """What a reader must know before trusting the deltas, as sentences."""
        only_previous = self.previous_cases - self.matched
        only_current = self.current_cases - self.matched
        notes = [
            f"{self.matched} cases in both runs (previous run {self.previous_cases}, "
            f"this run {self.current_cases}); figures are on those"
        ]
        if only_previous or only_current:
            notes.append(
                f"{only_previous} cases only in the previous run, "
                f"{only_current} only in this run (a different golden file?)"
            )
        if self.changed:
            notes.append(f"{self.changed} matched cases changed their query or expected files")
        if self.groups_only_previous:
            notes.append("groups only in the previous run: " + ", ".join(self.groups_only_previous))
        if self.groups_only_current:
            notes.append("groups only in this run: " + ", ".join(self.groups_only_current))
        if self.modes_not_compared:
            notes.append("not compared (in one run only): " + ", ".join(self.modes_not_compared))
        if self.previous_top_k != self.current_top_k:
            notes.append(
                f"previous run used top {self.previous_top_k}, this run top {self.current_top_k}"
            )
        if self.estimated:
            notes.append(
                f"{self.estimated} previous cases have no per-case figures (an older run); "
                "theirs are estimated from the first relevant rank"
            )
        return notes

    def as_dict(self) -> dict[str, Any]:
        return {
            "previous": self.source,
            "cases": {
                "previous": self.previous_cases,
                "current": self.current_cases,
                "matched": self.matched,
                "only_previous": self.previous_cases - self.matched,
                "only_current": self.current_cases - self.matched,
                "changed": self.changed,
                "estimated": self.estimated,
            },
            "groups_only_previous": list(self.groups_only_previous),
            "groups_only_current": list(self.groups_only_current),
            "top_k": {"previous": self.previous_top_k, "current": self.current_top_k},
            "modes": {m.mode: m.as_dict() for m in self.modes},
            "modes_not_compared": list(self.modes_not_compared),
        }


def pair_modes(previous: Sequence[str], current: Sequence[str]) -> list[tuple[str, str]]:
    """(current mode, previous mode) pairs: the modes both runs have; two single-mode runs of
    different modes are compared with each other (e.g. keyword then hybrid)."""
    common = [(mode, mode) for mode in current if mode in previous]
    if common:
        return common
    if len(previous) == 1 and len(current) == 1:
        return [(current[0], previous[0])]
    raise ConfigError(
        f"the previous run has modes {', '.join(previous)}, this one {', '.join(current)}: "
        "nothing to compare",
        hint="run with --mode all, or with a mode the previous run has",
    )


def compare_runs(previous: Run, current: Run) -> Comparison:
    pairs = pair_modes(list(previous.modes), list(current.modes))
    first_mode, first_previous = pairs[0]
    before_cases = previous.modes[first_previous]
    after_cases = current.modes[first_mode]
    before_keys = {(c.id, c.occurrence): c for c in before_cases}
    matched = [
        (before_keys[(c.id, c.occurrence)], c)
        for c in after_cases
        if (c.id, c.occurrence) in before_keys
    ]
    estimated = sum(1 for b, _ in matched if b.estimated)
    # an older run without per-case figures, over the very same cases: its own figures are exact
    same_cases = len(matched) == len(before_cases) == len(after_cases) and all(
        not _changed(b, a) and b.group == a.group for b, a in matched
    )
    stored = {
        mode: previous.figures.get(prev_mode, {}) if estimated and same_cases else {}
        for mode, prev_mode in pairs
    }
    if estimated and all("all" in figures for figures in stored.values()):
        estimated = 0
    before_groups = list(dict.fromkeys(c.group for c in before_cases))
    after_groups = list(dict.fromkeys(c.group for c in after_cases))
    return Comparison(
        source=previous.source,
        previous_cases=len(before_cases),
        current_cases=len(after_cases),
        matched=len(matched),
        changed=sum(1 for b, a in matched if _changed(b, a)),
        estimated=estimated,
        groups_only_previous=tuple(g for g in before_groups if g not in after_groups),
        groups_only_current=tuple(g for g in after_groups if g not in before_groups),
        previous_top_k=previous.top_k[first_previous],
        current_top_k=current.top_k[first_mode],
        modes=tuple(
            _compare_mode(
                mode, prev_mode, previous.modes[prev_mode], current.modes[mode], stored[mode]
            )
            for mode, prev_mode in pairs
        ),
        modes_not_compared=tuple(
            [m for m in current.modes if m not in {c for c, _ in pairs}]
            + [m for m in previous.modes if m not in {p for _, p in pairs}]
        ),
    )


def metric_drops(comparison: Comparison, tolerance: float) -> list[str]:
    """Every metric that fell by more than `tolerance` over a mode's matched cases, one line each
    ("hybrid mrr@10 0.812 -> 0.700 (-0.112)"): the release gate refuses a bundle that has any."""
    if comparison.matched == 0:
        raise ConfigError(
            f"no case of this run is in {comparison.source}, so no drop can be measured",
            hint="compare against a run of the same golden file",
        )
    lines = []
    for mode in comparison.modes:
        delta = mode.overall.delta()
        for metric in METRICS:
            if delta[metric] < -tolerance:
                lines.append(
                    f"{mode.mode} {metric} {mode.overall.previous[metric]:.3f} -> "
                    f"{mode.overall.current[metric]:.3f} ({delta[metric]:+.3f})"
                )
    return lines


def _changed(before: RunCase, after: RunCase) -> bool:
    return before.query != after.query or set(before.expected) != set(after.expected)


def _mean(cases: Sequence[RunCase]) -> dict[str, float]:
    if not cases:
        return dict.fromkeys(METRICS, 0.0)
    return {m: round(sum(c.metrics[m] for c in cases) / len(cases), 4) for m in METRICS}


def _compare_mode(
    mode: str,
    previous_mode: str,
    before: Sequence[RunCase],
    after: Sequence[RunCase],
    stored: Mapping[str, Mapping[str, float]],
) -> ModeComparison:
    """`stored`: the previous run's own figures ("all" and per group) where they stand for
    exactly the matched cases; otherwise they are recomputed from its cases."""
    before_keys = {(c.id, c.occurrence): c for c in before}
    pairs = [
        (before_keys[(c.id, c.occurrence)], c) for c in after if (c.id, c.occurrence) in before_keys
    ]
    overall = GroupDelta(
        "all",
        len(pairs),
        stored.get("all") or _mean([b for b, _ in pairs]),
        _mean([a for _, a in pairs]),
    )
    both = {c.group for c in before} & {c.group for c in after}
    groups: list[GroupDelta] = []
    for name in dict.fromkeys(a.group for _, a in pairs):
        # a case that moved to another group counts in "all" only
        members = [(b, a) for b, a in pairs if a.group == name and b.group == name]
        if name in both and members:
            groups.append(
                GroupDelta(
                    name,
                    len(members),
                    stored.get(name) or _mean([b for b, _ in members]),
                    _mean([a for _, a in members]),
                )
            )
    better: list[tuple[float, Mover]] = []
    worse: list[tuple[float, Mover]] = []
    for b, a in pairs:
        if b.rank == a.rank:
            continue
        mover = Mover(a.id, a.group, a.query, b.rank, a.rank, _changed(b, a))
        gain = _reciprocal(a.rank) - _reciprocal(b.rank)
        if _rank_key(a.rank) < _rank_key(b.rank):
            better.append((gain, mover))
        else:
            worse.append((gain, mover))
    # worst regression first: the largest loss of reciprocal rank (1 -> 2 outweighs 8 -> 20)
    worse.sort(key=lambda item: (item[0], item[1].id))
    better.sort(key=lambda item: (-item[0], item[1].id))
    return ModeComparison(
        mode=mode,
        previous_mode=previous_mode,
        overall=overall,
        groups=tuple(groups),
        better=tuple(m for _, m in better[:MAX_MOVERS]),
        worse=tuple(m for _, m in worse[:MAX_MOVERS]),
        better_total=len(better),
        worse_total=len(worse),
    )


def _reciprocal(rank: int | None) -> float:
    return 1.0 / rank if rank else 0.0


def _rank_key(rank: int | None) -> float:
    return float(rank) if rank else math.inf


def _cell(value: float, delta: float) -> str:
    return f"{value:.3f} {delta:+.3f}"


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def format_comparison(comparison: Comparison) -> str:
    """Each metric with its delta against the previous run, per mode and per group, then the
    cases whose rank moved."""
    lines = [f"compared with {comparison.source}:"]
    lines += [f"  {note}" for note in comparison.notes()]
    lines.append("")
    heads = " ".join(f"{m:>14}" for m in METRICS)
    lines.append(f"{'mode':<18} {'cases':>5} {heads}")
    for mode in comparison.modes:
        label = (
            mode.mode if mode.mode == mode.previous_mode else f"{mode.previous_mode}->{mode.mode}"
        )
        delta = mode.overall.delta()
        cells = " ".join(f"{_cell(mode.overall.current[m], delta[m]):>14}" for m in METRICS)
        lines.append(f"{label:<18} {mode.overall.count:>5} {cells}")
    if any(len(mode.groups) > 1 for mode in comparison.modes):
        lines.append("")
        lines.append(f"{'group':<16} {'mode':<8} {'cases':>5} {heads}")
        names = dict.fromkeys(g.name for mode in comparison.modes for g in mode.groups)
        for name in names:
            for mode in comparison.modes:
                row = next((g for g in mode.groups if g.name == name), None)
                if row is None:
                    continue
                delta = row.delta()
                cells = " ".join(f"{_cell(row.current[m], delta[m]):>14}" for m in METRICS)
                lines.append(f"{name[:16]:<16} {mode.mode:<8} {row.count:>5} {cells}")
    for mode in comparison.modes:
        if not mode.worse_total and not mode.better_total:
            continue
        lines.append("")
        lines.append(
            f"rank of the first relevant file, {mode.mode}: {mode.worse_total} worse, "
            f"{mode.better_total} better (previous -> now)"
        )
        for word, movers, total in (
            ("worse", mode.worse, mode.worse_total),
            ("better", mode.better, mode.better_total),
        ):
            for mover in movers[:MAX_MOVERS_SHOWN]:
                moved = f"{_rank(mover.before)} -> {_rank(mover.after)}"
                edited = " (case edited)" if mover.changed else ""
                lines.append(
                    f"  {word:<6} {mover.id[:26]:<26} {moved:>9}  {mover.query[:56]}{edited}"
                )
            if total > MAX_MOVERS_SHOWN:
                lines.append(
                    f"  ... and {total - MAX_MOVERS_SHOWN} more {word} "
                    f"(--json and --report list up to {MAX_MOVERS})"
                )
    return "\n".join(lines)
