"""A cloned repository is untrusted input: its ignore files, names, depth and even its existence
must never hang, stop or crash `atlas index`; what it cannot index is skipped and counted."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from atlas_core.sources.code_walk import MAX_DEPTH, MAX_PATH_BYTES, walk_repository
from atlas_core.sources.ignore_rules import MAX_IGNORE_LINES, IgnoreFile

BIN = Path(sys.executable).parent
PATHOLOGICAL = "*a*a*a*a*a*a*a*a*a*a*b"


def _index(repo: Path, data: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "atlas"), "index", str(repo), "--model", "hash", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "ATLAS_DATA_DIR": str(data)},
    )


def _skipped(listing: object, reason_start: str) -> list[str]:
    skipped: dict[str, list[str]] = listing.skipped  # type: ignore[attr-defined]
    return sorted(
        e for r, entries in skipped.items() if r.startswith(reason_start) for e in entries
    )


def test_a_backtracking_ignore_pattern_does_not_hang_the_index(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".gitignore").write_text(PATHOLOGICAL + "\n")
    for n in range(20):  # a backtracking matcher spends minutes on each of these names
        (repo / f"{'a' * (80 + n)}.py").write_text(f"x = {n}\n")
    (repo / f"{'a' * 80}b").write_text("IGNORED = 1\n")
    # The timeout is a hang detector, not a speed goal: this takes about a second.
    done = _index(repo, tmp_path / "data", "--json", timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["documents"] == 20
    assert report["skipped_files"] == {"ignored (.gitignore or .atlasignore)": 1}


# (ignore lines, path, is a folder, git's answer): each checked with `git check-ignore`.
GIT_CASES = [
    (["*.log", "!keep.log"], "keep.log", False, False),
    (["*.log", "!keep.log"], "a/debug.log", False, True),
    (["/local.py"], "src/local.py", False, False),
    (["/local.py"], "local.py", False, True),
    (["build/"], "build", False, False),
    (["build/"], "src/build", True, True),
    (["doc/*.txt"], "doc/a/b.txt", False, False),
    (["doc/**/*.txt"], "doc/a/b/c.txt", False, True),
    (["doc/**/*.txt"], "doc/c.txt", False, True),
    (["**/gen"], "a/b/gen", True, True),
    (["gen/**"], "gen", True, False),
    (["gen/**"], "gen/x/y.py", False, True),
    (["a**/b"], "ax/y/b", False, True),  # git's quirk: `**` right after the literal prefix
    (["a**/**b"], "a.b", True, True),
    (["a*/*b"], "a.b", True, False),
    (["x\\*"], "x*", False, True),
    (["x\\*"], "xy", False, False),
    (["q[!/]z"], "qyz", False, True),
    (["[]a]b"], "]b", False, True),
    (["[[:digit:]]x"], "7x", False, True),
    (["ab\\"], "ab\\", False, False),  # a trailing backslash never matches
    (["sp\\ "], "sp ", False, True),
    (["sp  "], "sp", False, True),  # trailing spaces dropped
    (["crlf\r"], "crlf", False, True),
    (["#c"], "#c", False, False),
    (["\\#c"], "#c", False, True),
    (["\\!x"], "!x", False, True),
    (["?"], "\u00e9", False, False),  # `?` is one byte, `é` two
    (["[a"], "[a", False, False),  # an unclosed bracket never matches
    (["*", "!*.py"], "src", True, True),
    ([PATHOLOGICAL], "a" * 80 + "b", False, True),
    ([PATHOLOGICAL], "a" * 80, False, False),
]


@pytest.mark.parametrize(("lines", "path", "is_dir", "ignored"), GIT_CASES)
def test_ignore_lines_mean_what_they_mean_to_git(
    lines: list[str], path: str, is_dir: bool, ignored: bool
) -> None:
    verdict = IgnoreFile.parse("", lines).verdict(path, is_dir)
    assert (verdict is not None and not verdict.negated) == ignored


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
def test_random_ignore_files_agree_with_git_check_ignore(tmp_path: Path) -> None:
    rng = random.Random(27)
    atoms = ["a", "b", "*", "**", "?", "[ab]", "[!a]", "/", "\\*", ".", "[a-c]", "!"]
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    lines = ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 6))) for _ in range(300)]
    paths = sorted({"/".join(rng.choice(["a", "b", "ab", "a.b", "ba"]) for _ in range(3))
                    for _ in range(40)})  # fmt: skip
    expected = {}
    for number, line in enumerate(lines, 1):
        (repo / ".gitignore").write_text(line + "\n")
        answer = subprocess.run(
            ["git", "-C", str(repo), "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin"],
            input="\0".join(paths) + "\0",
            capture_output=True,
            text=True,
        ).stdout.split("\0")
        for i in range(0, len(answer) - 1, 4):
            expected[(number, answer[i + 3])] = bool(answer[i])
    for number, line in enumerate(lines, 1):
        rules = IgnoreFile.parse("", [line])
        for path in paths:  # not on disk: git takes each as a file, its parents as folders
            parts = path.split("/")
            parents = ("/".join(parts[:n]) for n in range(1, len(parts)))
            found = (rules.verdict(parent, is_dir=True) for parent in parents)
            mine = any(v is not None and not v.negated for v in found)
            mine = mine or rules.verdict(path, is_dir=False) is not None
            assert mine == expected[(number, path)], (line, path)


@pytest.mark.parametrize(
    "name", ["a\\b.py", "tab\there.py", "new\nline.py", "bell\x07.py", "esc\x1b[31m.py", "m.pkl"]
)
def test_a_file_name_no_bundle_can_hold_is_skipped_not_fatal(tmp_path: Path, name: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "ok.py").write_text("x = 1\n")
    (repo / name).write_text("y = 2\n")
    done = _index(repo, tmp_path / "data", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["documents"] == 1
    (reason,) = report["skipped_files"]
    assert "control character or a backslash" in reason or "pickle" in reason
    listing = walk_repository(repo)
    (shown,) = [e for entries in listing.skipped.values() for e in entries]
    assert shown.isprintable()  # never sent raw to a terminal


def test_deep_trees_and_long_paths_are_skipped_and_counted(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    deep = repo.joinpath(*["d"] * (MAX_DEPTH + 6))
    deep.mkdir(parents=True)
    (deep / "deep.py").write_text("x = 1\n")
    (repo / "d" / "shallow.py").write_text("x = 2\n")
    long = repo.joinpath(*["n" * 200] * (MAX_PATH_BYTES // 200 + 1))
    long.mkdir(parents=True)
    (long / "far.py").write_text("x = 3\n")
    listing = walk_repository(repo)
    assert [f.rel for f in listing.files] == ["d/shallow.py"]
    (too_deep,) = _skipped(listing, f"deeper than {MAX_DEPTH} folders")
    assert too_deep.count("/") == MAX_DEPTH
    (too_long,) = _skipped(listing, f"path longer than {MAX_PATH_BYTES:,} bytes")
    assert len(too_long.encode()) > MAX_PATH_BYTES


def test_an_ignore_file_too_big_to_apply_leaves_its_folder_out(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "huge").mkdir(parents=True)
    (repo / "huge" / ".gitignore").write_text("x*\n" * (MAX_IGNORE_LINES + 1))
    (repo / "huge" / "a.py").write_text("x = 1\n")
    (repo / "b.py").write_text("x = 2\n")
    listing = walk_repository(repo)
    assert [f.rel for f in listing.files] == ["b.py"]
    assert _skipped(listing, ".gitignore over") == ["huge/"]


def test_a_path_longer_than_path_max_is_one_line(tmp_path: Path) -> None:
    too_long = tmp_path.joinpath(*["x" * 200] * 25)  # 5,000 bytes: over Linux's 4,096
    done = _index(too_long, tmp_path / "data")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "File name too long" in done.stderr and "hint: move the repository" in done.stderr


def test_the_installed_docs_release_is_never_an_index_output(tmp_path: Path) -> None:
    data = tmp_path / "data"
    release = data / "releases" / "docs-2025.1"
    release.mkdir(parents=True)
    (release / "manifest.json").write_text('{"name": "docs"}')
    (data / "current").symlink_to(Path("releases") / "docs-2025.1")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    for output in (data / "current", release, data / "releases" / "new"):
        done = _index(repo, data, "--output", str(output))
        assert done.returncode == 2, done.stdout
        assert "is the installed docs release" in done.stderr and "hint:" in done.stderr
    assert sorted(p.name for p in release.iterdir()) == ["manifest.json"]
    assert not (data / "releases" / "new").exists()


def test_a_watch_notices_its_repository_deleted_and_resumes_when_it_returns(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    watch = subprocess.Popen(
        [str(BIN / "atlas"), "index", str(repo), "--watch", "--model", "hash", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ATLAS_DATA_DIR": str(tmp_path / "data")},
    )
    lines: dict[str, threading.Event] = {"watching": threading.Event(), "gone": threading.Event()}
    back = threading.Event()
    reports: list[dict] = []
    errors: list[str] = []

    def read_stderr() -> None:
        assert watch.stderr is not None
        for line in watch.stderr:
            errors.append(line)
            if line.startswith("watching "):
                lines["watching"].set()
            elif "is gone" in line:
                lines["gone"].set()

    def read_stdout() -> None:
        assert watch.stdout is not None
        for line in watch.stdout:
            reports.append(json.loads(line))
            if reports[-1]["documents"] == 2:
                back.set()

    for reader in (read_stderr, read_stdout):
        threading.Thread(target=reader, daemon=True).start()
    try:
        assert lines["watching"].wait(60), errors
        shutil.rmtree(repo)
        assert lines["gone"].wait(60), errors
        repo.mkdir()
        (repo / "a.py").write_text("x = 1\n")
        (repo / "b.py").write_text("y = 2\n")
        assert back.wait(60), (errors, reports)
        assert any("is back" in line for line in errors)
    finally:
        watch.send_signal(signal.SIGINT)
        try:
            watch.wait(30)
        except subprocess.TimeoutExpired:
            watch.kill()
    assert watch.returncode == 0
