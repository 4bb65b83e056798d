"""What the cursor is on inside an API call (`CallSite`), and one version of a document's text
with the offset tables the readers need (`Document`): code-point columns for the editor, UTF-8
byte offsets for tree-sitter."""

from __future__ import annotations

import bisect
import operator
import re
from dataclasses import dataclass, field
from itertools import accumulate
from urllib.parse import urljoin

HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})

# Roles a cursor can have in a call.
ENDPOINT = "endpoint"
QUERY = "query"
PATH = "path"
BODY = "body"
HEADER = "header"
BUILDER = "builder"
OPERATION = "operation"

HTTP = "http"
SDK = "sdk"

UNKNOWN = "{}"  # stands for an expression whose value the reader cannot see


@dataclass(frozen=True, slots=True)
class CallSite:
    """The cursor's place in an HTTP API call or a generated-client call.

    `url` keeps the literal parts and spells every unknown expression ``{}``
    (``https://{}/rest/2.0/assets/{}/attributes``); it is "" for generated-client calls, whose
    endpoint only the operation name tells. `name` is the key, parameter, builder method or
    client method under the cursor ("" for the endpoint itself); `start`/`end` are its columns
    (code points) on the cursor's line, or the URL literal's. `path_keys` are all keys written in
    the same params/body literal (the hovered one included), for "missing required" checks;
    `complete` says they are all its keys (one literal, no spread, no key added elsewhere), and
    `nested` that the key is inside an object that is itself a value of the body or params (an
    ``attributes`` map), not one of their own keys.
    """

    method: str
    url: str
    role: str
    name: str
    start: int
    end: int
    client: str
    language: str
    operation: str = ""
    path_keys: tuple[str, ...] = ()
    nested: bool = False
    complete: bool = False
    loose: bool = False  # a REST path in a string no recognised call takes: not a call


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


# --- URLs ------------------------------------------------------------------------------------

_UNKNOWN_RUN = re.compile(r"(?:\{\})+")


def tidy_url(url: str) -> str:
    """The endpoint without its query string, one ``{}`` for each run of unknown parts, no doubled
    slash after the host."""
    url = _UNKNOWN_RUN.sub(UNKNOWN, re.split(r"[?#]", url, maxsplit=1)[0])
    scheme, sep, rest = url.partition("://")
    if sep:
        return scheme + sep + re.sub(r"/{2,}", "/", rest)
    return re.sub(r"/{2,}", "/", url)


def join_base(base: str, path: str) -> str:
    """A client's base URL (``baseURL``, ``base_url``) in front of a request path."""
    if not base or "://" in path or path.startswith(UNKNOWN):
        return path
    if not path:
        return base
    return base.rstrip("/") + "/" + path.lstrip("/")


def url_join(base: str, other: str) -> str:
    """`urllib.parse.urljoin` over values that may hold ``{}`` placeholders."""
    if UNKNOWN in base and "://" not in base:
        # urljoin treats an unknown base as a relative path; keep both halves visible instead.
        return join_base(base, other) if not other.startswith("/") else base + other
    return urljoin(base, other)


def query_key_at(literal: str, index: int) -> tuple[int, int] | None:
    """The bounds of the ``key`` in ``?key=value&...`` that `index` is on, within `literal`."""
    if not 0 <= index <= len(literal):
        return None
    question = literal.rfind("?", 0, index)
    if question < 0:
        return None
    start = max(literal.rfind("&", 0, index), question) + 1
    end = start
    while end < len(literal) and literal[end] not in "=&#":
        end += 1
    if not start <= index <= end or end == start:
        return None
    return start, end
