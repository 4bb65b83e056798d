"""`atlas evaluate` by frozen split: each metric per split beside the overall, `--split NAME`, and
primary@1 (the first result is the page hover should show, not merely a page defining the name)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.errors import ConfigError
from atlas_core.evaluate import evaluate, format_table, load_golden, select_split, to_json
from atlas_core.evaluate.report import render_report

ROOT = Path(__file__).resolve().parents[2]
WIDGETS = "rest-core/widgets-api.md"
AUTH = "guides/authentication.md"

GOLDEN = [
    {"id": "t1", "split": "test", "class": "operation", "identifier": "findWidgets",
     "expected_files": [WIDGETS, AUTH], "primary": WIDGETS},
    {"id": "t2", "split": "test", "class": "operation", "identifier": "findWidgets",
     "expected_files": [WIDGETS, AUTH], "primary": AUTH},
    {"id": "d1", "split": "dev", "class": "path", "identifier": "/rest/2.0/nowhere/at/all",
     "expected_files": [WIDGETS]},
    {"id": "r1", "split": "train", "query": "bearer token in a python script",
     "expected_files": [AUTH]},
]  # fmt: skip


def write(path: Path, lines: Sequence[object]) -> Path:
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_each_metric_per_split_beside_the_overall(tmp_path: Path, tiny: Path) -> None:
    cases = load_golden(write(tmp_path / "g.jsonl", GOLDEN))
    assert [(c.split, c.primary) for c in cases][:2] == [("test", WIDGETS), ("test", AUTH)]
    with Engine.open(tiny) as engine:
        report = evaluate(engine, cases, ["keyword"], top_k=5)["keyword"]
    splits = report.by_split()
    assert list(splits) == ["train", "dev", "test"]
    assert splits["test"]["count"] == 2 and splits["test"]["hit@1"] == 1.0
    assert splits["dev"]["hit@1"] == 0.0 and splits["train"]["hit@1"] == 1.0
    # both test cases find a defining page first; only the one whose primary it is counts
    assert splits["test"]["primary@1"] == pytest.approx(0.5)
    assert splits["test"]["primary_cases"] == 2 and "primary@1" not in splits["dev"]
    assert report.metrics()["primary@1"] == pytest.approx(0.5)
    data = to_json({"keyword": report})["keyword"]
    assert data["by_split"]["test"]["primary@1"] == pytest.approx(0.5)
    assert [c.get("primary_hit") for c in data["cases"]] == [True, False, None, None]
    assert [c.get("split") for c in data["cases"]] == ["test", "test", "dev", "train"]
    table = format_table({"keyword": report})
    assert "primary@1" in table
    assert any(line.startswith("test ") and "0.500" in line for line in table.splitlines())
    html = render_report({"keyword": report})
    assert "Per split" in html and "primary@1" in html


def test_a_set_without_splits_reports_as_before(tmp_path: Path, tiny: Path) -> None:
    plain = [{k: v for k, v in c.items() if k not in {"split", "primary"}} for c in GOLDEN]
    cases = load_golden(write(tmp_path / "g.jsonl", plain))
    with Engine.open(tiny) as engine:
        report = evaluate(engine, cases, ["keyword"], top_k=5)["keyword"]
    assert report.by_split() == {} and "by_split" not in to_json({"keyword": report})["keyword"]
    assert "primary@1" not in report.metrics() and "split" not in format_table({"k": report})


def test_select_split_and_bad_split_lines(tmp_path: Path) -> None:
    cases = load_golden(write(tmp_path / "g.jsonl", GOLDEN))
    assert [c.id for c in select_split(cases, "test")] == ["t1", "t2"]
    with pytest.raises(ConfigError, match="split 'holdout'") as caught:
        select_split(cases, "holdout")
    assert caught.value.hint == "its splits: dev, test, train"
    for bad, message in (
        ({"split": "Test Set!"}, '"split" must be'),
        ({"split": 3}, '"split" must be'),
        ({"primary": "elsewhere.md"}, '"primary" must be one of'),
    ):
        line = {"identifier": "findWidgets", "expected_files": [WIDGETS], **bad}
        with pytest.raises(ConfigError, match=message) as caught:
            load_golden(write(tmp_path / "bad.jsonl", [line]))
        assert "bad.jsonl:1" in str(caught.value)


def run_atlas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_cli_split_flag_evaluates_only_that_split(tmp_path: Path, tiny: Path) -> None:
    golden = str(write(tmp_path / "g.jsonl", GOLDEN))
    common = ("evaluate", "--bundle", str(tiny), "--golden", golden, "--mode", "keyword")
    out = run_atlas(*common, "--split", "test", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["keyword"]
    assert data["count"] == 2 and list(data["by_split"]) == ["test"]
    assert data["primary@1"] == pytest.approx(0.5)
    every = json.loads(run_atlas(*common, "--json").stdout)["keyword"]
    assert every["count"] == 4 and list(every["by_split"]) == ["train", "dev", "test"]
    bad = run_atlas(*common, "--split", "holdout")
    assert bad.returncode == 2 and "split 'holdout'" in bad.stderr and "Traceback" not in bad.stderr
