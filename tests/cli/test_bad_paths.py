"""Every command, every path it takes, every way a path can be wrong: one line, exit 2, no
traceback, nothing half-written.

The flags come from the real argparse parsers (a new path flag is covered without editing this
file); the environment variables that name paths are listed here. Commands run in-process through
`atlas_ls.cli.main`, so an exception escaping it is the traceback a user would have seen.
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_ls.cli import _build_parser, main

CLOSED_PORT_URL = "http://127.0.0.1:9"  # discard port: nothing listens, the connection is refused
LONG = "n" * 300  # over the 255-byte limit of a file name
PATH_WORDS = ("DIR", "FILE", "PATH", "HTML", "PREVIOUS")
PATH_DESTS = ("bundle", "old", "new")  # paths typed as str: several, or names beside paths

# The good arguments each command needs besides the one under test; {name} are fixture paths.
# Positionals are keyed by their dest, options by their flag; None is a flag without a value.
BASE: dict[str, dict[str, str | None]] = {
    "build": {"--source": "local={docs}", "--output": "{out}/built", "--model": "hash", "-q": None},
    "verify": {"bundle": "{bundle}"},
    "info": {"bundle": "{bundle}"},
    "search": {"query": "widgets", "--bundle": "{bundle}", "--mode": "keyword"},
    "lookup": {"identifier": "findWidgets", "--bundle": "{bundle}"},
    "symbols": {"query": "widget", "--bundle": "{bundle}"},
    "evaluate": {"--bundle": "{bundle}", "--golden": "{golden}", "--mode": "keyword"},
    "demo": {"-q": None},
    "crawl": {
        "--output": "{out}/mirror",
        "--index-url": f"{CLOSED_PORT_URL}/llms.txt",
        "--retries": "0",
        "--no-progress": None,
    },
    "crawl-validate": {"mirror": "{mirror}"},
    "download": {"--api-url": CLOSED_PORT_URL, "--output": "{out}/root", "--no-progress": None},
    "install": {"path": "{bundle}", "--output": "{out}/root"},
    "backup": {"--bundle": "{bundle}", "--backup-dir": "{out}/backups"},
    "restore": {"--list": None, "--backup-dir": "{out}/backups"},
    "publish": {
        "--bundle": "{bundle}",
        "--repo": "acme/docs",
        "--dry-run": None,
        "--out": "{out}/archives",
    },
    "doctor": {"--bundle": "{bundle}"},
    "setup": {"client": "cursor", "--dry-run": None, "--config": "{out}/mcp.json"},
    "index": {"path": "{repo}", "--output": "{out}/index", "--model": "hash", "-q": None},
    "diff": {"old": "{bundle}", "new": "{bundle}"},
    "smoke": {"--bundle": "{bundle}"},
}

# Environment variables that name paths, and a command that reads each.
ENV_CASES: dict[str, tuple[str, dict[str, str | None]]] = {
    "ATLAS_DATA_DIR": ("install", {"path": "{bundle}"}),
    "ATLAS_CACHE_DIR": ("demo", {"-q": None}),
    "ATLAS_CONFIG": ("search", {"query": "widgets", "--bundle": "{bundle}"}),
    "ATLAS_BUNDLE": ("search", {"query": "widgets"}),
    "ATLAS_RERANKER": ("search", {"query": "widgets", "--bundle": "{bundle}", "--rerank": None}),
}

# A usable cache folder: the demo then builds with the real model, which is its slow, real work.
SLOW_SUCCESS = {("ATLAS_CACHE_DIR", "missing"), ("ATLAS_CACHE_DIR", "a folder")}
# Commands that reach a network (a closed port here): a good path then fails there, exit 3.
NETWORK = {"crawl", "download"}
# Commands whose answer is a report of PASS/FAIL lines, exit 1 on any FAIL; a bad path is a FAIL.
REPORTS = {"doctor", "smoke"}


def _path_args() -> list[tuple[str, str]]:
    """(command, flag or positional dest) for every argument that takes a path."""
    _, sub = _build_parser()
    found = []
    for command, parser in sub.choices.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or action.nargs == 0:
                continue
            metavar = str(action.metavar or "")
            if (
                action.type is Path
                or any(word in metavar for word in PATH_WORDS)
                or action.dest in PATH_DESTS
            ):
                found.append(
                    (command, action.option_strings[0] if action.option_strings else action.dest)
                )
    return found


PATH_ARGS = _path_args()


def test_the_table_covers_the_parsers() -> None:
    _, sub = _build_parser()
    assert set(BASE) == set(sub.choices), "give a new command its good arguments in BASE"
    assert ("download", "--output") in PATH_ARGS
    assert ("backup", "--backup-dir") in PATH_ARGS
    assert ("build", "--source") in PATH_ARGS
    assert ("diff", "old") in PATH_ARGS


def _bad_paths(where: Path) -> dict[str, Path]:
    where.mkdir()
    a_file = where / "a-file"
    a_file.write_text("not what you wanted\n", encoding="utf-8")
    folder = where / "a-folder"
    folder.mkdir()
    link = where / "dangling"
    link.symlink_to(where / "gone")
    paths = {
        "missing": where / "missing",
        "a file": a_file,
        "a folder": folder,
        "read-only filesystem": Path("/proc/atlas-x"),
        "through a file": a_file / "sub",
        "dangling link": link,
        "name too long": where / LONG,
    }
    if os.geteuid() != 0:  # root writes anywhere; /proc stands in for it then
        locked = where / "locked"
        locked.mkdir(mode=0o500)
        paths["unwritable"] = locked / "sub"
    return paths


KINDS = (
    "missing",
    "a file",
    "a folder",
    "read-only filesystem",
    "through a file",
    "dangling link",
    "name too long",
    "unwritable",
)


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory, hash_bundle: Path) -> dict[str, str]:
    base = tmp_path_factory.mktemp("good")
    docs = base / "docs"
    docs.mkdir()
    (docs / "widgets.md").write_text("# Widgets\n\nFind widgets with findWidgets.\n")
    mirror = base / "mirror"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "corpus" / "mirror", mirror)
    repo = base / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("def find_widgets():\n    return []\n")
    golden = base / "golden.jsonl"
    golden.write_text('{"id": "w", "query": "widgets", "expected_files": ["x.md"]}\n')
    return {
        "bundle": str(hash_bundle),
        "docs": str(docs),
        "mirror": str(mirror),
        "repo": str(repo),
        "golden": str(golden),
    }


def _argv(command: str, values: dict[str, str | None], fill: dict[str, str]) -> list[str]:
    positionals = [v for k, v in values.items() if not k.startswith("-")]
    argv = [command, *(v.format(**fill) for v in positionals if v is not None)]
    for key, value in values.items():
        if key.startswith("-"):
            argv += [key] if value is None else [key, value.format(**fill)]
    return argv


def _tree(*tops: Path) -> set[str]:
    seen = set()
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                seen.add(os.path.join(dirpath, name))
    return seen


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse
        rc = int(exc.code or 0)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _check(
    argv: list[str], bad: Path, kind: str, sandbox: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    named = {str(bad)}
    if kind == "through a file":
        named.add(str(bad.parent))
    if kind == "dangling link":
        named.add(os.readlink(bad))  # where it leads, the thing that is missing
    if kind == "name too long":
        named.add(LONG[:40])  # a message may clip a path this long in its middle
    before = _tree(*sandbox)
    rc, out, err = _run(argv, capsys)  # an exception here is the traceback the user would see
    if argv[0] in REPORTS and rc == 1:
        assert any(name in out for name in named), f"{kind}: {out}"
        return
    allowed = (0, 2, 3) if argv[0] in NETWORK else (0, 2)
    assert rc in allowed, f"{argv}: exit {rc}: {err}"
    if rc == 0:
        return
    lines = err.splitlines()
    assert lines[0].startswith("atlas: error: "), err
    assert len(lines) <= 2 and (len(lines) == 1 or lines[1].startswith("  hint: ")), err
    if rc == 2:
        assert any(name in err for name in named), f"{kind}: {err}"
    assert _tree(*sandbox) == before, f"{argv} left files behind"


def _cases() -> Iterator[tuple[str, str, str]]:
    for command, arg in PATH_ARGS:
        for kind in KINDS:
            yield command, arg, kind


@pytest.mark.parametrize(("command", "arg", "kind"), list(_cases()))
def test_a_bad_path_argument_is_one_line_and_exit_2(
    command: str,
    arg: str,
    kind: str,
    good: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad_paths = _bad_paths(tmp_path / "bad")
    if kind not in bad_paths:
        pytest.skip("root writes anywhere; the read-only filesystem case covers it")
    bad = bad_paths[kind]
    out = tmp_path / "out"
    out.mkdir()
    values = dict(BASE[command])
    values[arg] = f"local={bad}" if arg == "--source" else str(bad)
    argv = _argv(command, values, {**good, "out": str(out)})
    sandbox = [tmp_path, Path(os.environ["ATLAS_DATA_DIR"]).parent]
    _check(argv, bad, kind, sandbox, capsys)


@pytest.mark.parametrize(("var", "kind"), [(v, k) for v in ENV_CASES for k in KINDS])
def test_a_bad_path_in_the_environment_is_one_line_and_exit_2(
    var: str,
    kind: str,
    good: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad_paths = _bad_paths(tmp_path / "bad")
    if kind not in bad_paths:
        pytest.skip("root writes anywhere; the read-only filesystem case covers it")
    if (var, kind) in SLOW_SUCCESS:
        pytest.skip("a usable path: the command would do its full, slow work")
    bad = bad_paths[kind]
    monkeypatch.setenv(var, str(bad))
    command, values = ENV_CASES[var]
    argv = _argv(command, values, good)
    _check(argv, bad, kind, [tmp_path], capsys)
