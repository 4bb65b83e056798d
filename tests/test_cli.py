from __future__ import annotations

import subprocess
import sys


def test_cli_help_lists_usage() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "atlas_core", "--help"], capture_output=True, text=True, check=True
    )
    assert "usage: atlas" in out.stdout


def test_cli_without_command_exits_2() -> None:
    out = subprocess.run([sys.executable, "-m", "atlas_core"], capture_output=True, text=True)
    assert out.returncode == 2
