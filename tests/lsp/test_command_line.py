"""atlas-ls's command line: the lines editors start it with are read without argparse, and read
exactly as argparse reads them; every other line still goes to argparse."""

from __future__ import annotations

import subprocess
import sys

import pytest

from atlas_ls.lsp.__main__ import _common_args, build_parser, parse_args

# Lines the editor integrations and users start the server with (editors/, the README).
COMMON = [
    [],
    ["--stdio"],
    ["-v"],
    ["-vv"],
    ["-v", "-v", "--verbose"],
    ["--bundle", "/b/collibra"],
    ["--bundle=/b/collibra", "--bundle", "/b/other", "--stdio"],
    ["--project", "/src/repo"],
    ["--project=/src/repo", "-v", "--bundle", "b c"],
    ["--stdio", "--clientProcessId", "4242"],
    ["--clientProcessId=4242", "--stdio"],
    ["--project", "a", "--project", "b"],
]
# Lines argparse reads differently from a token-by-token reading, or rejects.
OTHERS = [
    ["--tcp", "--port", "2090"],
    ["--tcp", "--host", "0.0.0.0"],
    ["--version"],
    ["--bund", "/b"],  # an abbreviation
    ["-vvv"],
    ["--bundle", "-x"],  # a value that looks like an option
    ["--bundle="],
    ["--", "--stdio"],
]


@pytest.mark.parametrize("argv", COMMON, ids=" ".join)
def test_common_lines_are_read_without_argparse_as_argparse_reads_them(argv: list[str]) -> None:
    quick = _common_args(argv)
    assert quick is not None  # read here: these must not fall through to argparse
    assert vars(quick) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", OTHERS, ids=" ".join)
def test_other_lines_go_to_argparse(argv: list[str]) -> None:
    assert _common_args(argv) is None
    try:
        expected: object = vars(build_parser().parse_args(argv))
    except SystemExit as exc:
        expected = ("exit", exc.code)
    try:
        got: object = vars(parse_args(argv))
    except SystemExit as exc:
        got = ("exit", exc.code)
    assert got == expected


def test_missing_value_is_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        parse_args(["--stdio", "--bundle"])
    assert raised.value.code == 2
    assert "--bundle: expected one argument" in capsys.readouterr().err


def test_a_common_line_does_not_import_argparse() -> None:
    code = (
        "import sys; from atlas_ls.lsp.__main__ import parse_args; "
        "args = parse_args(['--stdio', '--bundle', 'b']); "
        "print(args.bundle, 'argparse' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert out.split() == ["['b']", "False"]
