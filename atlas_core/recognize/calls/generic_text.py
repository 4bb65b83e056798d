"""The code of a document in a language with no dedicated reader, as the generic call reader
(`generic`) sees it: comments blanked (lines and offsets kept), string literals located, and
expressions rebuilt into URL `Part`s through literals, interpolation, concatenation, a few
well-known wrappers (``URI.create``, ``Uri.parse``, ``format!``) and the names the file assigns.

What it cannot see is ``{}``; nothing is guessed. Every walk is bounded (`MAX_DEPTH` names deep,
`MAX_SPAN` characters per expression)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import lru_cache

from atlas_core.recognize.calls.text_calls import UNKNOWN_PART, Lines, Part, outside_strings
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH

MAX_SPAN = 4000  # characters of one argument list or assigned value
_MAX_NAME_HITS = 400  # assignments of one name looked at

# Comment and string syntax by language family.
_HASH = frozenset(
    {"ruby", "elixir", "coffeescript", "perl", "r", "php", "crystal", "julia", "nim", "tcl", "raku"}
)
_DASH = frozenset({"lua", "sql", "haskell", "elm", "ada", "purescript"})
_NO_SLASH = frozenset({"ruby", "elixir", "coffeescript", "perl", "r", "crystal", "nim", "julia"})
_NO_SLASH |= _DASH - {"sql"}
# Where ``'`` is a character literal (or a lifetime), not a string.
_CHAR_QUOTE = frozenset(
    {"rust", "kotlin", "scala", "swift", "csharp", "c", "cpp", "objective-c", "fsharp", "zig"}
)
_MULTILINE = frozenset({"ruby", "elixir", "coffeescript", "perl", "php", "crystal", "julia"})
_TRIPLE = frozenset(
    {"kotlin", "scala", "swift", "dart", "coffeescript", "elixir", "julia", "csharp", "ballerina"}
)

# Interpolated pieces of a string: ``#{id}``, ``${id}``, ``\(id)``, ``{id}`` (C#'s ``$"..."``,
# Rust's ``format!``), ``$id`` (PHP, Kotlin, Dart), printf's ``%s``.
_HOLE = re.compile(r"#\{[^{}]*\}|\$\{[^{}]*\}|\\\([^()]*\)|\{[^{}]*\}|\$[A-Za-z_]\w*|%[sdvi]")
# A name, or a field of this object (``self.base``, ``this.base``, ``$this->base``, ``@base``).
_MEMBER = re.compile(r"(?:(?:this|self)\.|\$this->)?([@$]?[A-Za-z_]\w*)")
_WRAP_PREFIX = re.compile(r"^(?:new|check|await|try|return|string)\s+|^[&*]")
_WRAP_SUFFIX = re.compile(
    r"(?:\s*(?:[!?]|\.(?:unwrap|to_string|toString|as_str|toURI|to_s|absoluteString)\s*\(\s*\)"
    r"|\.expect\s*\([^()]*\)))+$"
)
# A call whose name says it builds a query string (``getPathForQueryParam``, ``toQueryString``).
_QUERY_CALL = re.compile(r"(?i)query")
# Calls whose value is their first argument's: URI and URL constructors, string formatting.
_PASS = re.compile(
    r"^(?:URI(?:\.(?:create|parse))?|Uri(?:\.(?:parse|https?|tryParse))?|java\.net\.URI"
    r"(?:\.create)?|URL|Url(?:::parse)?|url::Url::parse|format!|String\.format|sprintf|fmt\.Sprintf"
    r"|Format|string\.Format|String\.Format|URI\.join|uri)\s*$"
)


class Code:
    """One document: its text, that text with comments blanked, and its string literals."""

    def __init__(self, text: str, language: str) -> None:
        self.text = text
        self.lines = Lines(text)
        self.language = language
        self.quotes = '"`' if language == "ballerina" else "\"'"  # what opens a string
        masked: list[str] = []
        strings: list[tuple[int, int, int]] = []  # (opening quote, content start, content end)
        last = 0
        for m in _tokens(language).finditer(text):
            kind = m.lastgroup
            if kind == "comment":
                masked.append(text[last : m.start()])
                masked.append(re.sub(r"[^\n]", " ", m.group()))
                last = m.end()
            elif kind == "triple":
                strings.append((m.start(), m.start() + 3, m.end() - 3))
            elif kind == "string":
                quote = m.start() + (1 if m.group()[0] == "@" else 0)  # C#'s verbatim @"..."
                closed = m.end() - quote > 1 and text[m.end() - 1] == text[quote]
                strings.append((quote, quote + 1, m.end() - (1 if closed else 0)))
        masked.append(text[last:])
        self.code = "".join(masked)
        self.strings = strings
        self._starts = [s[0] for s in strings]
        self._names: dict[str, list[tuple[int, int]]] = {}

    # --- where things are ----------------------------------------------------------------------

    def string_at(self, at: int) -> tuple[int, int, int] | None:
        """The string literal whose opening quote is at `at` or that `at` is inside."""
        index = bisect.bisect_right(self._starts, at) - 1
        if index < 0:
            return None
        found = self.strings[index]
        return found if at < self._close(found) else None

    def _close(self, string: tuple[int, int, int]) -> int:
        quote, start, end = string
        return end + (start - quote)  # past the closing quote(s)

    def skip_string(self, at: int) -> int:
        """Past the string literal opening at `at`; `at` + 1 when none does."""
        found = self.string_at(at)
        return self._close(found) if found is not None and found[0] == at else at + 1

    def _walk(self, start: int, end: int) -> Iterator[tuple[int, str, int]]:
        return outside_strings(self.code, start, end, self.quotes, self.skip_string)

    def closing(self, opening: int) -> int:
        """The offset of the bracket closing the one at `opening`, or -1 (within `MAX_SPAN`)."""
        for i, ch, depth in self._walk(opening, min(len(self.code), opening + MAX_SPAN)):
            if ch in ")]}" and depth == 0:
                return i
        return -1

    def split(self, start: int, end: int, separators: str) -> list[tuple[int, int]]:
        """`start:end` cut at each top-level separator (``,`` of arguments, ``+`` of a sum)."""
        code = self.code
        pieces, begin = [], start
        for i, _ch, depth in self._walk(start, end):
            if i < begin:
                continue  # the second character of a ``<>`` just cut at
            if depth == 0 and _separates(code, i, separators, self.language):
                pieces.append((begin, i))
                begin = i + (2 if code.startswith("<>", i) else 1)
        pieces.append((begin, end))
        return [(a, b) for a, b in pieces if code[a:b].strip()]

    def arguments(self, opening: int) -> list[tuple[int, int]] | None:
        close = self.closing(opening)
        if close < 0:
            return None
        return self.split(opening + 1, close, ",")

    # --- values --------------------------------------------------------------------------------

    def value(
        self,
        start: int,
        end: int,
        before: int,
        depth: int = 0,
        fills: list[list[Part]] | None = None,
    ) -> list[Part]:
        """The parts of the expression at `start:end`; names are looked up before `before`.
        `fills` are the values of a format string's positional holes (``format!("{}/x", base)``)."""
        code = self.code
        while start < end and code[start].isspace():
            start += 1
        while end > start and code[end - 1].isspace():
            end -= 1
        if depth > MAX_DEPTH or start >= end or end - start > MAX_SPAN:
            return [UNKNOWN_PART]
        terms = self.split(start, end, "+.<" if self.language in ("php", "elixir") else "+")
        if len(terms) > 1:
            return [p for term in terms for p in self.value(*term, before, depth + 1)]
        expr = code[start:end]
        label = re.match(r"(?:url|uri|string|path|requestUri)\s*[:=]\s*", expr)
        if label is not None:
            return self.value(start + label.end(), end, before, depth + 1)
        prefix = _WRAP_PREFIX.match(expr)
        if prefix is not None:
            return self.value(start + prefix.end(), end, before, depth + 1)
        suffix = _WRAP_SUFFIX.search(expr)
        if suffix is not None and suffix.start() > 0:
            return self.value(start, start + suffix.start(), before, depth + 1)
        literal = self.literal(start, end, before, depth, fills or [])
        if literal is not None:
            return literal
        if expr[0] == "(" and self.closing(start) == end - 1:
            return self.value(start + 1, end - 1, before, depth + 1)
        call = re.match(r"([A-Za-z_][\w.:]*!?)\s*\(", expr)
        opening = start + call.end() - 1 if call is not None else -1
        if call is not None and _PASS.match(call.group(1)) and self.closing(opening) == end - 1:
            args = self.arguments(opening) or []
            if not args:
                return [UNKNOWN_PART]
            fills = [self.value(*a, before, depth + 1) for a in args[1:4]]
            return self.value(*args[0], before, depth + 1, fills)
        if (
            call is not None
            and _QUERY_CALL.search(call.group(1))
            and self.closing(opening) == end - 1
        ):
            return [Part("?"), UNKNOWN_PART]  # `path + getPathForQueryParam(q)`: the path ends
        member = _MEMBER.fullmatch(expr)
        if member is not None:
            return self.name_value(member.group(1), before, depth)
        return [UNKNOWN_PART]

    def literal(
        self, start: int, end: int, before: int, depth: int, fills: list[list[Part]]
    ) -> list[Part] | None:
        """A string literal (with a prefix such as ``$``, ``f``, ``s``, ``@``), cut at its
        interpolations: a hole naming a name the file assigns (``#{BASE}``, ``{base}``) gets its
        value, a positional one (``{}``, ``%s``) the next of `fills`; None when `start:end` is
        not one literal."""
        head = re.match(rf"[A-Za-z$@]{{0,4}}(?=[{self.quotes}])", self.code[start:end])
        if head is None:
            return None
        found = self.string_at(start + head.end())
        if found is None or found[0] != start + head.end() or self._close(found) != end:
            return None
        _, first, last = found
        parts: list[Part] = []
        at = first
        for hole in _HOLE.finditer(self.text, first, last):
            if hole.start() > at:
                parts.append(Part(self.text[at : hole.start()], (at, hole.start())))
            parts += self._hole(hole.group(), before, depth, fills)
            at = hole.end()
        if at < last or not parts:
            parts.append(Part(self.text[at:last], (at, last)))
        return parts

    def _hole(self, hole: str, before: int, depth: int, fills: list[list[Part]]) -> list[Part]:
        inner = hole.strip("#${}()\\%").strip()
        if inner in ("", "s", "d", "v", "i") and hole in ("{}", "%s", "%d", "%v", "%i"):
            return fills.pop(0) if fills else [UNKNOWN_PART]
        member = _MEMBER.fullmatch(inner)
        if member is None or depth >= MAX_DEPTH:
            return [UNKNOWN_PART]
        return self.name_value(member.group(1), before, depth + 1)

    def name_value(self, name: str, before: int, depth: int) -> list[Part]:
        """The value last assigned to `name` before `before` (``name = ...``, ``val name: T =``,
        ``$name = ``, Elixir's ``@name "..."``); unknown when it is not assigned in the file."""
        spots = self._assignments(name)
        index = bisect.bisect_left(spots, (before, 0)) - 1
        if index < 0:
            return [UNKNOWN_PART]
        start, end = spots[index]
        return self.value(start, end, start, depth + 1)

    def _assignments(self, name: str) -> list[tuple[int, int]]:
        found = self._names.get(name)
        if found is not None:
            return found
        found = []
        escaped = re.escape(name.lstrip("$"))
        pattern = re.compile(
            rf"(?:(?<![\w$@.>:])\$?|(?<=this\.)|(?<=self\.)|(?<=\$this->)){escaped}"
            rf"\s*(?::\s*[\w.<>?\[\]]+\s*)?(?::=|=)(?![=>~])\s*"
            if not name.startswith("@") or self.language != "elixir"
            else rf"^[ \t]*{escaped}[ \t]+(?=\S)",
            re.M,
        )
        for count, m in enumerate(pattern.finditer(self.code)):
            if count >= _MAX_NAME_HITS:
                break
            if self.string_at(m.start()) is not None:
                continue
            found.append((m.end(), self.statement_end(m.end())))
        self._names[name] = found
        return found

    def statement_end(self, start: int) -> int:
        """Where an assigned value ends: ``;`` or the end of its line, outside brackets and
        strings (a value continued after a trailing ``+`` goes on)."""
        code = self.code
        end = min(len(code), start + MAX_SPAN)
        for i, ch, depth in self._walk(start, end):
            if ch in ")]}" and depth < 0:
                return i
            if depth == 0 and ch in ";\n" and not _continued(code, start, i):
                return i
        return end


