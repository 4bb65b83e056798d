"""`atlas evaluate --save` / `--compare`: deltas per mode and group, rank movers, the HTML
comparison, and one readable line for every bad compare file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from atlas_core.errors import ConfigError
from atlas_core.evaluate import METRICS
from atlas_core.evaluate.compare import MAX_MOVERS, compare_runs, format_comparison
from atlas_core.evaluate.runs import load_run, parse_run
from atlas_ls.cli import main

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = '<script>alert("x")</script>'
GOLDEN: list[dict[str, Any]] = [
    {"id": "auth", "category": "howto", "query": "bearer token in a python script",
     "expected_files": ["guides/authentication.md"]},
    {"id": "find", "category": "natural", "query": "findWidgets",
     "expected_files": ["rest-core/widgets-api.md"]},
    {"id": "never", "category": "natural", "query": "zzzz qqqq",
     "expected_files": ["guides/troubleshooting.md"]},
    {"id": HOSTILE, "category": "<b>odd & bold</b>", "query": f"widgets {HOSTILE}",
     "expected_files": ["rest-core/widgets-api.md"]},
    {"id": "gone", "category": "natural", "query": "add a widget",
     "expected_files": ["rest-core/widgets-api.md"]},
    {"id": "path", "category": "identifier", "identifier": "GET /widgets/{widgetId}",
     "expected_file": "rest-core/widgets-api.md"},
]  # fmt: skip


def write_golden(path: Path, cases: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def atlas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args], capture_output=True, text=True, cwd=ROOT
    )


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory, tiny: Path) -> tuple[Path, dict[str, Any]]:
    """A keyword run of GOLDEN, saved with --save while --json printed the same object."""
    where = tmp_path_factory.mktemp("runs")
    golden = write_golden(where / "golden.jsonl", GOLDEN)
    run = where / "previous.json"
    out = atlas("evaluate", "--bundle", str(tiny), "--golden", str(golden), "--mode", "keyword",
                "--json", "--save", str(run))  # fmt: skip
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert json.loads(run.read_text(encoding="utf-8")) == printed
    return run, printed


def edited_golden(path: Path) -> Path:
    """GOLDEN with "auth" judged against another file, "gone" dropped and one case added."""
    cases = [dict(c) for c in GOLDEN if c["id"] != "gone"]
    cases[0]["expected_files"] = ["rest-core/widgets-api.md"]
    cases.append({"id": "new", "category": "natural", "query": "widgets",
                  "expected_files": ["rest-core/widgets-api.md"]})  # fmt: skip
    return write_golden(path, cases)


def test_compare_an_edited_golden_file_in_all_modes(
    tmp_path: Path, tiny: Path, saved: tuple[Path, dict[str, Any]]
) -> None:
    previous_path, previous = saved
    golden = edited_golden(tmp_path / "edited.jsonl")
    report = tmp_path / "report.html"
    out = atlas("evaluate", "--bundle", str(tiny), "--golden", str(golden), "--mode", "all",
                "--compare", str(previous_path), "--json", "--report", str(report))  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # the existing keys stay; the comparison is one more
    assert set(data) == {"hybrid", "vector", "keyword", "compare"}
    assert {"mrr@10", "by_group", "cases"} <= set(data["keyword"])
    compare = data["compare"]
    assert compare["previous"] == str(previous_path)
    assert compare["cases"] == {"previous": 6, "current": 6, "matched": 5, "only_previous": 1,
                                "only_current": 1, "changed": 1, "estimated": 0}  # fmt: skip
    assert compare["modes_not_compared"] == ["hybrid", "vector"]
    assert list(compare["modes"]) == ["keyword"]
    keyword = compare["modes"]["keyword"]
    assert keyword["previous_mode"] == "keyword" and keyword["count"] == 5

    # both sides are the matched cases' own per-case figures, averaged
    now = {c["id"]: c for c in data["keyword"]["cases"]}
    before = {c["id"]: c for c in previous["keyword"]["cases"]}
    matched = [i for i in now if i in before]
    assert sorted(matched) == sorted(["auth", "find", "never", HOSTILE, "path"])
    for metric in METRICS:
        old = sum(before[i]["metrics"][metric] for i in matched) / 5
        new = sum(now[i]["metrics"][metric] for i in matched) / 5
        assert keyword["previous"][metric] == pytest.approx(old, abs=1e-4)
        assert keyword["current"][metric] == pytest.approx(new, abs=1e-4)
        assert keyword["delta"][metric] == pytest.approx(new - old, abs=2e-4)

    # "auth" was found first; judged against the widgets page it ranks elsewhere
    assert before["auth"]["rank"] == 1 and now["auth"]["rank"] != 1
    assert keyword["worse"][0] == {
        "id": "auth", "group": "howto", "query": "bearer token in a python script",
        "before": 1, "after": now["auth"]["rank"], "changed": True,
    }  # fmt: skip
    assert keyword["worse_total"] == 1 and keyword["better"] == []
    howto = keyword["by_group"]["howto"]
    assert howto["count"] == 1 and howto["delta"]["hit@1"] == -1.0
    assert keyword["by_group"]["natural"]["count"] == 2  # "gone" and "new" are in one run only
    assert keyword["by_group"]["natural"]["delta"] == dict.fromkeys(METRICS, 0.0)

    page = report.read_text(encoding="utf-8")
    assert "<script" not in page and "&lt;script&gt;" in page
    assert "&lt;b&gt;odd &amp; bold&lt;/b&gt;" in page
    assert page.count("<svg") == 6 + 1  # the six summary charts and one per compared mode
    chart = re.findall(r"<svg.*?</svg>", page, re.S)[-1]
    clusters = 1 + len(keyword["by_group"])  # "all" and each group
    assert chart.count('class="bar previous"') == clusters * len(METRICS)
    assert chart.count('class="bar current"') == clusters * len(METRICS)
    for label in ("score (0-1)", "case group", "previous", "this run", *METRICS):
        assert label in chart
    assert "howto (1)" in chart and "&lt;b&gt;odd &amp; bold&lt;/b&gt; (1)" in chart
    # the deltas are colour-coded: auth's group lost hit@1
    assert re.search(r'<td class="num worse">1\.000 → 0\.000 \(-1\.000\)</td>', page)
    assert "Per group" in page and "1 → " in page


def test_text_output_shows_deltas_and_movers(
    tmp_path: Path, tiny: Path, saved: tuple[Path, dict[str, Any]]
) -> None:
    golden = edited_golden(tmp_path / "edited.jsonl")
    out = atlas("evaluate", "--bundle", str(tiny), "--golden", str(golden), "--mode", "keyword",
                "--compare", str(saved[0]))  # fmt: skip
    assert out.returncode == 0, out.stderr
    table, marker, text = out.stdout.partition(f"compared with {saved[0]}:")
    assert marker and "mrr@10" in table  # the usual table comes first
    assert "5 cases in both runs (previous run 6, this run 6)" in text
    assert "1 cases only in the previous run, 1 only in this run" in text
    howto = next(line for line in text.splitlines() if line.startswith("howto "))
    # hit@1 of the one howto case fell from 1 to 0: "0.000 -1.000" in its hit@1 column
    assert howto.split()[:3] == ["howto", "keyword", "1"] and "0.000 -1.000" in howto
    assert re.search(r"worse\s+auth\s+1 -> \S+\s+bearer token .*\(case edited\)", text)


def test_two_single_mode_runs_of_different_modes_compare_with_each_other(
    tiny: Path, saved: tuple[Path, dict[str, Any]]
) -> None:
    golden = saved[0].parent / "golden.jsonl"
    out = atlas("evaluate", "--bundle", str(tiny), "--golden", str(golden), "--mode", "hybrid",
                "--compare", str(saved[0]), "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    compare = json.loads(out.stdout)["compare"]
    assert compare["cases"]["matched"] == 6 and compare["cases"]["changed"] == 0
    hybrid = compare["modes"]["hybrid"]
    assert hybrid["previous_mode"] == "keyword"
    assert hybrid["previous"] == {m: saved[1]["keyword"][m] for m in METRICS}


def run_of(ranks: dict[str, int | None], mode: str = "keyword") -> dict[str, Any]:
    """A saved run as an older `--json` printed it: ranks, no per-case figures."""
    cases = [
        {"id": i, "group": "g", "query": i, "expected": ["a.md"], "rank": r}
        for i, r in ranks.items()
    ]
    return {mode: {"top_k": 10, "cases": cases}}


def test_movers_worst_regression_first_and_capped() -> None:
    before = {"a": 1, "b": 1, "c": 4, "d": None, "e": 3, "f": 2}
    after = {"a": None, "b": 3, "c": 8, "d": 2, "e": 1, "f": 2}
    comparison = compare_runs(parse_run(run_of(before), "old"), parse_run(run_of(after), "new"))
    mode = comparison.modes[0]
    assert [(m.id, m.before, m.after) for m in mode.worse] == [
        ("a", 1, None), ("b", 1, 3), ("c", 4, 8)
    ]  # fmt: skip
    assert [(m.id, m.before, m.after) for m in mode.better] == [("e", 3, 1), ("d", None, 2)]
    # runs without per-case figures (older saves) are estimated from the rank
    assert comparison.estimated == 6
    assert mode.overall.previous["mrr@10"] == pytest.approx(
        round((1 + 1 + 0.25 + 1 / 3 + 0.5) / 6, 4)
    )

    forty = compare_runs(
        parse_run(run_of({f"q{i:02}": 1 for i in range(40)}), "old"),
        parse_run(run_of({f"q{i:02}": 2 + i for i in range(40)}), "new"),
    )
    many = forty.modes[0]
    assert len(many.worse) == MAX_MOVERS and many.worse_total == 40
    # 1 -> 41 loses the most reciprocal rank; the mildest 15 (down to 1 -> 2) are left off
    assert [m.after for m in many.worse] == list(range(41, 41 - MAX_MOVERS, -1))
    text = format_comparison(forty)
    assert "... and 30 more worse" in text


def test_cases_with_one_id_twice_match_in_order() -> None:
    old = {"keyword": {"cases": [{"id": "x", "expected": ["a"], "rank": 1},
                                 {"id": "x", "expected": ["a"], "rank": 5}]}}  # fmt: skip
    new = {"keyword": {"cases": [{"id": "x", "expected": ["a"], "rank": 1},
                                 {"id": "x", "expected": ["a"], "rank": 2}]}}  # fmt: skip
    mode = compare_runs(parse_run(old, "old"), parse_run(new, "new")).modes[0]
    assert [(m.before, m.after) for m in mode.better] == [(5, 2)] and mode.worse == ()


def test_runs_with_no_mode_in_common_are_refused() -> None:
    old = parse_run({**run_of({"a": 1}, "keyword"), **run_of({"a": 1}, "vector")}, "old")
    with pytest.raises(ConfigError, match="nothing to compare"):
        compare_runs(old, parse_run(run_of({"a": 1}, "hybrid"), "new"))


BAD_FILES: list[tuple[str, bytes | None, str]] = [
    ("missing.json", None, "does not exist"),
    ("text.json", b"{not json", "is not JSON (line 1, column 2"),
    ("golden.jsonl", b'{"query": "a"}\n{"query": "b"}\n', "is not JSON (line 2"),
    ("latin1.json", b'{"keyword": "caf\xe9"}', "is not UTF-8"),
    ("list.json", b"[1, 2]", "holds a JSON list, not an evaluation run"),
    ("nomode.json", b'{"fast": {}}', "holds no evaluation run"),
    ("nocases.json", b'{"keyword": {"mrr@10": 0.5}}', "mode 'keyword' needs an object with"),
    ("rank.json", b'{"hybrid": {"cases": [{"id": "a", "rank": "1"}]}}', 'hybrid case 1: "rank"'),
    ("noid.json", b'{"hybrid": {"cases": [{"rank": 1}]}}', 'hybrid case 1 needs a non-empty "id"'),
    ("metrics.json", b'{"hybrid": {"cases": [{"id": "a", "rank": 1, "metrics": {"hit@1": 2}}]}}',
     '"metrics" must give'),
]  # fmt: skip


@pytest.mark.parametrize(("name", "content", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_compare_files_are_one_line_and_a_hint(
    tmp_path: Path,
    tiny: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes | None,
    message: str,
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    golden = write_golden(tmp_path / "g.jsonl", GOLDEN[:1])
    code = main(["evaluate", "--bundle", str(tiny), "--golden", str(golden),
                 "--compare", str(path)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"atlas: error: compare file {path}") and message in lines[0]
    assert lines[1] == (
        "  hint: pass a file that `atlas evaluate --json` printed or `atlas evaluate --save` wrote"
    )
    assert len(lines) == 2


def test_a_directory_and_an_unwritable_save_path_are_refused(
    tmp_path: Path, tiny: Path, saved: tuple[Path, dict[str, Any]]
) -> None:
    with pytest.raises(ConfigError, match="cannot read compare file"):
        load_run(tmp_path)
    golden = saved[0].parent / "golden.jsonl"
    out = atlas("evaluate", "--bundle", str(tiny), "--golden", str(golden), "--mode", "keyword",
                "--save", str(tmp_path / "no" / "such" / "dir.json"))  # fmt: skip
    assert out.returncode == 2 and "atlas: error: cannot write" in out.stderr
    assert "Traceback" not in out.stderr


def test_an_older_run_without_per_case_figures() -> None:
    """Two expected files, both found: a rank alone cannot tell recall@5 is 1, the run's own
    figures can, and they are used when the cases are the same ones."""
    figures = {"mrr@10": 1.0, "recall@5": 1.0, "hit@1": 1.0, "ndcg@10": 1.0}
    case = {"id": "two", "group": "g", "query": "q", "expected": ["a.md", "b.md"], "rank": 1}
    older = {"keyword": {**figures, "by_group": {"g": figures}, "cases": [case]}}
    now = {"keyword": {"cases": [{**case, "metrics": figures}]}}
    same = compare_runs(parse_run(older, "old"), parse_run(now, "new"))
    assert same.estimated == 0 and same.modes[0].overall.delta()["recall@5"] == 0.0
    assert same.modes[0].groups[0].delta() == dict.fromkeys(METRICS, 0.0)

    # with a case more in this run the figures are recomputed, and the estimate is said
    now["keyword"]["cases"].append({**case, "id": "new", "metrics": figures})
    grown = compare_runs(parse_run(older, "old"), parse_run(now, "new"))
    assert grown.estimated == 1 and grown.modes[0].overall.previous["recall@5"] == 0.5
    assert any("estimated from the first relevant rank" in note for note in grown.notes())
