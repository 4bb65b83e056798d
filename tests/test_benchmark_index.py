"""benchmarks/index.py runs end to end on a tiny repository and prints every key the checks read.

Forty files from this environment's site-packages and the hash model keep it to seconds; the
figures themselves are the benchmark's business (no timings asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KEYS = {
    "files",
    "repo_bytes",
    "chunks",
    "index_seconds",
    "index_chunks_per_s",
    "index_peak_rss_mb",
    "raw_chunks_per_s",
    "raw_peak_rss_mb",
    "index_vs_raw_chunks_per_s",
    "cli_update_seconds",
    "watch_update_median_s",
    "watch_update_max_s",
    "update_goal_s",
    "watch_update_meets_goal",
    "model",
}


def test_index_benchmark_on_forty_files_with_the_hash_model() -> None:
    argv = ["--files", "40", "--model", "hash", "--edits", "2", "--json"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "index.py"), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)

    assert results.keys() >= KEYS
    assert results["model"] == "hash"
    assert results["files"] == 40
    assert results["indexed_files"] == 40  # every copied file was indexed, none skipped
    assert results["repo_bytes"] > 0
    assert results["chunks"] >= 40
    assert results["index_peak_rss_mb"] > 0
    # The hash model has no onnx file to run bare: no baseline, said so.
    assert results["raw_chunks_per_s"] is None
    assert results["index_vs_raw_chunks_per_s"] is None
    assert "hash" in results["raw_note"]
    # The CLI update embedded the edited file's new chunk and reused the rest.
    assert results["cli_update_has_edit"] is True
    assert results["cli_update_embedded"] >= 1
    assert results["cli_update_reused"] >= results["chunks"] - results["cli_update_embedded"]
    # Each watched edit produced an update that embedded only a little.
    assert len(results["watch_update_seconds"]) == 2
    assert all(1 <= n < results["chunks"] for n in results["watch_embedded"])
    assert results["update_goal_s"] == 3.0
    assert isinstance(results["watch_update_meets_goal"], bool)
