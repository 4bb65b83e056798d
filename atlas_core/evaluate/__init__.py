"""Retrieval quality on a golden set: MRR@10, Recall@5, Hit@1, nDCG@10 and latency, per mode and
per group, and the comparison of two runs. `atlas evaluate` is the front end.

golden (the golden file), metrics (one case's figures), runner (a set in every mode and its text
table), runs (a saved run), compare (two runs side by side), report (the HTML page).
"""

from __future__ import annotations

from atlas_core.evaluate.golden import GoldenCase, load_golden
from atlas_core.evaluate.metrics import METRICS, case_metrics, first_relevant_rank
from atlas_core.evaluate.runner import (
    CaseResult,
    ModeReport,
    evaluate,
    expand_modes,
    format_table,
    run_case,
    summarize,
    to_json,
)

__all__ = [
    "METRICS",
    "CaseResult",
    "GoldenCase",
    "ModeReport",
    "case_metrics",
    "evaluate",
    "expand_modes",
    "first_relevant_rank",
    "format_table",
    "load_golden",
    "run_case",
    "summarize",
    "to_json",
]
