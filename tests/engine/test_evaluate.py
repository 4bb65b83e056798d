"""The evaluator: per-file judging, the four metrics on a hand-checked set, golden-file errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.errors import ConfigError
from atlas_core.evaluate import (
    case_metrics,
    evaluate,
    first_relevant_rank,
    format_table,
    load_golden,
    summarize,
    to_json,
)
from atlas_core.evaluate.report import render_report

ROOT = Path(__file__).resolve().parents[2]


def test_a_file_ranks_where_its_best_chunk_ranks() -> None:
    files = ["a.md", "b.md", "a.md", "c.md"]
    m = case_metrics(files, ["c.md", "b.md"])
    assert m["mrr@10"] == pytest.approx(1 / 2)
    assert m["recall@5"] == pytest.approx(1.0)
    assert m["hit@1"] == 0.0
    ideal = 1 + 1 / math.log2(3)
    assert m["ndcg@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    # the same relevant file twice counts once
    assert case_metrics(["x", "x", "x"], ["x"]) == {
        "mrr@10": 1.0,
        "recall@5": 1.0,
        "hit@1": 1.0,
        "ndcg@10": 1.0,
    }
    assert case_metrics(["a"] * 5 + ["hit"], ["hit", "other"])["recall@5"] == 0.0
    assert first_relevant_rank(files, ["c.md"]) == 4
    assert first_relevant_rank(files, ["zzz"]) is None


def write_golden(path: Path, lines: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines) + "\n")
    return path


GOLDEN = [
    {
        "id": "auth",
        "query": "bearer token in a python script",
        "expected_files": ["guides/authentication.md"],
    },
    {
        "id": "find",
        "query": "findWidgets",
        "expected_files": ["rest-core/widgets-api.md"],
        "note": "ignored",
    },
    {"id": "never", "query": "zzzz qqqq", "expected_files": ["guides/troubleshooting.md"]},
    {"identifier": "GET /widgets/{widgetId}", "expected_file": "rest-core/widgets-api.md"},
    "# a comment line",
    "",
]


def test_evaluate_on_a_hand_checked_golden_set(tmp_path: Path, tiny: Path) -> None:
    cases = load_golden(write_golden(tmp_path / "g.jsonl", GOLDEN))
    assert [c.kind for c in cases] == ["query", "query", "query", "identifier"]
    assert cases[3].id == "line4" and cases[3].expected == ("rest-core/widgets-api.md",)
    with Engine.open(tiny) as engine:
        reports = evaluate(engine, cases, ["keyword", "hybrid"], top_k=5)
    keyword = reports["keyword"]
    ranks = {r.case.id: r.rank for r in keyword.results}
    assert ranks == {"auth": 1, "find": 1, "never": None, "line4": 1}
    metrics = keyword.metrics()
    assert metrics["mrr@10"] == pytest.approx(0.75)
    assert metrics["hit@1"] == pytest.approx(0.75)
    assert metrics["recall@5"] == pytest.approx(0.75)
    assert metrics["ndcg@10"] == pytest.approx(0.75)
    assert metrics["p95_ms"] >= metrics["p50_ms"] >= 0
    data = to_json(reports)
    assert set(data) == {"keyword", "hybrid"}
    for mode in data.values():
        assert {"mrr@10", "recall@5", "hit@1", "ndcg@10", "p50_ms", "p95_ms", "cases"} <= set(mode)
        assert len(mode["cases"]) == 4
    assert data["keyword"]["cases"][2]["rank"] is None

    page = render_report(reports, bundle=str(tiny), golden="g.jsonl")
    assert page.count("<svg") == 6 and "<script" not in page and "src=" not in page
    assert "<link" not in page and "zzzz qqqq" in page


def test_summary_of_nothing() -> None:
    assert summarize([])["mrr@10"] == 0.0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"id": "x"}', '"query" or "identifier"'),
        ('{"query": "q", "expected_files": []}', "at least one file"),
        ('{"identifier": "x"}', "at least one file"),
    ],
)
def test_bad_golden_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "ok", "expected_files": ["a.md"]}\n' + line + "\n")
    with pytest.raises(ConfigError, match=message) as info:
        load_golden(path)
    assert f"{path}:2" in str(info.value)


def test_missing_and_empty_golden_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_golden(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(ConfigError, match="no cases"):
        load_golden(tmp_path / "empty.jsonl")


def run_atlas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_cli_json_and_report(tmp_path: Path, tiny: Path) -> None:
    golden = write_golden(tmp_path / "g.jsonl", GOLDEN)
    report = tmp_path / "report.html"
    out = run_atlas(
        "evaluate",
        "--bundle",
        str(tiny),
        "--golden",
        str(golden),
        "--mode",
        "all",
        "--json",
        "--report",
        str(report),
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"hybrid", "vector", "keyword"}
    for values in data.values():
        assert {"mrr@10", "recall@5", "hit@1", "ndcg@10", "p50_ms", "p95_ms", "cases"} <= set(
            values
        )
        assert 0.0 <= values["mrr@10"] <= 1.0
    assert data["keyword"]["mrr@10"] == pytest.approx(0.75)
    html = report.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 6

    table = run_atlas(
        "evaluate", "--bundle", str(tiny), "--golden", str(golden), "--mode", "keyword"
    )
    assert table.returncode == 0 and "mrr@10" in table.stdout and "never" in table.stdout

    bad = run_atlas("evaluate", "--bundle", str(tiny), "--golden", str(tmp_path / "none.jsonl"))
    assert bad.returncode == 2 and "atlas: error: golden file" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_cases_are_reported_by_class_and_category(tmp_path: Path, tiny: Path) -> None:
    golden = [
        {"id": "p1", "class": "path", "identifier": "GET /widgets/{widgetId}",
         "expected_files": ["rest-core/widgets-api.md"]},
        {"id": "p2", "class": "path", "identifier": "/rest/2.0/nowhere/at/all",
         "expected_files": ["rest-core/widgets-api.md"]},
        {"id": "o1", "class": "operation", "identifier": "findWidgets",
         "expected_files": ["rest-core/widgets-api.md"]},
        {"id": "q1", "category": "how-to", "query": "bearer token in a python script",
         "expected_files": ["guides/authentication.md"]},
    ]  # fmt: skip
    cases = load_golden(write_golden(tmp_path / "g.jsonl", golden))
    assert [c.group for c in cases] == ["path", "path", "operation", "how-to"]
    with Engine.open(tiny) as engine:
        report = evaluate(engine, cases, ["keyword"], top_k=5)["keyword"]
    groups = report.by_group()
    assert list(groups) == ["path", "operation", "how-to"]
    assert groups["path"]["count"] == 2 and groups["path"]["hit@1"] == pytest.approx(0.5)
    assert groups["operation"]["hit@1"] == 1.0
    assert to_json({"keyword": report})["keyword"]["by_group"]["path"]["count"] == 2
    table = format_table({"keyword": report})
    assert "operation" in table and "how-to" in table
