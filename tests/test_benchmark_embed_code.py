"""benchmarks/embed_code_vs_docs.py runs end to end on a few chunks of each side and prints every
key the issue's check reads (the figures are the benchmark's business: no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED

# Loads the real model and embeds both sides: .ci/run runs it, the quick command does not.
pytestmark = pytest.mark.stress

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not (SHARED / "collibra-docs").is_dir(), reason="no ../shared docs here")
def test_code_and_docs_embedding_are_measured_side_by_side() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "embed_code_vs_docs.py"), "--n", "4", "--json",
         "--code", str(ROOT / "atlas_core" / "apicheck"), "--docs", str(SHARED / "collibra-docs")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["docs_chunks"] == report["code_chunks"] == 4
    for key in ("docs_chunks_per_s", "code_chunks_per_s", "code_vs_docs_chunks_per_s"):
        assert report[key] > 0
