"""Running a golden set: every case in every mode, the figures per mode and per group, the table.

Query cases run through `Engine.search` in each mode; identifier cases run through `Engine.lookup`
(the same in every mode) and are judged the same way on the candidates' files.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from atlas_core.errors import QueryError
from atlas_core.evaluate.golden import GoldenCase
from atlas_core.evaluate.metrics import METRICS, case_metrics, first_relevant_rank
from atlas_core.types import SEARCH_MODES

SPLIT_ORDER: tuple[str, ...] = ("train", "dev", "test")


@dataclass(slots=True)
class CaseResult:
    case: GoldenCase
    files: list[str]  # result files, in rank order (repeats kept: rank = position + 1)
    latency_ms: float
    rank: int | None = None  # rank of the first relevant file within the results
    error: str = ""


@dataclass(slots=True)
class ModeReport:
    mode: str
    top_k: int
    results: list[CaseResult] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        return summarize(self.results)

    def by_group(self) -> dict[str, dict[str, float]]:
        """The metrics of each group of cases (identifier class or question category), with
        each group's case count; groups in order of first appearance."""
        groups: dict[str, list[CaseResult]] = {}
        for result in self.results:
            groups.setdefault(result.case.group or result.case.kind, []).append(result)
        return {
            name: {**summarize(results), "count": len(results)} for name, results in groups.items()
        }

    def by_split(self) -> dict[str, dict[str, float]]:
        """The metrics of each frozen split (train, dev, test first, then any other name), with
        each split's case count; empty when no case names a split."""
        splits: dict[str, list[CaseResult]] = {}
        for result in self.results:
            if result.case.split:
                splits.setdefault(result.case.split, []).append(result)
        order = sorted(splits, key=lambda s: (SPLIT_ORDER.index(s) if s in SPLIT_ORDER else 3, s))
        return {name: {**summarize(splits[name]), "count": len(splits[name])} for name in order}

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.metrics())
        out["top_k"] = self.top_k
        out["count"] = len(self.results)
        out["by_group"] = self.by_group()
        by_split = self.by_split()
        if by_split:
            out["by_split"] = by_split
        out["cases"] = [
            {
                "id": r.case.id,
                "kind": r.case.kind,
                "group": r.case.group or r.case.kind,
                "query": r.case.text,
                "expected": list(r.case.expected),
                "rank": r.rank,
                "latency_ms": round(r.latency_ms, 3),
                "top_files": _distinct(r.files)[:3],
                **({"split": r.case.split} if r.case.split else {}),
                **(
                    {"primary": r.case.primary, "primary_hit": primary_hit(r)}
                    if r.case.primary
                    else {}
                ),
                # per-case figures let `--compare` recompute a saved run on any subset of cases
                "metrics": {
                    k: round(v, 6) for k, v in case_metrics(r.files, r.case.expected).items()
                },
                **({"error": r.error} if r.error else {}),
            }
            for r in self.results
        ]
        return out


def _distinct(files: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(files))


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def primary_hit(result: CaseResult) -> bool:
    """Whether the first result is the case's primary page (hover's page), not merely a page
    that also defines the name."""
    return bool(result.case.primary) and result.files[:1] == [result.case.primary]


def summarize(results: Sequence[CaseResult]) -> dict[str, float]:
    """The mean metrics and latency percentiles; with "primary@1" and "primary_cases" when some
    cases name a primary page (the rate is over those cases only)."""
    if not results:
        return {**dict.fromkeys(METRICS, 0.0), "p50_ms": 0.0, "p95_ms": 0.0}
    totals = dict.fromkeys(METRICS, 0.0)
    for result in results:
        for key, value in case_metrics(result.files, result.case.expected).items():
            totals[key] += value
    out = {key: round(value / len(results), 4) for key, value in totals.items()}
    latencies = [r.latency_ms for r in results]
    out["p50_ms"] = round(_percentile(latencies, 0.50), 3)
    out["p95_ms"] = round(_percentile(latencies, 0.95), 3)
    judged = [r for r in results if r.case.primary]
    if judged:
        out["primary@1"] = round(sum(primary_hit(r) for r in judged) / len(judged), 4)
        out["primary_cases"] = len(judged)
    return out


def expand_modes(mode: str) -> list[str]:
    if mode == "all":
        return list(SEARCH_MODES)
    if mode not in SEARCH_MODES:
        raise QueryError(
            f"unknown mode {mode!r}", hint=f"use one of: {', '.join(SEARCH_MODES)}, all"
        )
    return [mode]


