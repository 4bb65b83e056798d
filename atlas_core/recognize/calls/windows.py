"""Windows of a long file: the top-level statement a line is in and the module's assignments.

A call's reading depends on its own top-level statement (a function, a class with its base URL
and wrapper methods) and on the module's top-level assignments and imports (``BASE = ...``,
``const api = axios.create(...)``); `scan.ScanCache` already relies on it. A window keeps those
lines and blanks every other one, so line numbers and columns hold and parsing a window of a
10,000-line file costs what parsing one function does.

A string in a top-level assignment is read as the URL of the call it reaches, so an
assignment's window also holds the statements that use the name it assigns (`Outline.needs`).

Files over `WINDOWED_LINES` lines in a language with top-level statements found by their first
column (Python, JavaScript, TypeScript) are read through windows only: the call reader keeps no
syntax tree of the whole file (a 10,000-line client's tree takes ~22 MB), a hover parses the
cursor's window, and a whole-file scan parses windows of about `scan.WINDOW_SCAN_LINES` lines,
one at a time. Every read and scan gives what a whole-file tree gives
(tests/recognize/test_call_windows.py checks it on the client corpus).
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate, islice

from atlas_core.syntax import MAX_PARSE_BYTES

# A document of more lines is read through windows only (see the module docstring).
WINDOWED_LINES = 3000
MIN_WINDOW_LINES = 400  # shorter texts are probed whole

# First characters of a line that does not start a top-level statement (indented, a closing
# bracket, a comment), and the start of one that gives a module-level name a value.
_NOT_TOP = frozenset(" \t\r\f)]}#/*")  # "\r": a blank line of a file saved with CRLF
_MODULE_VALUE = {
    "python": re.compile(
        r"^(?:import\s|from\s|[A-Za-z_][\w.]*[ \t]*(?::[^=\n]*)?=[^=])", re.MULTILINE
    ),
    "javascript": re.compile(r"^(?:import\s|(?:export\s+)?(?:const|let|var)\s)", re.MULTILINE),
    "typescript": re.compile(r"^(?:import\s|(?:export\s+)?(?:const|let|var)\s)", re.MULTILINE),
}


def is_windowed(language: str, text: str) -> bool:
    """Whether a document is read through windows only: long, in a language that has them, not
    past `MAX_PARSE_BYTES` (a bigger one is never parsed: it is read as text), and with at most
    `MAX_WINDOWED_VALUES` top-level assignments (every window shows them all; a file of
    thousands of constants keeps its whole tree instead)."""
    values = _MODULE_VALUE.get(language)
    if values is None or len(text) > MAX_PARSE_BYTES or text.count("\n") < WINDOWED_LINES:
        return False

    def find() -> Outline | None:
        # Counted in C first: a file of many assignments is told apart without an outline.
        count = sum(1 for _ in islice(values.finditer(text), MAX_WINDOWED_VALUES + 1))
        return None if count > MAX_WINDOWED_VALUES else Outline(text, language)

    outline = _known(text, language, find)
    return outline is not None and outline.is_windowed


# What was found out about the last few texts asked about (newest last): an `Outline`, or None
# for a text of too many assignments. A server asks about the same open document's text on every
# hover and scan until it changes.
_KNOWN: list[tuple[str, str, Outline | None]] = []
_KNOWN_KEPT = 4
_KNOWN_LOCK = threading.Lock()


def _known(text: str, language: str, find: Callable[[], Outline | None]) -> Outline | None:
    with _KNOWN_LOCK:
        for known, of, outline in _KNOWN:
            if known is text and of == language:
                return outline
    outline = find()
    with _KNOWN_LOCK:
        _KNOWN.append((text, language, outline))
        del _KNOWN[:-_KNOWN_KEPT]
    return outline


def outline_of(text: str, language: str) -> Outline:
    """The `Outline` of `text` (a text `is_windowed` took), kept for the last few texts."""
    outline = _known(text, language, lambda: Outline(text, language))
    return outline if outline is not None else Outline(text, language)


def is_top(row: str) -> bool:
    """Whether a line starts a top-level statement (a closing bracket at column 0 continues
    one, a comment is none)."""
    return bool(row) and row[0] not in _NOT_TOP


# Strings that may run over several lines, whose lines at column 0 start no statement.
_LONG_STRINGS = {
    "python": re.compile(r'"""|\'\'\''),
    "javascript": re.compile(r"`"),
    "typescript": re.compile(r"`"),
}


