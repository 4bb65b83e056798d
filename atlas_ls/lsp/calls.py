"""The API call under the cursor in client code, kept ready for hover, definition and code actions.

The server holds one `CallReader` (a syntax tree per open document; a Python, JavaScript or
TypeScript file of thousands of lines keeps none and is read through windows of its top-level
statements, `recognize.calls.windows`). didOpen and didChange hand the new text to a worker
thread, which re-parses incrementally (tree-sitter reuses what did not change), so a hover usually
finds the tree ready; a read whose tree is stale parses then, also on
a worker thread, never on the event loop. The reader bounds what it parses (1 MB; lines over
2,000 bytes blanked; half a second) and reads anything else as text, so a 5 MB minified file or a
100,000-character line costs a hover milliseconds.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from atlas_core.recognize import CallReader, CallSite, Located, normalize_language
from atlas_core.syntax import has_grammar
from atlas_ls.lsp.documents import language_from_path

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_core.types import ApiFinding
    from atlas_ls.lsp.documents import Snapshot
    from atlas_ls.lsp.server import AtlasLanguageServer

logger = logging.getLogger(__name__)

# Data, not code: no API calls to read, and such files are the ones that run to megabytes.
DATA_LANGUAGES = frozenset({"json", "jsonc", "yaml"})
# A read of a text up to this size whose tree is ready runs on the event loop: a fraction of a
# millisecond, less than the hop to a worker thread costs on a busy machine.
INLINE_READ_CHARS = 256 * 1024
# How long typing must pause before a changed document is re-parsed in the background.
PARSE_DELAY_S = 0.15


class CallTrees:
    """One `CallReader` for the server, fed on the document lifecycle."""

    def __init__(self, server: AtlasLanguageServer) -> None:
        self._server = server
        self._reader = CallReader()
        self._parsing: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()  # changed while a parse ran: parse once more after it
        self._coded: set[str] = set()  # open documents in a language with a grammar
        self._delayed: dict[str, asyncio.TimerHandle] = {}  # parses waiting for typing to pause

    def opened(self, uri: str, language_id: str) -> None:
        language = normalize_language(language_id or language_from_path(uri))
        if has_grammar(language):  # the others have no tree to keep
            self._coded.add(uri)
            self._start(uri)

    def changed(self, uri: str) -> None:
        """didChange: re-parse `uri` on a worker thread once typing pauses for
        `PARSE_DELAY_S`. Each keystroke re-parsing a 10,000-line file would cost ~15 ms of the
        same interpreter the completion that follows it needs; a request that needs the tree
        sooner parses then."""
        if uri not in self._coded:
            return
        pending = self._delayed.pop(uri, None)
        if pending is not None:
            pending.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not called from the event loop: the next read parses instead
            return
        self._delayed[uri] = loop.call_later(PARSE_DELAY_S, self._start, uri)

    def _start(self, uri: str) -> None:
        """Re-parse `uri` on a worker thread now; edits that arrive while one parse runs are
        taken by a single parse after it."""
        self._delayed.pop(uri, None)
        if uri not in self._coded:
            return
        running = self._parsing.get(uri)
        if running is not None and not running.done():
            self._again.add(uri)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not called from the event loop: the next read parses instead
            return
        self._parsing[uri] = loop.create_task(self._parse(uri))

    def closed(self, uri: str) -> None:
        pending = self._delayed.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._again.discard(uri)
        self._coded.discard(uri)
        self._reader.forget(uri)

    async def _parse(self, uri: str) -> None:
        try:
            while True:
                self._again.discard(uri)
                snap = await self._server.snapshot(uri)
                if snap is None or not self._server.is_open(uri):
                    return
                await asyncio.to_thread(
                    self._reader.parse, uri, snap.text, snap.version, snap.language_id
                )
                if uri not in self._again:
                    return
        except Exception:  # a parse failure must not end the server's work on other files
            logger.exception("parsing %s for calls failed", uri[:200])
        finally:
            self._parsing.pop(uri, None)

    def scan(self, snap: Snapshot) -> list[Located]:
        """Every call site of a document (blocking: run it on a worker thread), over the tree
        kept for it; none in data files."""
        language = normalize_language(snap.language_id)
        if language in DATA_LANGUAGES:
            return []
        return self._reader.scan(snap.uri, snap.text, snap.version, language)

    def check(
        self, engine: Engine, snap: Snapshot, sites: list[Located] | None = None
    ) -> list[ApiFinding]:
        """The API check findings of a document's calls (blocking: run it on a worker thread),
        over the tree kept for it (`sites`: the calls `scan` found); none in data files."""
        language = normalize_language(snap.language_id)
        if language in DATA_LANGUAGES:
            return []
        reader = self._reader
        if sites is None:
            sites = reader.scan(snap.uri, snap.text, snap.version, language)

        def read_site(line: int, column: int) -> CallSite | None:
            return reader.read(snap.uri, snap.text, snap.version, language, line, column)

        return engine.check_code(snap.text, language, sites=sites, read_site=read_site)

    async def site_at(self, snap: Snapshot, line: int, column: int) -> CallSite | None:
        """The call the cursor is in, from the snapshot's own text; None in data files."""
        language = normalize_language(snap.language_id)
        if language in DATA_LANGUAGES:
            return None
        args = (snap.uri, snap.text, snap.version, language, line, column)
        if len(snap.text) <= INLINE_READ_CHARS and self._reader.is_ready(snap.uri, snap.text):
            return self._reader.read(*args)
        return await asyncio.to_thread(self._reader.read, *args)
