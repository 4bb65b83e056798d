from __future__ import annotations

import subprocess
import sys


def test_cli_help_lists_usage() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "--help"], capture_output=True, text=True, check=True
    )
    assert "usage: atlas" in out.stdout


def test_cli_without_command_exits_2() -> None:
    out = subprocess.run([sys.executable, "-m", "atlas_ls.cli"], capture_output=True, text=True)
    assert out.returncode == 2


def _atlas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *args], capture_output=True, text=True
    )


def test_a_mistyped_command_gets_did_you_mean_in_one_line_and_exit_2() -> None:
    out = _atlas("-v", "serch", "assets", "--top-k", "3")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "atlas: error: unknown command 'serch'",
        "  hint: did you mean 'search'?",
    ]
    assert out.stdout == ""


def test_an_unknown_command_with_no_close_name_points_at_help() -> None:
    out = _atlas("qqqqzzzz")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "atlas: error: unknown command 'qqqqzzzz'",
        "  hint: run `atlas --help` for the list of commands",
    ]
