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


def test_a_mistyped_flag_gets_did_you_mean_from_the_commands_own_flags() -> None:
    out = _atlas("search", "x", "--topk", "5")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "atlas: error: unknown option '--topk' for `atlas search`",
        "  hint: did you mean '--top-k'?",
    ]
    assert out.stdout == ""


def test_a_mistyped_flag_is_named_before_a_missing_required_one() -> None:
    out = _atlas("build", "--sorce", "mirror=docs", "--output", "out")
    assert out.returncode == 2
    assert out.stderr.splitlines()[0] == "atlas: error: unknown option '--sorce' for `atlas build`"
    assert "'--source'" in out.stderr.splitlines()[1]


def test_an_unknown_flag_with_no_close_name_points_at_the_commands_help() -> None:
    out = _atlas("info", "--qqqqzzzz")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "atlas: error: unknown option '--qqqqzzzz' for `atlas info`",
        "  hint: run `atlas info --help` for its options",
    ]


def test_a_value_that_looks_like_a_flag_is_left_to_the_flag_before_it() -> None:
    from atlas_ls.cli import _build_parser, unknown_option

    _, sub = _build_parser()
    assert unknown_option(["search", "--section", "--odd", "x"], sub) is None
    assert unknown_option(["search", "x", "--top", "3"], sub) is None  # a unique prefix
    assert unknown_option(["search", "--", "--topk"], sub) is None
