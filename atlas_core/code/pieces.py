"""What chunking a source file gives: `CodePiece`s, each a run of whole lines (or, for one line
longer than the embedding budget, a stretch of it), and the file's lines they are cut from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Tree

    from atlas_core.syntax import Document

Fits = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class CodePiece:
    text: str  # the piece's lines verbatim from the file, joined with "\n"
    line_start: int  # 1-based, inclusive
    line_end: int  # 1-based, inclusive
    symbol: str  # the definition's own name; "" for module code and windows
    kind: str  # function|method|class|interface|enum|type|module|key|window
    parent: str  # dotted enclosing symbols ("Session", "A.B"); "" at the top
    header: str = ""  # a split definition's signature, on its 2nd.. part: context to embed with
    part: int = 0  # 0: the whole definition; 1, 2, ...: parts of a long one

    def embedded_text(self) -> str:
        """The text to embed: the part with its definition's signature above it."""
        return f"{self.header}\n{self.text}" if self.header else self.text


@dataclass(frozen=True, slots=True)
class CodeChunking:
    pieces: list[CodePiece]
    fallback: str = ""  # "" when the grammar chunked the file; else why it went in line windows
    # The document and syntax tree the pieces were cut from, when the file was parsed: a
    # reader of the same file in the same language (the call scan) need not parse it again.
    parsed: tuple[Document, Tree] | None = None


class Lines:
    """A file's lines as the chunker counts them: split at "\\n" only (as tree-sitter counts rows),
    a carriage return before it dropped, so CRLF files give the same pieces as LF ones."""

    def __init__(self, text: str) -> None:
        self.lines = [line.removesuffix("\r") for line in text.split("\n")]
        self.blank = [not line.strip() for line in self.lines]

    def __len__(self) -> int:
        return len(self.lines)

    def trimmed(self, start: int, end: int) -> tuple[int, int] | None:
        """Lines `start`..`end` (0-based, inclusive) without the blank ones at either end; None
        when all are blank."""
        while start <= end and self.blank[start]:
            start += 1
        while end >= start and self.blank[end]:
            end -= 1
        return (start, end) if start <= end else None

    def text(self, start: int, end: int) -> str:
        return "\n".join(self.lines[start : end + 1])


def with_header(header: str, text: str) -> str:
    return f"{header}\n{text}" if header else text


def cut_line(line: str, fits: Fits, first_header: str = "", header: str = "") -> list[str]:
    """`line` (too long for one piece) cut into stretches that each fit: the first with
    `first_header` above it, the others with `header`; at a space where one falls in the second
    half of a stretch. A budget too small for even one character still gets one per stretch;
    stretches of spaces alone are left out."""
    stretches: list[str] = []
    rest = line
    top = first_header
    while rest:
        length = _longest_fitting(rest, lambda prefix, top=top: fits(with_header(top, prefix)))
        if length < len(rest):
            space = rest.rfind(" ", length // 2, length)
            length = space + 1 if space > 0 else length
        stretches.append(rest[:length])
        rest = rest[length:]
        top = header
    return [stretch for stretch in stretches if stretch.strip()]  # spaces alone say nothing


def _longest_fitting(text: str, fits: Fits) -> int:
    """The length of the longest prefix of `text` that fits (at least 1): doubling from 64
    characters, then bisecting, so a megabyte-long line costs a few dozen calls per stretch."""
    good, bad = 0, 0
    length = 64
    while length < len(text):
        if not fits(text[:length]):
            bad = length
            break
        good = length
        length *= 2
    if not bad:
        if fits(text):
            return len(text)
        bad = len(text)
    while bad - good > 1:
        middle = (good + bad) // 2
        if fits(text[:middle]):
            good = middle
        else:
            bad = middle
    return max(good, 1)
