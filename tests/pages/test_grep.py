"""ripgrep and the pure-Python fallback give the same answers, and both refuse what they should."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from atlas_core.errors import QueryError
from atlas_core.pages import grep as textsearch
from atlas_core.pages.grep import SearchTimeout, TextMatch, find_ripgrep, search_python, search_text

needs_rg = pytest.mark.skipif(find_ripgrep() is None, reason="ripgrep (rg) is not installed")


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory, fixture_corpus: Path) -> Path:
    """The fixture mirror plus the awkward cases: CRLF, a BOM, long lines, unicode, hidden files,
    links and a file type that is not a doc."""
    root = tmp_path_factory.mktemp("ts-mirror") / "markdown"
    shutil.copytree(fixture_corpus / "mirror" / "markdown", root)
    edge = root / "edge"
    edge.mkdir()
    (edge / "crlf.md").write_bytes(b"# Windows page\r\nfirst line ends\r\nsecond Line ends\r\n")
    (edge / "bom.md").write_bytes("\ufeffBOM first line mentions Assets\nplain\n".encode())
    (edge / "long.md").write_text("x" * 900 + " needle " + "y" * 900 + "\n", encoding="utf-8")
    (edge / "unicode.md").write_text("Straße und Größe\nÉTAT des assets\n", encoding="utf-8")
    (edge / "no-newline.md").write_text("last line without terminator assets", encoding="utf-8")
    (edge / "dashes.md").write_text("run it with --files and -e flags\n", encoding="utf-8")
    (edge / "notes.json").write_text('{"assets": 1}\n', encoding="utf-8")
    (edge / ".hidden.md").write_text("assets hidden\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "x.md").write_text("assets in a hidden dir\n", encoding="utf-8")
    outside = tmp_path_factory.mktemp("ts-outside") / "outside.md"
    outside.write_text("assets outside the mirror\n", encoding="utf-8")
    (edge / "link.md").symlink_to(outside)
    return root


CASES = [
    ("assets", False, False),
    ("Assets", False, True),
    ("ends", False, False),
    ("ends$", True, False),
    (r"^#+\s", True, False),
    (r"\bfind\w*", True, False),
    ("größe", False, False),
    ("état", False, False),
    ("needle", False, False),
    ("--files", False, False),
    ("-e", False, False),
    ("(", False, False),
    (".*", True, False),
    ("domain|asset", True, True),
]


@needs_rg
@pytest.mark.parametrize(("pattern", "regex", "case_sensitive"), CASES)
def test_ripgrep_and_python_agree(
    mirror: Path, pattern: str, regex: bool, case_sensitive: bool
) -> None:
    for limit in (3, 10_000):
        rg = search_text(
            mirror,
            pattern,
            regex=regex,
            case_sensitive=case_sensitive,
            max_results=limit,
            engine="ripgrep",
        )
        py = search_text(
            mirror,
            pattern,
            regex=regex,
            case_sensitive=case_sensitive,
            max_results=limit,
            engine="python",
        )
        assert (rg.engine, py.engine) == ("ripgrep", "python")
        assert rg.matches == py.matches
        assert rg.truncated == py.truncated
    assert rg.matches or pattern in ("(",), pattern


@needs_rg
def test_both_engines_agree_within_a_publication(mirror: Path) -> None:
    files = tuple(textsearch.iter_doc_files(mirror, ["edge"]))
    rg = search_text(mirror, "line", paths=files, engine="ripgrep", max_results=100)
    py = search_text(mirror, "line", paths=files, engine="python", max_results=100)
    assert rg.matches == py.matches and {m.file for m in rg.matches} <= set(files)


def test_files_searched_skip_hidden_links_and_other_types(mirror: Path) -> None:
    found = search_python(mirror, "assets", max_results=1000)
    files = {m.file for m in found.matches}
    assert "edge/bom.md" in files and "edge/no-newline.md" in files
    assert not {"edge/.hidden.md", ".git/x.md", "edge/link.md", "edge/notes.json"} & files


def test_line_numbers_and_text(mirror: Path) -> None:
    found = search_python(mirror, "second", max_results=10)
    assert found.matches == [TextMatch(file="edge/crlf.md", line=3, text="second Line ends")]
    bom = search_python(mirror, "BOM", case_sensitive=True, max_results=10)
    assert bom.matches == [
        TextMatch(file="edge/bom.md", line=1, text="BOM first line mentions Assets")
    ]
    long = search_python(mirror, "needle", max_results=1).matches[0]
    assert "needle" in long.text and len(long.text) <= textsearch.MAX_LINE_CHARS + 2


def test_limit_reports_truncation(mirror: Path) -> None:
    found = search_python(mirror, "e", max_results=5)
    assert len(found.matches) == 5 and found.truncated
    assert not search_python(mirror, "Straße", max_results=5).truncated


@pytest.mark.parametrize(
    ("pattern", "regex", "message"),
    [
        ("", False, "empty"),
        ("a\nb", False, "spans lines"),
        ("(", True, "not a valid regex"),
        ("x" * 1001, False, "longer than"),
        ("a\x00b", False, "NUL"),
    ],
)
def test_bad_patterns(mirror: Path, pattern: str, regex: bool, message: str) -> None:
    for engine in ("auto", "python"):
        with pytest.raises(QueryError, match=message):
            search_text(mirror, pattern, regex=regex, engine=engine)


@needs_rg
def test_ripgrep_dialect_errors_are_tool_messages(mirror: Path) -> None:
    # Look-around is valid Python but not ripgrep: a clear error, not a crash.
    with pytest.raises(QueryError, match="ripgrep rejected"):
        search_text(mirror, "assets(?=x)", regex=True, engine="ripgrep")


def test_pathological_regex_in_python_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    (tmp_path / "evil.md").write_text("a" * 40 + "!\n", encoding="utf-8")
    started = time.monotonic()
    with pytest.raises(SearchTimeout, match="time limit"):
        search_text(tmp_path, "(a+)+$", regex=True, engine="python", timeout=1.0)
    assert time.monotonic() - started < 20  # killed, not waited out (2**40 steps)


@needs_rg
def test_ripgrep_has_no_catastrophic_backtracking(tmp_path: Path) -> None:
    (tmp_path / "evil.md").write_text("a" * 40 + "!\n", encoding="utf-8")
    assert search_text(tmp_path, "(a+)+$", regex=True, engine="ripgrep").matches == []


def test_ripgrep_can_be_turned_off(mirror: Path) -> None:
    assert find_ripgrep("none") is None
    assert search_text(mirror, "assets", ripgrep="none").engine == "python"
    with pytest.raises(QueryError, match="not installed"):
        search_text(mirror, "assets", engine="ripgrep", ripgrep="None")


def test_a_search_child_whose_owner_is_gone_stops_on_its_own(tmp_path: Path) -> None:
    """A server worker killed mid-search cannot kill its child at the deadline any more: the child
    carries the deadline itself (nobody here waits on it or kills it)."""
    import json
    import signal
    import subprocess
    import sys

    (tmp_path / "evil.md").write_text("a" * 40 + "!\n", encoding="utf-8")
    request = {"root": str(tmp_path), "pattern": "(a+)+$", "paths": [], "case_sensitive": True}
    request |= {"max_results": 10, "timeout": 1.0}
    child = subprocess.Popen(
        [sys.executable, "-m", "atlas_core.pages.grep"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdin is not None
    child.stdin.write(json.dumps(request).encode())
    child.stdin.close()
    try:
        code = child.wait(timeout=60)  # 2**40 steps would take hours
    finally:
        child.kill()
    assert code in (-signal.SIGALRM, -signal.SIGXCPU)
