"""What every chunking must hold, whatever the language: the pieces are the file's lines verbatim,
in order, each non-blank line in exactly one piece (a line longer than the budget in several,
cut in characters that join back to it), each piece within the budget."""

from __future__ import annotations

from collections.abc import Callable

from atlas_core.code import CodePiece


def budget(characters: int) -> Callable[[str], bool]:
    """A `fits` counting characters: easy to reason about in a test, as the token counter is not."""
    return lambda text: len(text) <= characters


def assert_well_formed(text: str, pieces: list[CodePiece], fits: Callable[[str], bool]) -> None:
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    seen: dict[int, list[CodePiece]] = {}
    previous_end = 0
    for piece in pieces:
        assert 1 <= piece.line_start <= piece.line_end <= len(lines), piece
        assert piece.line_start >= previous_end, f"out of order or overlapping: {piece}"
        previous_end = piece.line_end
        embedded = f"{piece.header}\n{piece.text}" if piece.header else piece.text
        assert fits(embedded), f"over budget: {piece}"
        assert piece.text.strip(), f"blank piece: {piece}"
        whole = "\n".join(lines[piece.line_start - 1 : piece.line_end])
        if piece.text != whole:
            assert piece.line_start == piece.line_end, f"not the file's lines: {piece}"
            assert piece.text in whole, piece
        for line in range(piece.line_start, piece.line_end + 1):
            seen.setdefault(line, []).append(piece)
    for number, line in enumerate(lines, start=1):
        holders = seen.get(number, [])
        if not line.strip():
            continue
        assert holders, f"line {number} is in no piece: {line!r}"
        if len(holders) > 1:
            assert all(p.line_start == p.line_end == number for p in holders), holders
            # Stretches of nothing but spaces are left out; the rest joins back into the line.
            joined = "".join(p.text for p in holders)
            assert _solid(joined) == _solid(line), f"line {number} cut wrong"


def _solid(text: str) -> str:
    return "".join(text.split())


def lines_of(text: str, first: int, last: int) -> str:
    return "\n".join(text.split("\n")[first - 1 : last])
