"""Putting a cursor on a piece of code by naming it, and reading the call there."""

from __future__ import annotations

from pathlib import Path

from atlas_core.recognize.calls import CallSite, call_at

ROOT = Path(__file__).resolve().parents[2]


def position_of(code: str, needle: str, occurrence: int = 1, into: int = 1) -> tuple[int, int]:
    """(line, column) `into` characters inside the `occurrence`-th `needle` in `code`."""
    index = -1
    for _ in range(occurrence):
        index = code.index(needle, index + 1)
    index += into
    line = code.count("\n", 0, index)
    return line, index - (code.rfind("\n", 0, index) + 1)


def line_with(code: str, needle: str) -> str:
    """The first line of `code` holding `needle`, to check the columns an answer gives."""
    return next(line for line in code.splitlines() if needle in line)


def read(
    code: str, language: str, needle: str, occurrence: int = 1, into: int = 1
) -> CallSite | None:
    """The call site with the cursor `into` characters inside `needle`, read with no cache."""
    line, column = position_of(code, needle, occurrence, into)
    return call_at(code, language, line, column)