def run_case(engine: Any, case: GoldenCase, mode: str, top_k: int) -> CaseResult:
    started = time.perf_counter()
    error = ""
    try:
        if case.kind == "identifier":
            files = [c.file for c in engine.lookup(case.text, limit=top_k)]
        else:
            files = [h.file for h in engine.search(case.text, mode=mode, top_k=top_k)]
    except QueryError as exc:
        files, error = [], exc.one_line()
    latency = (time.perf_counter() - started) * 1000
    return CaseResult(case, files, latency, first_relevant_rank(files, case.expected), error=error)


def evaluate(
    engine: Any, cases: Sequence[GoldenCase], modes: Sequence[str], top_k: int = 10
) -> dict[str, ModeReport]:
    """Run every case in every mode. The first query of a mode is run once untimed first, so the
    embedding model's load is not counted as a query's latency."""
    reports: dict[str, ModeReport] = {}
    for mode in modes:
        warm = next((c for c in cases if c.kind == "query"), None)
        if warm is not None:
            run_case(engine, warm, mode, top_k)
        report = ModeReport(mode, top_k)
        for case in cases:
            report.results.append(run_case(engine, case, mode, top_k))
        reports[mode] = report
    return reports


def to_json(reports: dict[str, ModeReport]) -> dict[str, Any]:
    return {mode: report.as_dict() for mode, report in reports.items()}


def format_table(reports: dict[str, ModeReport]) -> str:
    """A compact text table: one row per mode, then the cases no mode found."""
    header = f"{'mode':<8} " + " ".join(f"{m:>9}" for m in (*METRICS, "p50_ms", "p95_ms"))
    lines = [header]
    for mode, report in reports.items():
        metrics = report.metrics()
        cells = " ".join(f"{metrics[m]:>9.3f}" for m in (*METRICS, "p50_ms", "p95_ms"))
        lines.append(f"{mode:<8} {cells}")
    groups = {g for report in reports.values() for g in report.by_group()}
    if len(groups) > 1:
        lines.append("")
        lines.append(
            f"{'group':<16} {'mode':<8} {'cases':>5} " + " ".join(f"{m:>9}" for m in METRICS)
        )
        first = next(iter(reports.values()))
        for group in first.by_group():
            for mode, report in reports.items():
                row = report.by_group().get(group)
                if row is None:
                    continue
                cells = " ".join(f"{row[m]:>9.3f}" for m in METRICS)
                lines.append(f"{group:<16} {mode:<8} {int(row['count']):>5} {cells}")
    lines += _split_lines(reports)
    missed: dict[str, list[str]] = {}
    for mode, report in reports.items():
        for result in report.results:
            if result.rank is None:
                missed.setdefault(result.case.id, []).append(mode)
    if missed:
        lines.append("")
        lines.append(f"not found in the top {next(iter(reports.values())).top_k}:")
        by_id = {r.case.id: r.case for rep in reports.values() for r in rep.results}
        for case_id, modes in list(missed.items())[:40]:
            case = by_id[case_id]
            lines.append(f"  {case_id:<14} [{','.join(modes)}] {case.text[:70]}")
        if len(missed) > 40:
            lines.append(f"  ... and {len(missed) - 40} more (use --json for every case)")
    return "\n".join(lines)


def _split_lines(reports: dict[str, ModeReport]) -> list[str]:
    """Each mode's figures over all cases and per split, with primary@1 where cases name a
    primary page; nothing when no case names a split or a primary."""
    first = next(iter(reports.values()), None)
    if first is None:
        return []
    splits = first.by_split()
    with_primary = "primary@1" in first.metrics()
    if not splits and not with_primary:
        return []
    names = (*METRICS, "primary@1") if with_primary else METRICS
    lines = ["", f"{'split':<16} {'mode':<8} {'cases':>5} " + " ".join(f"{m:>9}" for m in names)]
    for mode, report in reports.items():
        rows = {"all": {**report.metrics(), "count": len(report.results)}, **report.by_split()}
        for split, row in rows.items():
            cells = " ".join(f"{row[m]:>9.3f}" if m in row else f"{'-':>9}" for m in names)
            lines.append(f"{split:<16} {mode:<8} {int(row['count']):>5} {cells}")
    return lines
