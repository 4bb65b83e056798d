"""Files the grammar cannot chunk go in line windows, and say why; nothing ever raises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from atlas_core.code import chunk_code, fixed_windows, grammars, line_windows
from tests.code.checks import assert_well_formed, budget

NOTES = "".join(f"Step {n}: export the glossary domain number {n} to CSV.\n" for n in range(40))


def test_a_language_without_a_grammar_gets_line_windows() -> None:
    fits = budget(200)
    chunking = chunk_code(NOTES, "text", fits=fits)
    assert chunking.fallback == "no grammar for text"
    assert len(chunking.pieces) > 5
    assert {p.kind for p in chunking.pieces} == {"window"}
    assert all(p.symbol == p.parent == "" and p.part == 0 for p in chunking.pieces)
    assert_well_formed(NOTES, chunking.pieces, fits)
    # Greedy: each window but the last could not take the next line.
    lines = NOTES.split("\n")
    for piece in chunking.pieces[:-1]:
        assert not fits(piece.text + "\n" + lines[piece.line_end])


def test_binary_looking_text_falls_back_with_the_reason() -> None:
    garbage = "\x00\x01\x02 PK\x03\x04 }}}{{{ ))) ((( ]]] ::: \x7f\n" * 60
    fits = budget(300)
    chunking = chunk_code(garbage, "python", fits=fits)
    assert chunking.fallback == "parse errors over 30% of the file"
    assert {p.kind for p in chunking.pieces} == {"window"}
    assert_well_formed(garbage, chunking.pieces, fits)


@pytest.mark.parametrize("language", ["python", "json", "yaml", "go", "text", "cobol"])
@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t\n",
        "\n\n\n",
        "\ufeff",
        "x",
        "}}}",
        "\x00" * 50,
        "é" * 3000,
        "a\rb\rc",
        "\ud800x",
    ],
)
def test_no_text_makes_it_raise(language: str, text: str) -> None:
    fits = budget(100)
    chunking = chunk_code(text, language, fits=fits)
    if not text.strip():
        assert chunking.pieces == []
    else:
        assert_well_formed(text, chunking.pieces, fits)


def test_an_unknown_language_says_so() -> None:
    assert chunk_code("PROCEDURE DIVISION.\n", "cobol", fits=budget(99)).fallback == (
        "no grammar for cobol"
    )


def test_line_windows_leave_out_blank_lines_and_cut_an_over_long_line() -> None:
    text = "\n\nfirst\n\n\nsecond\n" + "y" * 250 + "\nlast\n\n"
    fits = budget(100)
    pieces = line_windows(text, fits=fits)
    assert_well_formed(text, pieces, fits)
    assert (pieces[0].text, pieces[0].line_start, pieces[0].line_end) == ("first\n\n\nsecond", 3, 6)
    assert [p.line_start for p in pieces[1:]] == [7, 7, 7, 8]
    assert pieces[-1].text == "last"


def test_fixed_windows_have_the_size_the_overlap_and_true_line_ranges() -> None:
    text = "".join(f"line {n:04d} {'x' * (n % 70)}\n" for n in range(600))
    windows = fixed_windows(text, size=6000, overlap=800)
    assert len(windows) > 4
    starts = []
    offset = 0
    for window in windows:
        assert len(window.text) <= 6000
        assert window.kind == "window"
        found = text.find(window.text, max(offset - 1000, 0))
        assert found >= 0
        starts.append(found)
        assert text.count("\n", 0, found) + 1 == window.line_start
        assert window.line_end == window.line_start + window.text.count("\n")
        # Cut at line ends: each window is whole lines.
        assert found == 0 or text[found - 1] == "\n"
        assert text[found + len(window.text)] == "\n"
        offset = found + len(window.text)
    for before, before_start, start in zip(windows, starts, starts[1:], strict=False):
        overlap = before_start + len(before.text) + 1 - start
        assert 700 <= overlap <= 800 + 80, overlap  # about `overlap`, moved to a line start
    assert windows[-1].line_end == 600


def test_fixed_windows_cut_a_text_without_newlines_at_the_size() -> None:
    windows = fixed_windows("z" * 15000, size=6000, overlap=800)
    assert [len(w.text) for w in windows] == [6000, 6000, 4600]
    assert all(w.line_start == w.line_end == 1 for w in windows)


def test_fixed_windows_refuse_an_overlap_as_large_as_the_window() -> None:
    with pytest.raises(ValueError, match="overlap"):
        fixed_windows("text", size=800, overlap=800)


def test_a_missing_grammar_package_gives_line_windows(tmp_path: Path) -> None:
    # The grammar cache is per process, so the package is hidden in a process of its own.
    script = (
        "import sys\n"
        "sys.modules['tree_sitter_go'] = None  # as if the package were not installed\n"
        "from atlas_core.code import chunk_code\n"
        "chunking = chunk_code('package main\\n\\nfunc main() {}\\n', 'go', fits=lambda t: True)\n"
        "print(chunking.fallback)\n"
        "print([(p.kind, p.line_start, p.line_end) for p in chunking.pieces])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.splitlines() == ["no grammar for go", "[('window', 1, 3)]"]


def test_a_yaml_list_at_the_top_is_module_code() -> None:
    text = "- name: install\n  apt: pkg\n- name: run\n  shell: echo hi\n"
    fits = budget(30)
    chunking = chunk_code(text, "yaml", fits=fits)
    assert chunking.fallback == ""
    assert [(p.kind, p.line_start, p.line_end) for p in chunking.pieces] == [
        ("module", 1, 2),
        ("module", 3, 4),
    ]


def test_a_parse_over_its_time_budget_falls_back_and_the_next_parse_works(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No real file is slow enough to parse in a test, so the budget is set to nothing instead.
    text = "".join(f"def handler_{n}(event):\n    return event[{n}]\n\n" for n in range(3000))
    fits = budget(500)
    monkeypatch.setattr(grammars, "PARSE_BUDGET_S", 0.0)
    chunking = chunk_code(text, "python", fits=fits)
    assert chunking.fallback == "tree-sitter failed: parsing ran over 0 s"
    assert {p.kind for p in chunking.pieces} == {"window"}
    assert_well_formed(text, chunking.pieces, fits)
    monkeypatch.undo()
    chunking = chunk_code(text, "python", fits=fits)
    assert chunking.fallback == ""
    assert [p.symbol for p in chunking.pieces] == [f"handler_{n}" for n in range(3000)]


def test_fixed_windows_count_lines_of_crlf_text() -> None:
    text = "".join(f"row {n}\r\n\r\n" for n in range(900))
    windows = fixed_windows(text, size=1000, overlap=100)
    lines = text.split("\n")
    for window in windows:
        assert not window.text.endswith(("\n", "\r"))
        assert window.line_end == window.line_start + window.text.count("\n")
        assert lines[window.line_end - 1].rstrip("\r") == window.text.split("\n")[-1].rstrip("\r")
