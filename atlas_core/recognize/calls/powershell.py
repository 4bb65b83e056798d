"""PowerShell's web cmdlets, read as text: ``Invoke-RestMethod``/``Invoke-WebRequest`` (and
``irm``/``iwr``) with ``-Uri``, ``-Method`` and ``-Body``, written over lines joined by a trailing
backtick, or splatted from a hashtable (``Invoke-RestMethod @params``).

The URL is rebuilt through expandable strings (``"$base/rest/2.0/assets"``, ``"$($cfg)"``), ``+``,
the ``-f`` format operator and ``$name = ...`` assignments above the call; a function parameter or
anything computed (``-replace``, a property, a command) is a value the reader cannot see (``{}``).
A body's keys are those of the hashtable it is made from (``-Body (ConvertTo-Json @{name = ..})``,
``$body = @{..} | ConvertTo-Json``); a hashtable body of a GET is sent as its query string.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

from atlas_core.recognize.calls.site import BODY, HTTP_VERBS, QUERY, CallSite
from atlas_core.recognize.calls.text_calls import (
    UNKNOWN_PART,
    Lines,
    Part,
    joined,
    key_site,
    url_sites,
)
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.syntax import Document

_COMMAND = re.compile(r"(?<![\w$-])(Invoke-RestMethod|Invoke-WebRequest|irm|iwr)(?![\w-])", re.I)
_SWITCHES = (
    "usebasicparsing",
    "usedefaultcredentials",
    "passthru",
    "skipcertificatecheck",
    "disablekeepalive",
    "allowunencryptedauthentication",
    "skipheadervalidation",
    "noproxy",
    "resume",
    "preserveauthorizationonredirect",
    "skiphttperrorcheck",
    "followrellink",
)
_VARIABLE = re.compile(r"\$(?:\{([^}]+)\}|((?:script:|global:|local:)?[A-Za-z_]\w*))")
_SUBEXPRESSION = re.compile(r"\$\(\s*\$((?:script:|global:)?[A-Za-z_]\w*)\s*\)")
_FORMAT_HOLE = re.compile(r"\{(\d+)(?:[:,][^}]*)?\}")
_KEY = re.compile(r"""\s*(?:(["'])([^"'\n]+)\1|([A-Za-z_][\w-]*))\s*=(?!=)""")
_MAX_COMMAND_LINES = 60
_MAX_CHARS = 20_000
_MAX_BACK_LINES = 3000


def powershell_calls(
    document: Document, deadline: float, first: int, last: int
) -> Iterator[tuple[int, CallSite]]:
    reader = _Reader(document.text)
    lines = reader.lines
    end = lines.offset(last) if last < document.line_count else len(reader.text)
    for m in _COMMAND.finditer(reader.text, lines.offset(first), end):
        if time.monotonic() > deadline:
            return
        if reader.in_comment(m.start()):
            continue
        yield from reader.call(m.end())


@dataclass(slots=True)
class _Body:
    keys: list[tuple[str, int]]  # (key, offset)
    complete: bool
    json: bool


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = Lines(text)

    def in_comment(self, at: int) -> bool:
        line, _ = self.lines.position(at)
        before = self.text[self.lines.offset(line) : at]
        cut = before.find("#")
        return (cut >= 0 and before.count('"', 0, cut) % 2 == 0) or self._in_block_comment(at)

    def _in_block_comment(self, at: int) -> bool:
        opened = self.text.rfind("<#", max(0, at - _MAX_CHARS), at)
        return opened >= 0 and self.text.find("#>", opened, at) < 0

    # --- the command -----------------------------------------------------------------------

    def call(self, start: int) -> Iterator[tuple[int, CallSite]]:
        arguments = self.arguments(start)
        named: dict[str, tuple[int, int]] = {}
        positional: list[tuple[int, int]] = []
        i = 0
        while i < len(arguments):
            first, last = arguments[i]
            token = self.text[first:last]
            if token.startswith("-") and len(token) > 1 and token[1].isalpha():
                name, colon, _ = token[1:].partition(":")
                name = name.lower()
                if colon:
                    named[name] = (first + len(name) + 2, last)
                elif not any(s.startswith(name) for s in _SWITCHES) and i + 1 < len(arguments):
                    named[name] = arguments[i + 1]
                    i += 1
            elif token.startswith("@") and re.fullmatch(r"@[A-Za-z_]\w*", token):
                named.update(self.splatted(token[1:], first))
            else:
                positional.append((first, last))
            i += 1
        uri = _option(named, "uri") or (positional[0] if positional else None)
        if uri is None:
            return
        method_at = _option(named, "method")
        method = self.method(*method_at) if method_at is not None else "GET"
        parts = self.value(*uri, 0)
        yield from url_sites(self.lines, method, parts, "powershell")
        body_at = _option(named, "body")
        if body_at is None or not method:
            return
        body = self.body(*body_at, 0)
        if body is None:
            return
        role = QUERY if method == "GET" and not body.json else BODY
        keys = tuple(dict.fromkeys(k for k, _ in body.keys))
        url = joined(parts)
        for key, at in body.keys:
            yield key_site(
                self.lines,
                method,
                url,
                role,
                key,
                at,
                keys,
                "powershell",
                complete=body.complete and role == BODY,
            )

    def arguments(self, start: int) -> list[tuple[int, int]]:
        """The command's words from `start`: to the end of its line, past lines ending in a
        backtick and brackets or quotes left open."""
        text, out, i = self.text, [], start
        limit = min(len(text), start + _MAX_CHARS)
        lines = 0
        while i < limit:
            ch = text[i]
            if ch == "`" and text[i + 1 : i + 3].lstrip(" \t\r")[:1] == "\n":
                i = text.index("\n", i) + 1
                lines += 1
                continue
            if ch == "\n" or ch in ";|}" or ch == "#" or lines > _MAX_COMMAND_LINES:
                break
            if ch in " \t\r":
                i += 1
                continue
            end = self.word_end(i, limit)
            out.append((i, end))
            i = end
        return out

    def word_end(self, i: int, limit: int) -> int:
        """The end of the word starting at `i`: strings and brackets are parts of it."""
        text, depth = self.text, 0
        while i < limit:
            ch = text[i]
            if ch in "\"'":
                i = self.string_end(i)
                continue
            if ch == "`":
                i += 2
                continue
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                if depth == 0:
                    return i
                depth -= 1
            elif depth == 0 and ch in " \t\r\n;|":
                return i
            i += 1
        return i

    def string_end(self, at: int) -> int:
        text, quote, i = self.text, self.text[at], at + 1
        limit = min(len(text), at + _MAX_CHARS)
        while i < limit:
            ch = text[i]
            if ch == "`" and quote == '"':
                i += 2
                continue
            if ch == quote:
                if text.startswith(quote * 2, i):
                    i += 2
                    continue
                return i + 1
            i += 1
        return limit

    def splatted(self, name: str, at: int) -> dict[str, tuple[int, int]]:
        found = self.definition(name, at)
        if found is None or not self.text.startswith("@{", found[0]):
            return {}
        out = {}
        for key, key_at, value in self.entries(found[0]):
            out[key.lower()] = value
            del key_at
        return out

    def method(self, start: int, end: int) -> str:
        token = self.text[start:end].strip("\"'")
        if token.isalpha():
            return token.upper() if token.lower() in HTTP_VERBS else ""
        value = joined(self.value(start, end, 0))
        return value.upper() if value.lower() in HTTP_VERBS else ""

    # --- values ----------------------------------------------------------------------------

    def value(self, start: int, end: int, depth: int) -> list[Part]:
        text = self.text
        start, end = self.strip(start, end)
        if depth > MAX_DEPTH or start >= end:
            return [UNKNOWN_PART]
        cast = re.match(r"\[(?:uri|string|System\.Uri)\]\s*", text[start:end], re.I)
        if cast is not None:
            return self.value(start + cast.end(), end, depth + 1)
        if text[start] == "(" and self.word_end(start, end) == end:
            return self.value(start + 1, end - 1, depth + 1)
        form = re.search(r"\s-f\s", text[start:end])
        if form is not None:
            return self.formatted(start, start + form.start(), start + form.end(), end, depth)
        terms = self.split(start, end, "+")
        if len(terms) > 1:
            return [part for term in terms for part in self.value(*term, depth + 1)]
        first = text[start]
        if first == "'" and self.string_end(start) == end:
            return [Part(text[start + 1 : end - 1], (start + 1, end - 1))]
        if first == '"' and self.string_end(start) == end:
            return self.expand(start + 1, end - 1, depth)
        name = re.fullmatch(r"\$((?:script:|global:)?[A-Za-z_]\w*)", text[start:end])
        if name is not None:
            return self.variable(name.group(1), start, depth)
        return [UNKNOWN_PART]

    def expand(self, start: int, end: int, depth: int) -> list[Part]:
        """An expandable string's pieces: its literal text, and the values of the variables
        (``$name``, ``${name}``, ``$($name)``) written in it."""
        text, parts, position = self.text, [], start
        pattern = re.compile(rf"{_SUBEXPRESSION.pattern}|{_VARIABLE.pattern}|\$\(")
        for m in pattern.finditer(text, start, end):
            if text[m.start() - 1 : m.start()] == "`":
                continue  # an escaped dollar
            parts.append(Part(text[position : m.start()], (start, end)))
            name = m.group(1) or m.group(2) or m.group(3)
            if name and not name.lower().startswith("env:"):
                parts.extend(self.variable(name, m.start(), depth))
            else:
                parts.append(UNKNOWN_PART)
            position = m.end() if name else self.word_end(m.start() + 1, end)
        parts.append(Part(text[position:end], (start, end)))
        return [p for p in parts if p.text]

    def formatted(
        self, start: int, form_end: int, args_start: int, end: int, depth: int
    ) -> list[Part]:
        form = self.value(start, form_end, depth + 1)
        if len(form) != 1 or form[0].span is None:
            return [UNKNOWN_PART]
        args = self.split(args_start, end, ",")
        literal, parts, position = form[0], [], 0
        for m in _FORMAT_HOLE.finditer(literal.text):
            parts.append(Part(literal.text[position : m.start()], literal.span))
            index = int(m.group(1))
            parts.extend(
                self.value(*args[index], depth + 1) if index < len(args) else [UNKNOWN_PART]
            )
            position = m.end()
        parts.append(Part(literal.text[position:], literal.span))
        return [p for p in parts if p.text]

    def variable(self, name: str, at: int, depth: int) -> list[Part]:
        found = self.definition(name, at)
        return self.value(*found, depth + 1) if found is not None else [UNKNOWN_PART]

    def definition(self, name: str, at: int) -> tuple[int, int] | None:
        """The expression last assigned to ``$name`` above `at`, in the same function or at the
        script's top; None for a parameter or a value changed on the way (``+=``)."""
        bare = re.escape(name.split(":", 1)[-1])
        assign = re.compile(
            rf"^\s*(?:\[[\w.\[\]]+\]\s*)?\$(?:script:|global:)?{bare}\s*=(?!=)\s*", re.I
        )
        changed = re.compile(rf"^\s*\$(?:script:|global:)?{bare}\s*[+\-*/]=", re.I)
        parameter = re.compile(rf"^\s*(?:\[[^\]]*\]\s*)*\${bare}\s*(?:[,)]|$)", re.I)
        line, _ = self.lines.position(at)
        inside = True
        for number in range(line - 1, max(line - _MAX_BACK_LINES, -1), -1):
            begin = self.lines.offset(number)
            stop = self.text.find("\n", begin)
            content = self.text[begin : stop if stop >= 0 else len(self.text)]
            if inside and (changed.match(content) or parameter.match(content)):
                return None
            if re.match(r"^\s*function\s", content, re.I):
                inside = False
                continue
            m = assign.match(content)
            if m is not None and (inside or not content[:1].isspace()):
                value_start = begin + m.end()
                return value_start, self.expression_end(value_start)
        return None

    def expression_end(self, start: int) -> int:
        """The end of an assigned expression: its line, past open brackets and backticks."""
        text, i, depth = self.text, start, 0
        limit = min(len(text), start + _MAX_CHARS)
        while i < limit:
            ch = text[i]
            if ch in "\"'":
                i = self.string_end(i)
                continue
            if ch == "`":
                i += 2
                continue
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            elif depth <= 0 and ch in "\n#;":
                return i
            i += 1
        return limit

    # --- bodies ----------------------------------------------------------------------------

    def body(self, start: int, end: int, depth: int) -> _Body | None:
        start, end = self.strip(start, end)
        if depth > MAX_DEPTH or start >= end:
            return None
        text = self.text
        if text[start] == "(" and self.word_end(start, end) == end:
            return self.body(start + 1, end - 1, depth + 1)
        if text.startswith("@{", start):
            keys = [(k, at) for k, at, _ in self.entries(start)]
            return _Body(keys, complete=bool(keys), json=False)
        piped = self.split(start, end, "|")
        if len(piped) == 2 and re.match(r"\s*ConvertTo-Json\b", text[slice(*piped[1])], re.I):
            inner = self.body(*piped[0], depth + 1)
            return _Body(inner.keys, inner.complete, json=True) if inner is not None else None
        converted = re.match(r"ConvertTo-Json\s+(?:-InputObject\s+)?", text[start:end], re.I)
        if converted is not None:
            inner = self.body(start + converted.end(), end, depth + 1)
            return _Body(inner.keys, inner.complete, json=True) if inner is not None else None
        name = re.fullmatch(r"\$((?:script:|global:)?[A-Za-z_]\w*)", text[start:end])
        if name is not None:
            found = self.definition(name.group(1), start)
            inner = self.body(*found, depth + 1) if found is not None else None
            if inner is not None and self.touched(name.group(1), found, start):
                inner.complete = False  # keys added after the literal
            return inner
        return None

    def touched(self, name: str, found: tuple[int, int] | None, use: int) -> bool:
        if found is None:
            return True
        between = self.text[found[1] : use]
        return re.search(rf"\${re.escape(name)}(?:\.\w+\s*=|\.Add\(|\[)", between, re.I) is not None

    def entries(self, at: int) -> list[tuple[str, int, tuple[int, int]]]:
        """(key, offset, value bounds) of the hashtable literal ``@{...}`` at `at`; nested
        hashtables stay inside their values."""
        close = self.word_end(at + 1, len(self.text))
        out: list[tuple[str, int, tuple[int, int]]] = []
        i = at + 2
        while i < close:
            m = _KEY.match(self.text, i, close)
            if m is None:
                i = self.text.find("\n", i, close)
                if i < 0:
                    break
                i += 1
                continue
            key_at = m.start(2) if m.group(2) else m.start(3)
            value_end = self.expression_end(m.end())
            value_end = min(value_end, close)
            out.append((m.group(2) or m.group(3), key_at, (m.end(), value_end)))
            i = value_end + 1
        return out

    # --- text ------------------------------------------------------------------------------

    def strip(self, start: int, end: int) -> tuple[int, int]:
        text = self.text
        while start < end and text[start] in " \t\r\n`":
            start += 1
        while end > start and text[end - 1] in " \t\r\n`":
            end -= 1
        return start, end

    def split(self, start: int, end: int, separator: str) -> list[tuple[int, int]]:
        pieces, depth, i, last, text = [], 0, start, start, self.text
        while i < end:
            ch = text[i]
            if ch in "\"'":
                i = self.string_end(i)
                continue
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            elif ch == separator and depth == 0:
                pieces.append((last, i))
                last = i + 1
            i += 1
        pieces.append((last, end))
        return pieces


def _option(named: dict[str, tuple[int, int]], name: str) -> tuple[int, int] | None:
    """A parameter's value by its name or any prefix of it that PowerShell accepts."""
    if name in named:
        return named[name]
    return next((v for k, v in named.items() if len(k) >= 2 and name.startswith(k)), None)
