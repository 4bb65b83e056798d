"""Where the cursor is inside an API call being typed, read from the text around it: writing a key
of an object literal, its value, or an argument of the call (`typing_at`), and which call sites
the call reader gives back are the answer (`is_key_site`, `is_call_site`).

While typing, code rarely parses: ``params={"na`` is an unclosed string in an unclosed dict. So
the place is read from the brackets and keys before the cursor, and a host asks the call reader
again about a probe (the same line with the key written out, the brackets closed); see the
language server's `typed_call` for the probing. Pure text: no parser, no protocol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from atlas_core.recognize.calls.site import BODY, ENDPOINT, HTTP, QUERY, CallSite
from atlas_core.recognize.text_scan import string_spans

KEY = "key"
VALUE = "value"
ARGUMENT = "argument"

# How far back the brackets around the cursor are looked for: a call's params dict is written
# within a few dozen lines of its call.
MAX_SCAN_LINES = 60
MAX_SCAN_CHARS = 8000

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_WORD_BEFORE = re.compile(r"[A-Za-z0-9_$.\-]*$")
_WORD_AFTER = re.compile(r"[A-Za-z0-9_$.\-]*")
_KEY_BEFORE_VALUE = re.compile(
    r"""(?:(?P<q>["'])(?P<quoted>[^"'\\]+)(?P=q)|(?P<bare>[A-Za-z_$][\w$]*))\s*:\s*$"""
)
TYPED_LANGUAGES = frozenset({"python", "javascript", "typescript"})


@dataclass(frozen=True, slots=True)
class Typing:
    """Where the cursor is inside an object literal of a call, read from the text.

    `kind` is KEY (writing a key: after ``{`` or ``,``), VALUE (after ``key:``) or ARGUMENT (in
    a call's argument list, outside any object). `start`..`end` are the columns of the word
    being typed (without its quotes; the word runs on past the cursor when the cursor is inside
    it); `quote` the quote opened before it ("" when none) and `closed` whether that quote is
    closed right after the word. For a VALUE, `key` is the key it belongs to and `key_column` a
    column inside it.
    """

    kind: str
    line: int
    start: int
    end: int
    quote: str = ""
    closed: bool = False
    key: str = ""
    key_column: int = 0
    opened: tuple[str, ...] = ()  # the brackets open before the cursor, innermost last

    @property
    def word_end(self) -> int:
        """The column after the word and its closing quote."""
        return self.end + (len(self.quote) if self.closed else 0)


@dataclass(frozen=True, slots=True)
class TypedCall:
    """The call being typed in: its `site` as the call reader sees it (role query or body, the
    keys already written without the one being typed) and where the cursor is."""

    site: CallSite
    typing: Typing


def _code(line: str, language: str) -> str:
    """`line` with string contents and comments blanked, so brackets and colons are code."""
    chars = list(line)
    for span in string_spans(line, language):
        for i in range(span.start, min(span.end, len(chars))):
            chars[i] = " "
    text = "".join(chars)
    marker = "#" if language == "python" else "//"
    cut = text.find(marker)
    return text if cut < 0 else text[:cut]


def open_brackets(lines: list[str], line: int, column: int, language: str) -> tuple[str, ...]:
    """The brackets opened and not closed in the stretch of code before the cursor."""
    first = max(0, line - MAX_SCAN_LINES)
    stretch: list[str] = []
    size = 0
    for index in range(line, first - 1, -1):
        text = lines[index][:column] if index == line else lines[index]
        size += len(text)
        if size > MAX_SCAN_CHARS:
            break
        stretch.append(_code(text, language))
    stack: list[str] = []
    for text in reversed(stretch):
        for ch in text:
            if ch in _OPENERS:
                stack.append(ch)
            elif ch in _CLOSERS:
                if stack and stack[-1] == _CLOSERS[ch]:
                    stack.pop()
                else:
                    stack.clear()  # the stretch starts inside a bracket opened further up
    return tuple(stack)


def typing_at(lines: list[str], line: int, column: int, language: str) -> Typing | None:
    """What the text says the cursor is writing: a key, a value or an argument of a call."""
    text = lines[line]
    before = text[:column]
    span = next(
        (s for s in string_spans(text, language) if s.start <= column <= s.end),
        None,
    )
    if span is not None and _WORD_BEFORE.fullmatch(text[span.start : column]) is None:
        return None  # inside a string that is not a key or a value being typed
    if span is not None:
        start, quote, quote_start = span.start, span.quote, span.quote_start
        end = span.end if _WORD_BEFORE.fullmatch(text[span.start : span.end]) else column
        closed = span.closed and end == span.end
    else:
        word = _WORD_BEFORE.search(before)
        after = _WORD_AFTER.match(text, column)
        start = word.start() if word else column
        end = after.end() if after else column
        quote, quote_start, closed = "", start, False
    opened = open_brackets(lines, line, quote_start, language)
    if not opened:
        return None
    head = _code(before[:quote_start], language).rstrip()
    if opened[-1] == "{":
        last = head[-1:] if head else _last_code_char(lines, line, language)
        if last in ("{", ","):
            return Typing(KEY, line, start, end, quote, closed, opened=opened)
        key = _KEY_BEFORE_VALUE.search(before[:quote_start])
        if key is not None:
            name = key.group("quoted") or key.group("bare") or ""
            at = key.start("quoted") if key.group("quoted") else key.start("bare")
            return Typing(VALUE, line, start, end, quote, closed, name, at + 1, opened)
        return None
    if opened[-1] == "(" and span is None:
        return Typing(ARGUMENT, line, start, end, opened=opened)
    return None


def _last_code_char(lines: list[str], line: int, language: str) -> str:
    """The last character of code on the lines above `line` (blank lines skipped)."""
    for index in range(line - 1, max(-1, line - 10), -1):
        code = _code(lines[index], language).rstrip()
        if code:
            return code[-1]
    return ""


def is_call_site(site: CallSite | None) -> bool:
    """Whether `site` is the URL of an HTTP call (not a REST path in a string no call takes)."""
    return site is not None and site.client == HTTP and site.role == ENDPOINT and not site.loose


def is_key_site(site: CallSite | None, name: str) -> bool:
    return (
        site is not None
        and site.client == HTTP
        and site.role in (QUERY, BODY)
        and site.name == name
        and bool(site.url)
        and not site.nested
    )


def without_key(site: CallSite, name: str) -> CallSite:
    """`site` with the key being typed taken out of the keys already written (once: the same
    key may also be written elsewhere in the literal)."""
    keys = list(site.path_keys)
    if name in keys:
        keys.remove(name)
    return replace(site, path_keys=tuple(keys))


def closers(opened: tuple[str, ...]) -> str:
    return "".join(_OPENERS[b] for b in reversed(opened))


def open_paren(lines: list[str], line: int, column: int, language: str) -> tuple[int, int] | None:
    """The position just after the innermost unclosed ``(`` before the cursor, skipped on to the
    first code after it (the call's first argument)."""
    depth = 0
    for index in range(line, max(-1, line - MAX_SCAN_LINES), -1):
        code = _code(lines[index][:column] if index == line else lines[index], language)
        for i in range(len(code) - 1, -1, -1):
            ch = code[i]
            if ch in _CLOSERS:
                depth += 1
            elif ch in _OPENERS:
                if depth == 0:
                    if ch != "(":
                        return None
                    rest = lines[index][i + 1 :]
                    skip = len(rest) - len(rest.lstrip())
                    if skip == len(rest):
                        return None  # the first argument is on a later line
                    return index, i + 1 + skip + 1
                depth -= 1
    return None
