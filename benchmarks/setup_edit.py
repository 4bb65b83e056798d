"""`atlas setup` on big client configs: seconds and peak memory of one edit (issue 27).

    uv run python benchmarks/setup_edit.py [--sizes 10,30] [--json]

Each config is written in a temporary HOME and edited by `python -m atlas_ls.cli setup CLIENT
--config FILE` in a subprocess, exactly as a user runs it. Shapes:

- ``claude-code-string``: a `~/.claude.json` whose size is one long string (a pasted history);
- ``claude-code-projects``: a `~/.claude.json` of many project entries, each with small strings;
- ``zed-jsonc``: Zed's settings, JSON with comments, holding one long string beside a comment.

``seconds`` is the wall time of the subprocess (Python start-up included); ``peak_mb`` its peak
resident memory (getrusage of a wrapper process whose only child is the edit). Goal: a 10 MB
config under 2 s and 200 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
# Runs the edit as its only child; prints its wall seconds and peak resident bytes.
MEASURE = """
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(
    [sys.executable, "-m", "atlas_ls.cli", "setup", *sys.argv[1:]], stdout=subprocess.DEVNULL
)
seconds = time.perf_counter() - started
print(seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, done.returncode)
"""


def config_text(shape: str, size: int) -> tuple[str, str]:
    """(client, text of about `size` bytes)."""
    if shape == "claude-code-string":
        data = {"numStartups": 3, "projects": {"/work": {"history": "x" * size}}, "mcpServers": {}}
        return "claude-code", json.dumps(data, indent=2)
    if shape == "claude-code-projects":
        project = {
            "allowedTools": ["Bash", "Edit"],
            "history": [{"display": "fix the failing test in tests/setup", "pastedContents": {}}],
            "hasTrustDialogAccepted": True,
            "lastCost": 0.1234,
        }
        count = 1000
        for _ in range(2):  # scale the count to the size the first try measured
            projects = {f"/home/user/src/project-{i:06d}": project for i in range(count)}
            text = json.dumps({"projects": projects, "mcpServers": {}}, indent=2)
            count = count * size // len(text)
        return "claude-code", text
    return "zed", '{\n  // notes\n  "theme": "One Dark",\n  "notes": "' + "y" * size + '",\n}\n'


def measure(shape: str, size_mb: int) -> dict[str, Any]:
    client, text = config_text(shape, size_mb * MB)
    with tempfile.TemporaryDirectory(prefix="atlas-setup-bench-") as tmp:
        home = Path(tmp)
        config = home / "config.json"
        config.write_text(text)
        env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", MEASURE, client, "--config", str(config)],
            capture_output=True,
            text=True,
            env=env,
            cwd=home,
            check=True,
        )
        seconds, peak, code = done.stdout.split()
        edited = "atlas-mcp" in config.read_text()
    return {
        "shape": shape,
        "mb": round(len(text.encode()) / MB, 1),
        "seconds": round(float(seconds), 2),
        "peak_mb": round(int(peak) / MB),
        "exit_code": int(code),
        "edited": edited,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="atlas setup on big client configs")
    parser.add_argument("--sizes", default="10,30", help="config sizes in MB (default 10,30)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    shapes = ("claude-code-string", "claude-code-projects", "zed-jsonc")
    runs = [measure(shape, size) for size in sizes for shape in shapes]
    if args.json:
        print(json.dumps({"runs": runs}, indent=2))
    else:
        for run in runs:
            print(
                f"{run['shape']:<22} {run['mb']:>6.1f} MB  {run['seconds']:>6.2f} s  "
                f"{run['peak_mb']:>6} MB peak  exit {run['exit_code']}"
            )
    return 0 if all(r["exit_code"] == 0 and r["edited"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
