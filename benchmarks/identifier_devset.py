"""Moved to the package `benchmarks/devset/` (`python -m benchmarks.devset`); this keeps the old
command working. Run as a script, only this file's folder is on sys.path, so the root goes first."""

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
runpy.run_module("benchmarks.devset", run_name="__main__", alter_sys=True)