def _continued(code: str, start: int, at: int) -> bool:
    """Whether the line ending at `at` goes on (it ends in ``+``, ``.`` or ``<>``)."""
    tail = code[start:at].rstrip()
    return tail.endswith(("+", "<>")) or (tail.endswith(".") and not tail.endswith(".."))


def _separates(code: str, i: int, separators: str, language: str) -> bool:
    ch = code[i]
    if ch not in separators:
        return False
    if ch == "<":
        return code.startswith("<>", i)
    if ch == ".":
        # PHP's concatenation dot stands between values, never inside a name or a number
        before, after = code[i - 1 : i], code[i + 1 : i + 2]
        return language == "php" and not (before.isalnum() and after.isalnum()) and after != "."
    return True


@lru_cache(maxsize=32)
def _tokens(language: str) -> re.Pattern[str]:
    """One pass over a document finds its comments and strings, in order."""
    comments = []
    if language == "coffeescript":
        comments.append(r"\#\#\#[\s\S]*?\#\#\#")
    if language not in _NO_SLASH:
        comments += [r"/\*[\s\S]*?\*/", r"//[^\n]*"]
    if language in _HASH:
        comments.append(r"\#(?!\{)[^\n]*")
    if language in _DASH:
        comments.append(r"--[^\n]*")
    body = r"[^\"\\]" if language in _MULTILINE else r"[^\"\\\n]"
    strings = []
    if language == "csharp":
        strings.append(r'@"(?:[^"]|"")*"')
    strings.append(rf'"(?:{body}|\\.)*"?')
    if language == "ballerina":
        strings.append(r"`[^`]*`?")  # string templates; ``'limit`` is a quoted name, no string
    elif language in _CHAR_QUOTE:
        strings.append(r"'(?:[^'\\\n]|\\.){0,2}'")
    else:
        strings.append(
            r"'(?:[^'\\\n]|\\.)*'" if language not in _MULTILINE else r"'(?:[^'\\]|\\.)*'"
        )
    triple = [r'"""[\s\S]*?"""'] if language in _TRIPLE else []
    return re.compile(
        "|".join([f"(?P<comment>{'|'.join(comments)})"] if comments else [])
        + ("|" if comments else "")
        + (f"(?P<triple>{'|'.join(triple)})|" if triple else "")
        + f"(?P<string>{'|'.join(strings)})"
    )
