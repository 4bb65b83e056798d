"""Retrieval quality on a golden set: MRR@10, Recall@5, Hit@1, nDCG@10 and latency, per mode and
per group, and the comparison of two runs. `atlas evaluate` is the front end.

golden (the golden file), metrics (one case's figures), runner (a set in every mode and its text
table), runs (a saved run), compare (two runs side by side), report (the HTML page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports
from atlas_core.evaluate.golden import GoldenCase, load_golden, select_split
from atlas_core.evaluate.metrics import METRICS, case_metrics, first_relevant_rank
from atlas_core.evaluate.runner import (
    CaseResult,
    ModeReport,
    evaluate,
    expand_modes,
    format_table,
    primary_hit,
    run_case,
    summarize,
    to_json,
)

if TYPE_CHECKING:
    from atlas_core.evaluate.compare import (
        Comparison,
        compare_runs,
        format_comparison,
        metric_drops,
        pair_modes,
    )
    from atlas_core.evaluate.report import write_report
    from atlas_core.evaluate.runs import Run, load_run, parse_run, save_run

__all__ = [
    "METRICS",
    "CaseResult",
    "Comparison",
    "GoldenCase",
    "ModeReport",
    "Run",
    "case_metrics",
    "compare_runs",
    "evaluate",
    "expand_modes",
    "first_relevant_rank",
    "format_comparison",
    "format_table",
    "load_golden",
    "load_run",
    "metric_drops",
    "pair_modes",
    "parse_run",
    "primary_hit",
    "run_case",
    "save_run",
    "select_split",
    "summarize",
    "to_json",
    "write_report",
]

# Comparing runs and writing the HTML report load on first use: a plain evaluation needs neither.
_EXPORTS = {
    "Comparison": "compare",
    "compare_runs": "compare",
    "format_comparison": "compare",
    "metric_drops": "compare",
    "pair_modes": "compare",
    "write_report": "report",
    "Run": "runs",
    "load_run": "runs",
    "parse_run": "runs",
    "save_run": "runs",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
