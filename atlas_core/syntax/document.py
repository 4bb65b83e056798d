"""One version of a document's text with the offset tables every reader of code needs
(`Document`): code-point columns for the editor, UTF-8 byte offsets for tree-sitter."""

from __future__ import annotations

import bisect
import operator
import re
from dataclasses import dataclass, field
from itertools import accumulate


@dataclass(slots=True)
class Document:
    """One version of a text. Offset tables are built on first use and kept with the version."""

    text: str
    _data: bytes | None = None
    _char_starts: list[int] | None = None
    _byte_starts: list[int] | None = None
    _ascii: bool | None = field(default=None)

    @property
    def is_ascii(self) -> bool:
        if self._ascii is None:
            self._ascii = self.text.isascii()
        return self._ascii

    @property
    def data(self) -> bytes:
        """The text as UTF-8; lone surrogates (an editor can send them) pass through as bytes."""
        if self._data is None:
            self._data = self.text.encode("utf-8", "surrogatepass")
        return self._data

    @property
    def char_starts(self) -> list[int]:
        if self._char_starts is None:
            self._char_starts = line_starts(self.text)
        return self._char_starts

    @property
    def byte_starts(self) -> list[int]:
        if self._byte_starts is None:
            if self.is_ascii:
                self._byte_starts = self.char_starts
            else:
                self._byte_starts = [0, *(m.end() for m in re.finditer(b"\n", self.data))]
        return self._byte_starts

    @property
    def line_count(self) -> int:
        return len(self.char_starts)

    def line(self, index: int) -> str:
        starts = self.char_starts
        if not 0 <= index < len(starts):
            return ""
        end = starts[index + 1] - 1 if index + 1 < len(starts) else len(self.text)
        return self.text[starts[index] : end]

    def line_length(self, index: int) -> int:
        starts = self.char_starts
        if not 0 <= index < len(starts):
            return 0
        end = starts[index + 1] - 1 if index + 1 < len(starts) else len(self.text)
        return end - starts[index]

    def char_offset(self, line: int, column: int) -> int:
        starts = self.char_starts
        line = min(max(line, 0), len(starts) - 1)
        return starts[line] + min(max(column, 0), self.line_length(line))

    def byte_offset(self, line: int, column: int) -> int:
        """The UTF-8 offset of a (line, code-point column) position, clamped into the text."""
        if self.is_ascii:
            return self.char_offset(line, column)
        line = min(max(line, 0), len(self.char_starts) - 1)
        start = self.char_starts[line]
        column = min(max(column, 0), self.line_length(line))
        prefix = self.text[start : start + column]
        return self.byte_starts[line] + len(prefix.encode("utf-8", "surrogatepass"))

    def position(self, byte_offset: int) -> tuple[int, int]:
        """(line, code-point column) of a UTF-8 offset."""
        starts = self.byte_starts
        line = max(bisect.bisect_right(starts, byte_offset) - 1, 0)
        if self.is_ascii:
            return line, byte_offset - starts[line]
        chunk = self.data[starts[line] : byte_offset]
        return line, len(chunk.decode("utf-8", "replace"))

    def columns_on_line(self, start_byte: int, end_byte: int, line: int) -> tuple[int, int]:
        """The columns a byte range covers on `line`, clipped to that line."""
        first_line, first_col = self.position(start_byte)
        last_line, last_col = self.position(end_byte)
        start = first_col if first_line == line else 0
        end = last_col if last_line == line else self.line_length(line)
        return start, max(start, end)

    def text_between(self, start_byte: int, end_byte: int) -> str:
        if self.is_ascii:
            return self.text[start_byte:end_byte]
        return self.data[start_byte:end_byte].decode("utf-8", "replace")


def line_starts(text: str) -> list[int]:
    """The offset where each line of `text` starts, computed at C speed: line i starts after
    the lengths of the lines before it and their i newlines."""
    parts = text.split("\n")
    return list(map(operator.add, accumulate(map(len, parts), initial=0), range(len(parts))))