def top_lines(lines: list[str], language: str, text: str | None = None) -> list[bool]:
    """Per line, whether it starts a top-level statement: `is_top`, and not inside a string
    that runs over lines (a triple-quoted SQL text or template literal written at column 0)."""
    delimiters = _LONG_STRINGS.get(language)
    out = [is_top(row) for row in lines]
    if delimiters is None or not delimiters.search(text if text is not None else "\n".join(lines)):
        return out
    inside = ""  # the delimiter of the string a line is in, "" outside
    for n, row in enumerate(lines):
        if inside:
            out[n] = False
        for m in delimiters.finditer(row):
            if not inside:
                inside = m.group()
            elif m.group() == inside:
                inside = ""
    return out


def statement_end(lines: list[str], line: int, tops: list[bool] | None = None) -> int:
    """The line after the top-level statement that `line` is in or starts."""
    end = line + 1
    while end < len(lines) and not (tops[end] if tops is not None else is_top(lines[end])):
        end += 1
    return end


def statement_start(lines: list[str], line: int, tops: list[bool] | None = None) -> int:
    """The first line of the top-level statement `line` is in, its decorators included."""
    start = line
    while start > 0 and not (tops[start] if tops is not None else is_top(lines[start])):
        start -= 1
    while start > 0 and lines[start - 1].startswith("@"):
        start -= 1  # a decorator belongs to the definition under it
    return start


def module_values(
    lines: list[str], language: str, text: str = "", tops: list[bool] | None = None
) -> list[tuple[int, int]]:
    """The (first line, end line) of each top-level assignment and import."""
    values = _MODULE_VALUE.get(language)
    if values is None:
        return []
    text = text or "\n".join(lines)
    out: list[tuple[int, int]] = []
    top, counted = 0, 0
    for m in values.finditer(text):  # the few assignment and import lines, found in C
        top += text.count("\n", counted, m.start())
        counted = m.start()
        if tops is None or tops[top]:
            out.append((top, statement_end(lines, top, tops)))
    return out


def statements(lines: list[str], tops: list[bool] | None = None) -> list[tuple[int, int]]:
    """The (first line, end line) of every top-level statement, decorators with the definition
    under them; lines before the first one (comments, blanks) belong to none."""
    tops = tops if tops is not None else [is_top(row) for row in lines]
    out: list[tuple[int, int]] = []
    line = 0
    while line < len(lines):
        if not tops[line]:
            line += 1
            continue
        start = line
        while line < len(lines) and lines[line].startswith("@"):
            line += 1
        end = statement_end(lines, line, tops) if line < len(lines) else line
        out.append((start, end))
        line = end
    return out


def window(lines: list[str], keep: list[tuple[int, int]]) -> list[str]:
    """`lines` with only the (first, end) ranges of `keep` left; every other line blank."""
    out = [""] * len(lines)
    for start, end in keep:
        out[start:end] = lines[start:end]
    return out


# The name a top-level assignment gives a value (its first one), per language.
_ASSIGNED = {
    "python": re.compile(r"([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[^=]"),
    "javascript": re.compile(r"(?:export[ \t]+)?(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)"),
    "typescript": re.compile(r"(?:export[ \t]+)?(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)"),
}
# The readers look at this many later uses of an assigned name (`TreeReader.named_nodes`).
MAX_USES = 64
MAX_WINDOWED_VALUES = 500  # top-level assignments a windowed file may have (see `is_windowed`)
MAX_CHAIN = 3  # assignments followed through other assignments (HOST -> BASE -> the call)


