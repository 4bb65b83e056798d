"""The adversarial suite (`benchmarks/fuzz.py`, issue 10) run small: a few seeded cases of every
class against the real components, as a subprocess, with its JSON report checked per class.

The full run (a few hundred cases per class, a few minutes) is `uv run python benchmarks/fuzz.py`;
this keeps every class's generator and oracle working in the normal suite and fails when any
case of the small run is not refused cleanly or accepted safely.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fuzzing import CLASSES, load

ROOT = Path(__file__).resolve().parents[2]
CASES = 4


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("fuzz") / "run"
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/fuzz.py",
            "--cases",
            str(CASES),
            "--json",
            "--keep",
            str(work),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    result = json.loads(done.stdout)
    # The exit code says whether anything failed.
    assert done.returncode == (1 if result["total"]["failures"] else 0), done.stderr[-3000:]
    return result


@pytest.mark.timeout(300)
@pytest.mark.parametrize("cls", CLASSES)
def test_every_case_is_refused_cleanly_or_accepted_safely(report: dict[str, Any], cls: str) -> None:
    counts = report["classes"][cls]
    assert counts["tried"] > 0, counts
    assert counts["failures"] == 0, counts["failure_examples"]
    assert counts["tried"] == counts["refused_cleanly"] + counts["accepted"] + counts["failures"]


def test_the_report_totals_the_classes(report: dict[str, Any]) -> None:
    assert report["seed"] == 0 and set(report["classes"]) == set(CLASSES)
    for key in ("tried", "refused_cleanly", "accepted", "failures"):
        assert report["total"][key] == sum(c[key] for c in report["classes"].values())


@pytest.mark.parametrize("cls", CLASSES)
def test_cases_are_fixed_by_the_seed(cls: str) -> None:
    module = load(cls)
    # repr, not ==: recipes may hold NaN, which equals nothing
    first = [repr(module.recipe(0, index)) for index in range(6)]
    assert first == [repr(module.recipe(0, index)) for index in range(6)]
    assert first != [repr(module.recipe(1, index)) for index in range(6)]
    assert len(set(first)) > 1  # the cases differ from each other
