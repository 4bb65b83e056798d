"""`CallReader`: the one entry point. It keeps a parsed tree per open document (a long one is read
through windows instead, `windows`) and sends each cursor to the reader for the document's
language, or to a text reader where there is no tree."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.generic import is_generic
from atlas_core.recognize.calls.markdown import block_language, fenced_block_at
from atlas_core.recognize.calls.scan import Located, ScanCache, scan_calls
from atlas_core.recognize.calls.site import CallSite
from atlas_core.recognize.calls.text import read_text
from atlas_core.recognize.calls.text_calls import TEXT_LANGUAGES, text_call_at
from atlas_core.recognize.calls.tree_reader import reader_for
from atlas_core.recognize.calls.windows import is_windowed, outline_of
from atlas_core.recognize.text_scan import normalize_language
from atlas_core.syntax import (
    PARSE_BUDGET_S,
    Document,
    SyntaxTrees,
    has_grammar,
    line_is_blanked,
    parse_once,
)

if TYPE_CHECKING:
    from tree_sitter import Tree

log = logging.getLogger(__name__)

# A fenced block longer than this is read as text; parsing it per hover would cost too much.
_MAX_BLOCK_CHARS = 64 * 1024


class CallReader:
    """What the cursor is on inside an API call, for open documents.

    The language server passes what it already holds on every request, so nothing else needs
    wiring: ``reader.read(uri, doc.source, doc.version, doc.language_id, line, character)``.
    An unchanged text costs one comparison; a changed one is re-parsed incrementally on the next
    read. Safe to call from several threads.
    """

    def __init__(
        self, capacity: int = 32, parse_budget_s: float = PARSE_BUDGET_S, *, windows: bool = True
    ) -> None:
        """`windows`: read long documents through windows (`windows.is_windowed`); off for
        texts that are windows already (the language server's probes of the call being typed)."""
        self._trees = SyntaxTrees(capacity, parse_budget_s)
        self._scans: dict[str, ScanCache] = {}  # per open document: what its last scan found
        self._lock = threading.Lock()
        self._windows = windows

    def _windowed(self, language: str, text: str) -> bool:
        return self._windows and is_windowed(language, text)

    def read(
        self, uri: str, text: str, version: int | None, language: str, line: int, column: int
    ) -> CallSite | None:
        with self._lock:
            lang = normalize_language(language)
            if lang == "html":
                from atlas_core.recognize.calls.js_html import script_text  # HTML only

                text, lang = script_text(text), "javascript"  # lines and columns kept
            document = self._trees.update(uri, text, version, lang)
            return self._read(uri, document, lang, line, column)

    def update(self, uri: str, text: str, version: int | None, language: str) -> None:
        """Record a new text for `uri` (on didOpen/didChange, if the server prefers to)."""
        with self._lock:
            self._trees.update(uri, text, version, normalize_language(language))

    def parse(self, uri: str, text: str, version: int | None, language: str) -> None:
        """Record a new text for `uri` and bring its tree up to date now (incrementally), so the
        next read finds it ready; a server calls this off its event loop on didOpen/didChange.
        A document read through windows (`windows.is_windowed`) keeps no tree."""
        with self._lock:
            lang = normalize_language(language)
            self._trees.update(uri, text, version, lang)
            if self._windowed(lang, text):
                self._trees.release_tree(uri)
            elif has_grammar(lang):
                self._trees.tree(uri)

    def scan(self, uri: str, text: str, version: int | None, language: str) -> list[Located]:
        """Every API call endpoint and key in `text` (`scan.scan_calls`), over the tree kept for
        `uri` (brought up to date incrementally first); the scan itself runs outside the lock,
        so hovers in other documents do not wait for it."""
        lang = normalize_language(language)
        if lang == "html":
            from atlas_core.recognize.calls.js_html import script_text  # HTML only

            text, lang = script_text(text), "javascript"  # lines and columns kept
        parsed = None
        cache = None
        if has_grammar(lang):
            with self._lock:
                document = self._trees.update(uri, text, version, lang)
                cache = self._scans.setdefault(uri, ScanCache())
                if self._windowed(lang, text):
                    self._trees.release_tree(uri)  # scanned window by window
                else:
                    parsed = (document, self._trees.tree(uri))
        return scan_calls(text, lang, parsed=parsed, cache=cache)

    def is_ready(self, uri: str, text: str) -> bool:
        """Whether a read of `text` needs no parse: the text recorded for `uri` is this very
        object and its tree (where its language has one) is up to date."""
        with self._lock:
            return self._trees.is_ready(uri, text)

    def call_at(self, uri: str, line: int, column: int) -> CallSite | None:
        """Read the text last recorded for `uri`; None when none was."""
        with self._lock:
            document = self._trees.document(uri)
            language = self._trees.language(uri)
            if document is None or language is None:
                return None
            return self._read(uri, document, language, line, column)

    def forget(self, uri: str) -> None:
        """Drop the tree of a closed document."""
        with self._lock:
            self._trees.forget(uri)
            self._scans.pop(uri, None)

    @property
    def last_parse_s(self) -> float:
        return self._trees.last_parse_s

    def _read(
        self, uri: str, document: Document, language: str, line: int, column: int
    ) -> CallSite | None:
        if not 0 <= line < document.line_count or column < 0:
            return None
        if language == "markdown":
            return _read_markdown(document, line, column)
        if language == "shell":
            from atlas_core.recognize.calls.curl import read_curl

            return read_curl(document, line, column, language)
        if language in TEXT_LANGUAGES:
            return text_call_at(document, language, line, column)
        reader = reader_for(language)
        if reader is not None and has_grammar(language) and not line_is_blanked(document, line):
            parsed, tree = document, None
            if self._windowed(language, document.text):
                self._trees.release_tree(uri)
                parsed, tree = _window_at(document, language, line)
            else:
                tree = self._trees.tree(uri)
            if tree is not None:
                offset = parsed.byte_offset(line, column)
                return reader(parsed, tree.root_node, language, line, offset).read()
        if is_generic(language):
            site = text_call_at(document, language, line, column)
            if site is not None:
                return site
        return read_text(document, line, column, language)


def _window_at(document: Document, language: str, line: int) -> tuple[Document, Tree | None]:
    """A long document's window for a read at `line`: the statement it is in, parsed with what
    it needs (`windows.Outline.window_for`); every other line blank, so lines and columns hold."""
    outline = outline_of(document.text, language)
    start, end = outline.statement_of(line)
    return parse_once("\n".join(outline.window_for(start, end)), language)


def call_at(text: str, language: str, line: int, column: int) -> CallSite | None:
    """One read with no cache: parse `text`, answer for one cursor."""
    return CallReader(capacity=1).read("memory:", text, None, language, line, column)


def _read_markdown(document: Document, line: int, column: int) -> CallSite | None:
    block = fenced_block_at(document, line)
    if block is None:
        return None
    info, first, last = block
    body = "\n".join(document.line(i) for i in range(first, last))
    language = block_language(info, body)
    if not language or len(body) > _MAX_BLOCK_CHARS:
        return None
    # The block's own language labels the answer: a curl line in a README sends wire names.
    return call_at(body, language, line - first, column)
