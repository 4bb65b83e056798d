"""The release pipeline's gate: `atlas evaluate --compare PREVIOUS --max-drop TOLERANCE` exits 1,
naming each metric, when a new bundle scores worse than the previous release by more than the
tolerance, and 0 otherwise. Two small bundles: v2 lost what the golden case asks for ("v1").
The runs call the CLI's `main`, whose return value is the process's exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas_ls.cli import main

GOLDEN = {"id": "v1-assets", "query": "v1", "expected_files": ["guide/assets.md"]}


def _args(bundle: Path, golden: Path, *extra: str) -> list[str]:
    return ["evaluate", "--bundle", str(bundle), "--golden", str(golden), "--mode", "keyword",
            *extra]  # fmt: skip


def test_a_drop_beyond_the_tolerance_fails_the_gate(
    bundles: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps(GOLDEN) + "\n")
    previous = tmp_path / "previous.json"
    assert main(_args(bundles["v1"], golden, "--save", str(previous), "--json")) == 0
    assert json.loads(capsys.readouterr().out)["keyword"]["mrr@10"] == 1.0

    refused = _args(bundles["v2"], golden, "--compare", str(previous), "--max-drop", "0.02")
    assert main(refused) == 1
    err = capsys.readouterr().err
    assert "4 score(s) fell by more than 0.02" in err  # all four metrics, 1.0 -> 0.0
    assert "keyword mrr@10 1.000 -> 0.000 (-1.000)" in err

    # The tolerance is the setting: a fall of exactly 1.0 is not more than 1.0.
    tolerated = _args(
        bundles["v2"], golden, "--compare", str(previous), "--max-drop", "1", "--json"
    )
    assert main(tolerated) == 0
    gate = json.loads(capsys.readouterr().out)["compare"]["max_drop"]
    assert gate == {"tolerance": 1.0, "dropped": []}

    assert main(_args(bundles["v1"], golden, "--max-drop", "0.02")) == 2
    assert "--max-drop needs --compare" in capsys.readouterr().err
