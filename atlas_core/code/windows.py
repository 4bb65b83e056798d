"""Chunking text without a grammar: whole-line windows within the embedding budget (the fallback
of `chunk_code`), and the fixed character windows of plain codebase RAG (the evaluation's
baseline)."""

from __future__ import annotations

from atlas_core.code.pieces import CodePiece, Fits, Lines, cut_line


def line_windows(text: str, *, fits: Fits) -> list[CodePiece]:
    """`text` in runs of whole lines, each as long as `fits` allows; no line in two windows, blank
    lines at a window's edges left out, a line too long for any window cut in characters."""
    lines = Lines(text)
    pieces: list[CodePiece] = []
    line = 0
    while line < len(lines):
        span = lines.trimmed(line, len(lines) - 1)
        if span is None:
            break
        start = span[0]
        end = _last_fitting(lines, start, fits)
        if end < start:
            for stretch in cut_line(lines.lines[start], fits):
                pieces.append(CodePiece(stretch, start + 1, start + 1, "", "window", ""))
            line = start + 1
            continue
        trimmed = lines.trimmed(start, end)
        assert trimmed is not None
        pieces.append(
            CodePiece(lines.text(*trimmed), trimmed[0] + 1, trimmed[1] + 1, "", "window", "")
        )
        line = end + 1
    return pieces


def _last_fitting(lines: Lines, start: int, fits: Fits) -> int:
    """The last line of the longest window from `start` that fits (`start - 1` when not even line
    `start` does): doubling the window, then bisecting, so each window costs a few `fits` calls."""
    last = len(lines) - 1
    good, bad = start - 1, last + 1
    size = 1
    while start + size - 1 <= last:
        if fits(lines.text(start, start + size - 1)):
            good = start + size - 1
            size *= 2
        else:
            bad = start + size - 1
            break
    if bad > last and good < last and fits(lines.text(start, last)):
        return last
    while bad - good > 1:
        middle = (good + bad) // 2
        if fits(lines.text(start, middle)):
            good = middle
        else:
            bad = middle
    return good


def fixed_windows(text: str, *, size: int = 6000, overlap: int = 800) -> list[CodePiece]:
    """Windows of `size` characters, each starting `overlap` characters before the last one
    ended; a window ends after a newline (and starts after one) where one falls in its second
    half, so lines are cut only when they are longer than half a window."""
    if size <= overlap or overlap < 0:
        raise ValueError(f"fixed windows need 0 <= overlap < size, got {overlap} and {size}")
    pieces: list[CodePiece] = []
    start = 0
    length = len(text)
    while start < length:
        end = min(start + size, length)
        if end < length:
            newline = text.rfind("\n", start + size // 2, end)
            if newline >= 0:
                end = newline + 1
        window = text[start:end]
        if window.strip():
            window = window.rstrip("\r\n")
            first = text.count("\n", 0, start) + 1
            last = first + window.count("\n")
            pieces.append(CodePiece(window, first, last, "", "window", ""))
        if end >= length:
            break
        following = end - overlap
        newline = text.find("\n", following, end - 1)
        following = newline + 1 if newline >= 0 else following
        start = max(following, start + 1)
    return pieces
