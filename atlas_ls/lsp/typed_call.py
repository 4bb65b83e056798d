"""The API call the user is typing in: which key or value of its params or body the cursor is on,
for completion and signature help.

The call reader (`CallTrees`) answers for code that parses: a key written as a pair of a dict
that a recognised call takes. While typing, the code rarely is: ``params={"na`` is an unclosed
string in an unclosed dict, ``params={"na"}`` a Python set, ``json={`` followed by a new line an
unclosed call. So where the document itself gives no answer, the cursor's place is read from the
text around it (inside which bracket, after which key) and the call reader is asked again about
a *probe*: the same text with the key written out as a pair (``"na": 0``) and, if that is not
enough, the brackets left open before the cursor closed. The probe has a reader of its own, so
its tree is re-parsed incrementally from the previous probe's, as the document's own is.

An answer is only taken when it is about the probe's own key in an HTTP call's params or body;
anything else is no answer, never a guess.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from atlas_core.recognize import (
    BODY,
    ENDPOINT,
    HTTP,
    QUERY,
    CallReader,
    CallSite,
    normalize_language,
    probe_window,
    string_spans,
)
from atlas_core.syntax import has_grammar

if TYPE_CHECKING:
    from atlas_ls.lsp.documents import Snapshot
    from atlas_ls.lsp.server import AtlasLanguageServer

KEY = "key"
VALUE = "value"
ARGUMENT = "argument"

# How far back the brackets around the cursor are looked for: a call's params dict is written
# within a few dozen lines of its call.
MAX_SCAN_LINES = 60
MAX_SCAN_CHARS = 8000
# Texts up to this size are probed on the event loop: an incremental re-parse of a small text
# costs less than the hop to a worker thread.
INLINE_PROBE_CHARS = 64 * 1024
PLACEHOLDER = "atlas_key"

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_WORD_BEFORE = re.compile(r"[A-Za-z0-9_$.\-]*$")
_WORD_AFTER = re.compile(r"[A-Za-z0-9_$.\-]*")
_KEY_BEFORE_VALUE = re.compile(
    r"""(?:(?P<q>["'])(?P<quoted>[^"'\\]+)(?P=q)|(?P<bare>[A-Za-z_$][\w$]*))\s*:\s*$"""
)
_LANGUAGES = frozenset({"python", "javascript", "typescript"})


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


class TypedCalls:
    """Reads the call being typed in, from the document or from a probe of it."""

    def __init__(self, server: AtlasLanguageServer) -> None:
        self._server = server
        self._probes = CallReader(capacity=4, windows=False)  # a probe is a window already

    async def at(self, snap: Snapshot, line: int, column: int) -> TypedCall | None:
        """The key or value of a call's params or body the cursor is writing, or None."""
        language = normalize_language(snap.language_id)
        if language not in _LANGUAGES or not has_grammar(language):
            return None
        typing = typing_at(snap.lines, line, column, language)
        if typing is None or typing.kind == ARGUMENT:
            return None
        if typing.kind == KEY:
            found = await self._key(snap, typing, language)
        else:
            found = await self._value(snap, typing, language)
        return TypedCall(found, typing) if found is not None else None

    async def endpoint(self, snap: Snapshot, line: int, column: int) -> CallSite | None:
        """The call whose URL string the cursor is typing in (method and URL as far as typed).

        An unclosed string is read from a probe only: in the document itself it runs on to the
        end of the file, and re-parsing all of that on each keystroke costs up to 100 ms."""
        language = normalize_language(snap.language_id)
        text = snap.lines[line]
        span = None
        if language in _LANGUAGES and has_grammar(language):
            spans = string_spans(text, language)
            span = next((s for s in spans if s.start <= column <= s.end), None)
        site = None
        if span is None or span.closed:
            site = await self._read(snap, line, column, language)
            if site is not None and site.role == ENDPOINT and not site.loose:
                return site
        if span is None or span.closed:
            return site if site is not None and not site.loose else None
        opened = open_brackets(snap.lines, line, span.quote_start, language)
        probe = text[: span.end] + span.quote + _closers(opened)
        site = await self._read_probe(snap, line, probe, column, language)
        return site if site is not None and site.role == ENDPOINT and not site.loose else None

    async def arguments(self, snap: Snapshot, line: int, column: int) -> CallSite | None:
        """The HTTP call whose argument list the cursor is in, outside any object literal, read
        at the call's first argument (its URL)."""
        language = normalize_language(snap.language_id)
        if language not in _LANGUAGES or not has_grammar(language):
            return None
        typing = typing_at(snap.lines, line, column, language)
        if typing is None or typing.kind != ARGUMENT:
            return None
        paren = _open_paren(snap.lines, line, column, language)
        if paren is None:
            return None
        at_line, at_column = paren
        site = await self._read(snap, at_line, at_column, language)
        if not _is_call_site(site) and at_line == line:
            probe = snap.lines[line][:column] + _closers(typing.opened)
            site = await self._read_probe(snap, line, probe, at_column, language)
        return site if _is_call_site(site) else None

    # --- probes ----------------------------------------------------------------------------

    async def _key(self, snap: Snapshot, typing: Typing, language: str) -> CallSite | None:
        text = snap.lines[typing.line]
        word = text[typing.start : typing.end]
        if typing.quote and typing.closed:
            site = await self._read(snap, typing.line, typing.start, language)
            if _is_key_site(site, word):
                assert site is not None
                return _without(site, word)
        if language != "python" and not typing.quote and word:
            site = await self._read(snap, typing.line, typing.start, language)
            if _is_key_site(site, word):  # a JS shorthand property: `{na}`
                assert site is not None
                return _without(site, word)
        name = word or PLACEHOLDER
        quote_start = typing.start - len(typing.quote)
        head = text[:quote_start] + f'"{name}": 0'
        tail = text[typing.word_end :]
        column = quote_start + 1
        for probe in (head + tail, head + _closers(typing.opened) + tail):
            site = await self._read_probe(snap, typing.line, probe, column, language)
            if _is_key_site(site, name):
                assert site is not None
                return _without(site, name)
        return None

    async def _value(self, snap: Snapshot, typing: Typing, language: str) -> CallSite | None:
        if not typing.quote or typing.closed:  # an unclosed value is read from a probe only
            site = await self._read(snap, typing.line, typing.key_column, language)
            if _is_key_site(site, typing.key):
                return site
        text = snap.lines[typing.line]
        quote_start = typing.start - len(typing.quote)
        head = text[:quote_start] + '""'
        tail = text[typing.word_end :]
        for probe in (head + tail, head + _closers(typing.opened) + tail):
            site = await self._read_probe(snap, typing.line, probe, typing.key_column, language)
            if _is_key_site(site, typing.key):
                return site
        return None

    async def _read(self, snap: Snapshot, line: int, column: int, language: str) -> CallSite | None:
        """The call reader at a place of the text as it is, over the probe window: the rest of
        a file being edited may hold an unclosed string or bracket that would make re-parsing
        the document itself cost up to 100 ms per keystroke."""
        if language not in _LANGUAGES:
            return await self._server.calls.site_at(snap, line, column)
        return await self._read_probe(snap, line, snap.lines[line], column, language)

    async def _read_probe(
        self, snap: Snapshot, line: int, probe_line: str, column: int, language: str
    ) -> CallSite | None:
        lines = probe_window(snap.lines, line, language, snap.text)
        text = "\n".join([*lines[:line], probe_line, *lines[line + 1 :]])
        args = (f"probe:{snap.uri}", text, None, language, line, column)
        if len(text) <= INLINE_PROBE_CHARS:
            return self._probes.read(*args)
        return await asyncio.to_thread(self._probes.read, *args)


def _is_call_site(site: CallSite | None) -> bool:
    """Whether `site` is the URL of an HTTP call (not a REST path in a string no call takes)."""
    return site is not None and site.client == HTTP and site.role == ENDPOINT and not site.loose


def _is_key_site(site: CallSite | None, name: str) -> bool:
    return (
        site is not None
        and site.client == HTTP
        and site.role in (QUERY, BODY)
        and site.name == name
        and bool(site.url)
        and not site.nested
    )


def _without(site: CallSite, name: str) -> CallSite:
    """`site` with the key being typed taken out of the keys already written (once: the same
    key may also be written elsewhere in the literal)."""
    keys = list(site.path_keys)
    if name in keys:
        keys.remove(name)
    return replace(site, path_keys=tuple(keys))


def _closers(opened: tuple[str, ...]) -> str:
    return "".join(_OPENERS[b] for b in reversed(opened))


def _open_paren(lines: list[str], line: int, column: int, language: str) -> tuple[int, int] | None:
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
