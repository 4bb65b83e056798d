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

import bisect
import re
import time
from collections.abc import Iterator

from atlas_core.recognize.calls.powershell_body import entries, read_body
from atlas_core.recognize.calls.site import BODY, HTTP_VERBS, QUERY, CallSite
from atlas_core.recognize.calls.text_calls import (
    UNKNOWN_PART,
    Lines,
    Part,
    joined,
    key_site,
    outside_strings,
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
_MAX_COMMAND_LINES = 60
_MAX_CHARS = 20_000
_FUNCTION = re.compile(r"^[ \t]*function\s", re.M)


def powershell_calls(
    document: Document, deadline: float, first: int, last: int
) -> Iterator[tuple[int, CallSite]]:
    reader = Reader(document.text)
    lines = reader.lines
    end = lines.offset(last) if last < document.line_count else len(reader.text)
    for m in _COMMAND.finditer(reader.text, lines.offset(first), end):
        if time.monotonic() > deadline:
            return
        if reader.in_comment(m.start()):
            continue
        yield from reader.call(m.end())
    from atlas_core.recognize.calls.powershell_wrappers import wrapper_calls  # needs `Reader`

    yield from wrapper_calls(reader, deadline, lines.offset(first), end)


class Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lower = text.lower()
        self.lines = Lines(text)
        self._places: dict[str, tuple[list[tuple[int, int]], list[int]]] = {}
        # Lines where a function starts: a name assigned above one is not its local.
        self.functions = [self.lines.position(m.start())[0] for m in _FUNCTION.finditer(self.lower)]
        # A wrapper function's parameters as one of its calls passes them (`powershell_wrappers`)
        self.bound: dict[str, list[Part]] = {}

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
        body = read_body(self, *body_at)
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
            if end <= i:
                break  # a closing bracket: the end of the expression holding the command
            out.append((i, end))
            i = end
        return out

    def word_end(self, i: int, limit: int) -> int:
        """The end of the word starting at `i`: strings and brackets are parts of it."""
        for at, ch, depth in self._walk(i, limit, "\"'`"):
            if (ch in ")}]" and depth < 0) or (depth == 0 and ch in " \t\r\n;|"):
                return at
        return limit

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
        for key, key_at, value in entries(self, found[0]):
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
        if self.bound and name.lower() in self.bound:
            return self.bound[name.lower()]
        found = self.definition(name, at)
        return self.value(*found, depth + 1) if found is not None else [UNKNOWN_PART]

    def definition(self, name: str, at: int) -> tuple[int, int] | None:
        """The expression last assigned to ``$name`` above `at`, in the same function or at the
        script's top; None for a parameter or a value changed on the way (``+=``). Each name's
        assignments, changes and parameter declarations are listed once per document."""
        plain = name.split(":", 1)[-1].lower()
        assigned, stops = self.places(plain)
        line, _ = self.lines.position(at)
        function = (
            self.functions[bisect.bisect_left(self.functions, line) - 1]
            if (self.functions and self.functions[0] < line)
            else -1
        )
        stop = stops[bisect.bisect_left(stops, line) - 1] if stops and stops[0] < line else -1
        index = bisect.bisect_left(assigned, (line, 0)) - 1
        for number, value_start in reversed(assigned[max(index - 63, 0) : index + 1]):
            if stop > max(number, function):
                return None  # a parameter, or changed on the way
            indented = self.text[self.lines.offset(number)].isspace()
            if number > function or not indented:
                return value_start, self.expression_end(value_start)
        return None

    def places(self, plain: str) -> tuple[list[tuple[int, int]], list[int]]:
        """(line, value offset) of each assignment of ``$plain`` and the lines that declare it
        a parameter or change it (``+=``), in order."""
        if plain in self._places:
            return self._places[plain]
        bare = re.escape(plain)
        assign = re.compile(
            rf"\s*(?:\[[\w.\[\]]+\]\s*)?\$(?:script:|global:)?{bare}\s*=(?!=)\s*", re.I
        )
        changed = re.compile(rf"\s*\$(?:script:|global:)?{bare}\s*[+\-*/]=", re.I)
        parameter = re.compile(rf"\s*(?:\[[^\]]*\]\s*)*\${bare}\s*(?:[,)]|$)", re.I | re.M)
        assigned: list[tuple[int, int]] = []
        stops: list[int] = []
        for number, begin in enumerate(self.lines.starts):
            stop = self.text.find("\n", begin)
            stop = stop if stop >= 0 else len(self.text)
            if plain not in self.lower[begin:stop]:
                continue
            if changed.match(self.text, begin, stop) or parameter.match(self.text, begin, stop):
                stops.append(number)
                continue
            m = assign.match(self.text, begin, stop)
            if m is not None:
                assigned.append((number, m.end()))
        self._places[plain] = (assigned, stops)
        return assigned, stops

    def expression_end(self, start: int) -> int:
        """The end of an assigned expression: its line, past open brackets and backticks."""
        limit = min(len(self.text), start + _MAX_CHARS)
        for i, ch, depth in self._walk(start, limit, "\"'`"):
            if depth <= 0 and ch in "\n#;":
                return i
        return limit

    # --- text ------------------------------------------------------------------------------

    def strip(self, start: int, end: int) -> tuple[int, int]:
        text = self.text
        end = min(end, len(text))
        while start < end and text[start] in " \t\r\n`":
            start += 1
        while end > start and text[end - 1] in " \t\r\n`":
            end -= 1
        return start, end

    def split(self, start: int, end: int, separator: str) -> list[tuple[int, int]]:
        pieces, last = [], start
        for i, ch, depth in self._walk(start, end, "\"'"):
            if ch == separator and depth == 0:
                pieces.append((last, i))
                last = i + 1
        pieces.append((last, end))
        return pieces

    def _walk(self, start: int, end: int, quotes: str) -> Iterator[tuple[int, str, int]]:
        """`outside_strings` with PowerShell's literals; a backtick escapes the next character."""
        return outside_strings(self.text, start, end, quotes, self._skip)

    def _skip(self, at: int) -> int:
        return at + 2 if self.text[at] == "`" else self.string_end(at)


def _option(named: dict[str, tuple[int, int]], name: str) -> tuple[int, int] | None:
    """A parameter's value by its name or any prefix of it that PowerShell accepts."""
    if name in named:
        return named[name]
    return next((v for k, v in named.items() if len(k) >= 2 and name.startswith(k)), None)
