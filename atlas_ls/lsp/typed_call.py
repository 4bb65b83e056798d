"""The API call the user is typing in: which key or value of its params or body the cursor is on,
for completion and signature help. Where the cursor is is read from the text by the engine
(`atlas_core.recognize.typing_at`); this module keeps the probes' call reader and asks it.

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
from typing import TYPE_CHECKING

from atlas_core.recognize import (
    ARGUMENT,
    ENDPOINT,
    KEY,
    TYPED_LANGUAGES,
    CallReader,
    CallSite,
    TypedCall,
    Typing,
    closers,
    is_call_site,
    is_key_site,
    normalize_language,
    open_brackets,
    open_paren,
    probe_window,
    string_spans,
    typing_at,
    without_key,
)
from atlas_core.syntax import has_grammar

if TYPE_CHECKING:
    from atlas_ls.lsp.documents import Snapshot
    from atlas_ls.lsp.server import AtlasLanguageServer

# Texts up to this size are probed on the event loop: an incremental re-parse of a small text
# costs less than the hop to a worker thread.
INLINE_PROBE_CHARS = 64 * 1024
PLACEHOLDER = "atlas_key"


class TypedCalls:
    """Reads the call being typed in, from the document or from a probe of it."""

    def __init__(self, server: AtlasLanguageServer) -> None:
        self._server = server
        self._probes = CallReader(capacity=4, windows=False)  # a probe is a window already

    async def at(self, snap: Snapshot, line: int, column: int) -> TypedCall | None:
        """The key or value of a call's params or body the cursor is writing, or None."""
        language = normalize_language(snap.language_id)
        if language not in TYPED_LANGUAGES or not has_grammar(language):
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
        if language in TYPED_LANGUAGES and has_grammar(language):
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
        probe = text[: span.end] + span.quote + closers(opened)
        site = await self._read_probe(snap, line, probe, column, language)
        return site if site is not None and site.role == ENDPOINT and not site.loose else None

    async def arguments(self, snap: Snapshot, line: int, column: int) -> CallSite | None:
        """The HTTP call whose argument list the cursor is in, outside any object literal, read
        at the call's first argument (its URL)."""
        language = normalize_language(snap.language_id)
        if language not in TYPED_LANGUAGES or not has_grammar(language):
            return None
        typing = typing_at(snap.lines, line, column, language)
        if typing is None or typing.kind != ARGUMENT:
            return None
        paren = open_paren(snap.lines, line, column, language)
        if paren is None:
            return None
        at_line, at_column = paren
        site = await self._read(snap, at_line, at_column, language)
        if not is_call_site(site) and at_line == line:
            probe = snap.lines[line][:column] + closers(typing.opened)
            site = await self._read_probe(snap, line, probe, at_column, language)
        return site if is_call_site(site) else None

    # --- probes ----------------------------------------------------------------------------

    async def _key(self, snap: Snapshot, typing: Typing, language: str) -> CallSite | None:
        text = snap.lines[typing.line]
        word = text[typing.start : typing.end]
        if typing.quote and typing.closed:
            site = await self._read(snap, typing.line, typing.start, language)
            if is_key_site(site, word):
                assert site is not None
                return without_key(site, word)
        if language != "python" and not typing.quote and word:
            site = await self._read(snap, typing.line, typing.start, language)
            if is_key_site(site, word):  # a JS shorthand property: `{na}`
                assert site is not None
                return without_key(site, word)
        name = word or PLACEHOLDER
        quote_start = typing.start - len(typing.quote)
        head = text[:quote_start] + f'"{name}": 0'
        tail = text[typing.word_end :]
        column = quote_start + 1
        for probe in (head + tail, head + closers(typing.opened) + tail):
            site = await self._read_probe(snap, typing.line, probe, column, language)
            if is_key_site(site, name):
                assert site is not None
                return without_key(site, name)
        return None

    async def _value(self, snap: Snapshot, typing: Typing, language: str) -> CallSite | None:
        if not typing.quote or typing.closed:  # an unclosed value is read from a probe only
            site = await self._read(snap, typing.line, typing.key_column, language)
            if is_key_site(site, typing.key):
                return site
        text = snap.lines[typing.line]
        quote_start = typing.start - len(typing.quote)
        head = text[:quote_start] + '""'
        tail = text[typing.word_end :]
        for probe in (head + tail, head + closers(typing.opened) + tail):
            site = await self._read_probe(snap, typing.line, probe, typing.key_column, language)
            if is_key_site(site, typing.key):
                return site
        return None

    async def _read(self, snap: Snapshot, line: int, column: int, language: str) -> CallSite | None:
        """The call reader at a place of the text as it is, over the probe window: the rest of
        a file being edited may hold an unclosed string or bracket that would make re-parsing
        the document itself cost up to 100 ms per keystroke."""
        if language not in TYPED_LANGUAGES:
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
