"""A benchmark script is run as `python benchmarks/NAME.py`, which puts benchmarks/ first on
sys.path: a script named like a standard-library module (`secrets.py`) would hide that module from
everything the run imports (numpy imports `secrets`)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_no_benchmark_hides_a_standard_library_module() -> None:
    names = {path.stem for path in BENCHMARKS.glob("*.py")} | {
        path.name for path in BENCHMARKS.iterdir() if (path / "__init__.py").is_file()
    }
    assert sorted(names & sys.stdlib_module_names) == []
