"""Go's ``net/http`` calls, read as text: ``http.NewRequest("POST", url, body)`` (and
``NewRequestWithContext``), ``http.Get/Post/PostForm/Head(url, ...)`` and the same methods of an
``http.Client`` variable.

The URL argument is rebuilt through ``+``, ``fmt.Sprintf`` and the names it reads, back to their
``:=``/``=``/``var``/``const`` assignments (in the function, or at package level); a function
parameter, a struct field or any other call is a value the reader cannot see (``{}``). A name
reassigned with ``+=`` on the way is not followed: its value depends on the path taken.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

from atlas_core.recognize.calls.go_builders import Builder, bound_argument, builder_value
from atlas_core.recognize.calls.go_keys import request_keys
from atlas_core.recognize.calls.site import HTTP_VERBS, CallSite, tidy_url
from atlas_core.recognize.calls.text_calls import (
    UNKNOWN_PART,
    Lines,
    Part,
    joined,
    outside_strings,
    url_sites,
)
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.syntax import Document

_CALL = re.compile(
    r"\b([A-Za-z_]\w*)\.(NewRequestWithContext|NewRequest|Get|Post|PostForm|Head)\s*\("
)
_FIXED = {"Get": "GET", "Post": "POST", "PostForm": "POST", "Head": "HEAD"}
_IDENT = re.compile(r"[A-Za-z_]\w*")
_VERB = re.compile(r"%(?:\[\d+\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z%])")
_PASS_THROUGH = frozenset({"strings.TrimSuffix", "strings.TrimRight", "strings.TrimSpace"})
_MAX_ARGS_CHARS = 8000
_MAX_BACK_LINES = 3000  # how far up a function a name's assignment is looked for


def _assignment(name: str) -> str:
    """``name := ``, ``name = ``, ``var name T = ``, ``const name = ``: up to the value."""
    # `b, err := json.Marshal(..)`: the first of several names is given the call's value
    return (
        rf"(?:var\s+|const\s+)?{re.escape(name)}(?:\s*,\s*[A-Za-z_]\w*)*"
        rf"(?:\s+[\w.*\[\]]+)?\s*(?::=|=)(?!=)\s*"
    )


def go_calls(
    document: Document, deadline: float, first: int, last: int
) -> Iterator[tuple[int, CallSite]]:
    reader = _GoReader(document.text)
    lines = reader.lines
    start, end = lines.offset(first), lines.offset(last) if last < document.line_count else None
    for m in _CALL.finditer(reader.text, start, end if end is not None else len(reader.text)):
        if time.monotonic() > deadline:
            return
        if reader.in_comment(m.start()):
            continue
        found = reader.request(m)
        if found is not None:
            method, parts, body = found
            yield from url_sites(lines, method, parts, "go")
            if any(p.span is not None and "/" in p.text for p in parts):
                url = tidy_url(joined(parts))
                yield from request_keys(reader, m, method, url, body)


class _GoReader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = Lines(text)
        self._package: dict[str, tuple[int, int] | None] = {}
        # ``q.Encode()`` calls read in the URL being rebuilt: (the name, its offset)
        self.encoded: list[tuple[str, int]] = []
        # the file's own URL-building functions (`go_builders`): read once each, the arguments
        # of the calls being read, innermost last, and the functions being read
        self.builders: dict[str, Builder | None] = {}
        self.bound: list[dict[str, tuple[int, int]]] = []
        self.evaluating: list[str] = []

    def in_comment(self, at: int) -> bool:
        line, _ = self.lines.position(at)
        before = self.text[self.lines.offset(line) : at]
        cut = before.find("//")
        return cut >= 0 and before.count('"', 0, cut) % 2 == 0

    def request(self, m: re.Match[str]) -> tuple[str, list[Part], tuple[int, int] | None] | None:
        """The method, the URL and the body argument's span of the call `m` matched."""
        receiver, function = m.group(1), m.group(2)
        self.encoded = []
        args = self.arguments(m.end() - 1)
        if args is None:
            return None
        if receiver != "http" and not self.is_client(receiver, m.start()):
            return None
        if function.startswith("NewRequest"):
            args = args[1:] if function == "NewRequestWithContext" else args
            if len(args) < 2:
                return None
            method = self.method(*args[0])
            url, body = args[1], args[2] if len(args) > 2 else None
        else:
            if not args:
                return None
            method, url = _FIXED[function], args[0]
            body = args[2] if function == "Post" and len(args) > 2 else None
        return method, self.value(*url, 0), body

    def is_client(self, name: str, at: int) -> bool:
        """Whether `name` holds an ``http.Client`` (``&http.Client{...}``, ``http.DefaultClient``)."""
        if name == "DefaultClient":
            return True
        found = self.definition(name, at)
        if found is None:
            return False
        value = self.text[found[0] : found[1]]
        return "http.Client" in value or "http.DefaultClient" in value

    def method(self, start: int, end: int) -> str:
        expr = self.text[start:end].strip()
        if expr.startswith("http.Method"):
            return expr.removeprefix("http.Method").upper()
        value = "".join(p.text for p in self.value(start, end, 0))
        return value.upper() if value.lower() in HTTP_VERBS else ""

    # --- values --------------------------------------------------------------------------------

    def value(self, start: int, end: int, depth: int) -> list[Part]:
        text = self.text
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if depth > MAX_DEPTH or start >= end:
            return [UNKNOWN_PART]
        terms = self.split(start, end, "+")
        if len(terms) > 1:
            return [part for term in terms for part in self.value(*term, depth + 1)]
        first, last = text[start], text[end - 1]
        if first in '"`' and last == first and self.string_end(start) == end:
            return [Part(text[start + 1 : end - 1], (start + 1, end - 1))]
        if first == "(" and self.closing(start) == end - 1:
            return self.value(start + 1, end - 1, depth + 1)
        call = re.match(r"([A-Za-z_][\w.]*)\s*\(", text[start:end])
        if call is not None and self.closing(start + call.end() - 1) == end - 1:
            args = self.arguments(start + call.end() - 1) or []
            if call.group(1) == "fmt.Sprintf" and args:
                return self.sprintf(args, depth)
            if call.group(1) in _PASS_THROUGH and args:
                return self.value(*args[0], depth + 1)
            built = (
                builder_value(self, call.group(1), args, depth)
                if "." not in call.group(1)
                else None
            )
            if built is not None:
                return built  # `buildURL("/rest/2.0/assets", params)`
            values = call.group(1).removesuffix(".Encode")
            if not args and values != call.group(1) and _IDENT.fullmatch(values):
                self.encoded.append((values, start))  # `base + "/assets?" + q.Encode()`
            return [UNKNOWN_PART]
        if _IDENT.fullmatch(text, start, end):
            passed = bound_argument(self, text[start:end], depth)
            if passed is not None:
                return passed  # a builder's parameter: what its call passes
            found = self.definition(text[start:end], start)
            return self.value(*found, depth + 1) if found is not None else [UNKNOWN_PART]
        return [UNKNOWN_PART]

    def sprintf(self, args: list[tuple[int, int]], depth: int) -> list[Part]:
        form = self.value(*args[0], depth + 1)
        if len(form) != 1 or form[0].span is None:
            return [UNKNOWN_PART]
        literal = form[0]
        parts: list[Part] = []
        rest = iter(args[1:])
        position = 0
        for m in _VERB.finditer(literal.text):
            parts.append(Part(literal.text[position : m.start()], literal.span))
            position = m.end()
            if m.group(1) == "%":
                parts.append(Part("%", literal.span))
                continue
            arg = next(rest, None)
            parts.extend(self.value(*arg, depth + 1) if arg is not None else [UNKNOWN_PART])
        parts.append(Part(literal.text[position:], literal.span))
        return [p for p in parts if p.text]

    def definition(self, name: str, at: int) -> tuple[int, int] | None:
        """The expression last assigned to `name` before `at` in the same function (on its line
        too: ``u := b + "/x"; http.Get(u)``), else at package level (column 0, or inside a
        ``const (``/``var (`` block)."""
        pattern = _assignment(name)
        line, _ = self.lines.position(at)
        begin = self.lines.offset(line)
        same_line = None
        for m in re.finditer(rf"(?:^|[;{{])\s*{pattern}", self.text[begin:at]):
            same_line = begin + m.end()
        if same_line is not None:
            return same_line, self.expression_end(same_line)
        assign = re.compile(rf"^(\s*){pattern}")
        grown = re.compile(rf"^\s*{re.escape(name)}\s*\+=")
        parameter = re.compile(rf"[(,]\s*{re.escape(name)}\b")
        text = self.text
        for number in range(line - 1, max(line - _MAX_BACK_LINES, -1), -1):
            begin = self.lines.offset(number)
            end = text.find("\n", begin)
            content = text[begin : end if end >= 0 else len(text)]
            if content.startswith("func"):
                if parameter.search(content):
                    return None  # a parameter: its value is the caller's
                break
            if name not in content:
                continue  # most lines: one substring test
            if grown.match(content):
                return None
            m = assign.match(content)
            if m is not None and m.group(1):
                value_start = begin + m.end()
                return value_start, self.expression_end(value_start)
        return self.package_level(name)

    def package_level(self, name: str) -> tuple[int, int] | None:
        """Where a package-level `name` is given its value (once per name: a package-level
        name is declared once, wherever in the file)."""
        if name in self._package:
            return self._package[name]
        found = None
        assign = re.compile(rf"^(\s*){_assignment(name)}")
        in_block = False
        for begin in self.lines.starts:
            end = self.text.find("\n", begin)
            content = self.text[begin : end if end >= 0 else len(self.text)]
            if content.startswith(("const", "var", ")")):
                in_block = bool(re.match(r"(?:const|var)\s*\(", content))
            if name not in content:
                continue
            m = assign.match(content)
            if m is not None and (not m.group(1) or in_block):
                found = (begin + m.end(), self.expression_end(begin + m.end()))
                break
        self._package[name] = found
        return found

    # --- text ------------------------------------------------------------------------------

    def string_end(self, at: int) -> int:
        """The offset just past the string literal (or rune) starting at `at`."""
        text, quote = self.text, self.text[at]
        i = at + 1
        while i < len(text):
            ch = text[i]
            if ch == quote:
                return i + 1
            if ch == "\\" and quote != "`":
                i += 1
            elif ch == "\n" and quote != "`":
                return i
            i += 1
        return len(text)

    def _walk(self, start: int, end: int) -> Iterator[tuple[int, str, int]]:
        return outside_strings(self.text, start, end, "\"`'", self.string_end)

    def closing(self, at: int) -> int:
        """The offset of the bracket closing the one at `at`, or -1."""
        limit = min(len(self.text), at + _MAX_ARGS_CHARS)
        for i, ch, depth in self._walk(at, limit):
            if ch in ")]}" and depth == 0:
                return i
        return -1

    def split(self, start: int, end: int, separator: str) -> list[tuple[int, int]]:
        """`[start, end)` cut at `separator` outside brackets and strings."""
        pieces, last = [], start
        for i, ch, depth in self._walk(start, end):
            if ch == separator and depth == 0:
                pieces.append((last, i))
                last = i + 1
        pieces.append((last, end))
        return pieces

    def arguments(self, paren: int) -> list[tuple[int, int]] | None:
        close = self.closing(paren)
        if close < 0:
            return None
        if not self.text[paren + 1 : close].strip():
            return []
        return self.split(paren + 1, close, ",")

    def expression_end(self, start: int) -> int:
        """Where an expression starting at `start` ends: the end of its line, past brackets
        and strings that stay open, and past a line ending in a binary operator."""
        text = self.text
        limit = min(len(text), start + _MAX_ARGS_CHARS)
        for i, ch, depth in self._walk(start, limit):
            if (
                depth <= 0
                and (ch in "\n;" or text.startswith("//", i))
                and (ch != "\n" or not text[start:i].rstrip().endswith(("+", ",")))
            ):
                return i
        return limit