class Outline:
    """A long text's top-level statements, its assignments, and where each assigned name is
    used: what a window for any statement must hold for it to read as in the whole file."""

    def __init__(self, text: str, language: str) -> None:
        self.text = text
        self.language = language
        self.lines = text.split("\n")
        self.tops = top_lines(self.lines, language, text)
        self.statements = statements(self.lines, self.tops)
        self.values = module_values(self.lines, language, text, self.tops)
        self._value_at = {start: end for start, end in self.values}
        self._line_starts: list[int] = []
        self._firsts = [first for first, _ in self.statements]
        self._uses: dict[int, list[tuple[int, int]]] = {}
        self._needs: dict[int, list[tuple[int, int]]] = {}
        self.is_windowed = len(self.values) <= MAX_WINDOWED_VALUES

    def is_value(self, start: int) -> bool:
        """Whether the statement starting at line `start` is a top-level assignment or import."""
        return start in self._value_at

    def body(self, start: int, end: int) -> bytes:
        return "\n".join(self.lines[start:end]).encode("utf-8", "surrogatepass")

    def context(self) -> bytes:
        """The text of every assignment and import, which every statement's reading may use."""
        return b"\0".join(self.body(start, end) for start, end in self.values)

    def uses(self, start: int, end: int) -> list[tuple[int, int]]:
        """For the assignment at lines [start, end): the later statements that use the name it
        assigns, at most `MAX_USES` (a string in it is read as the URL of the call it reaches)."""
        known = self._uses.get(start)
        if known is None:
            known = self._uses[start] = self._find_uses(start, end)
        return known

    def _find_uses(self, start: int, end: int) -> list[tuple[int, int]]:
        assigned = _ASSIGNED.get(self.language)
        m = assigned.match(self.lines[start]) if assigned is not None else None
        if m is None:
            return []
        word = re.compile(rf"(?<![\w$]){re.escape(m.group(1))}(?![\w$])")
        if not self._line_starts:
            self._line_starts = [0, *accumulate(len(row) + 1 for row in self.lines)]
        starts, firsts = self._line_starts, self._firsts
        out: list[tuple[int, int]] = []
        position = starts[end] if end < len(self.lines) else len(self.text)
        while len(out) < MAX_USES:
            found = word.search(self.text, position)
            if found is None:
                break
            line = bisect_right(starts, found.start()) - 1
            index = bisect_right(firsts, line) - 1
            statement = self.statements[index] if index >= 0 else (line, line + 1)
            if index >= 0 and line < statement[1]:
                out.append(statement)
            else:  # between statements (a comment): no use
                statement = (line, line + 1)
            after = statement[1]
            position = starts[after] if after < len(self.lines) else len(self.text)
        return out

    def needs(self, start: int, end: int) -> list[tuple[int, int]]:
        """The statements besides the assignments that reading the statement at [start, end)
        looks into: for an assignment, the statements using its name, and for those that are
        assignments themselves, the statements using theirs (``BASE = f"{HOST}/rest/2.0"``),
        up to `MAX_CHAIN` links."""
        if not self.is_value(start):
            return []
        known = self._needs.get(start)
        if known is not None:
            return known
        out: dict[tuple[int, int], None] = {}
        frontier = [(start, end)]
        for _ in range(MAX_CHAIN):
            found = [u for s, e in frontier for u in self.uses(s, e) if u not in out]
            out.update(dict.fromkeys(found))
            frontier = list(dict.fromkeys(u for u in found if self.is_value(u[0])))
            if not frontier:
                break
        self._needs[start] = list(out)
        return self._needs[start]

    def window_for(self, start: int, end: int) -> list[str]:
        """The lines a read inside the statement at [start, end) needs; every other one blank."""
        return window(self.lines, [(start, end), *self.values, *self.needs(start, end)])

    def statement_of(self, line: int) -> tuple[int, int]:
        """The top-level statement `line` is in (first line, end line), as `statements` has it:
        a decorator's line is in the definition under it."""
        index = bisect_right(self._firsts, line) - 1
        if index >= 0 and line < self.statements[index][1]:
            return self.statements[index]
        start = statement_start(self.lines, line, self.tops)  # a comment between statements
        return start, statement_end(self.lines, line, self.tops)


def probe_window(lines: list[str], line: int, language: str, text: str = "") -> list[str]:
    """The lines a probe needs: the top-level statement the cursor is in and the module's
    assignments and imports, each with the lines that continue it; every other line blank."""
    if len(lines) < MIN_WINDOW_LINES or language not in _MODULE_VALUE:
        return lines
    start = statement_start(lines, line)
    return window(
        lines, [(start, statement_end(lines, line)), *module_values(lines, language, text)]
    )
