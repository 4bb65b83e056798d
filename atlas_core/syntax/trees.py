"""Tree-sitter behind a small face: grammars loaded on first use, parses bounded in time and size,
one syntax tree per open document kept up to date by incremental re-parsing.

Importing this module costs nothing: `tree_sitter` and each grammar are imported the first time a
document of that language is parsed, so a server that never hovers code never loads them. A missing
or incompatible grammar makes `SyntaxTrees.tree` return None and the caller falls back to reading
text.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

from atlas_core.syntax.document import Document

if TYPE_CHECKING:
    from types import ModuleType

    from tree_sitter import Language, Node, Parser, Tree

log = logging.getLogger(__name__)

# Grammar module and the function in it that returns the language pointer, per language id.
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "java": ("tree_sitter_java", "language"),
    "groovy": ("tree_sitter_groovy", "language"),
}
# Grammars only the code chunker reads (`atlas_core.code`), loaded by the same loader so a process
# holds one `Language` per grammar; the call readers do not read these languages.
_CHUNKING_GRAMMARS: dict[str, tuple[str, str]] = {
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "shell": ("tree_sitter_bash", "language"),
    "yaml": ("tree_sitter_yaml", "language"),
    "json": ("tree_sitter_json", "language"),
}

# Past these sizes a document is read as text: parsing would cost more than a hover may take.
MAX_PARSE_BYTES = 1 << 20
# A line this long is generated data (minified code, an embedded blob); it is blanked before parsing
# so tree-sitter's error recovery never churns through it, and read as text when hovered.
MAX_LINE_BYTES = 2000
# A parse that runs longer is abandoned; the document is read as text until it shrinks.
PARSE_BUDGET_S = 0.5
_CHUNK = 1 << 18


def has_grammar(language: str) -> bool:
    return language in _GRAMMARS


_languages: dict[str, Language | None] = {}
_languages_lock = threading.Lock()


def load_language(language: str) -> Language | None:
    """The tree-sitter language for `language`, or None when its grammar is not installed."""
    with _languages_lock:
        if language in _languages:
            return _languages[language]
        found: Language | None = None
        spec = _GRAMMARS.get(language) or _CHUNKING_GRAMMARS.get(language)
        if spec is not None:
            try:
                from tree_sitter import Language

                found = Language(getattr(_grammar_binding(spec[0]), spec[1])())
            except ImportError:
                log.info(
                    "no tree-sitter grammar for %s (%s); reading it as text", language, spec[0]
                )
            except (ValueError, AttributeError) as exc:
                # An installed grammar built for another tree-sitter ABI.
                log.warning("tree-sitter grammar %s cannot be loaded: %s", spec[0], exc)
        _languages[language] = found
        return found


def _grammar_binding(package: str) -> ModuleType:
    """The grammar package's compiled ``_binding`` module, which holds its language functions.

    It is loaded from its file without running the package's ``__init__``: that imports
    importlib.resources for the package's query files (which Atlas never reads), and with it
    tempfile, shutil and random, ~150 KB of source an editor's first hover would compile. The
    module is entered in `sys.modules` under its own name, so a later ordinary import of the
    package reuses it. Anything unusual (a zip install, no such file) falls back to that import.
    """
    import importlib.machinery
    import importlib.util

    name = f"{package}._binding"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    found = importlib.util.find_spec(package)  # finds the package without importing it
    folders = list(found.submodule_search_locations or ()) if found is not None else []
    for folder in folders:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = f"{folder}/_binding{suffix}"
            if not os.path.isfile(path):
                continue
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                continue
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
            return module
    return importlib.import_module(name)


# --- what the parser sees ----------------------------------------------------------------------

# Groovy ends a statement at a newline, and this grammar does not know that a line starting with
# `.name(` continues the previous one; builder chains are written exactly that way.
_GROOVY_CONTINUATION = re.compile(rb"(?m)^([^\n]*)\n(?=[ \t]*\??\.[A-Za-z_])")


def _join_groovy_chains(data: bytes) -> bytes:
    def join(m: re.Match[bytes]) -> bytes:
        return m.group(0) if b"//" in m.group(1) else m.group(1) + b" "

    return _GROOVY_CONTINUATION.sub(join, data)


_LONG_LINE = re.compile(rb"[^\n]{%d}" % (MAX_LINE_BYTES + 1))


def parse_source(document: Document, language: str) -> bytes:
    """The bytes handed to tree-sitter: the document's, same length, so every offset still holds,
    with over-long lines blanked and (for Groovy) chain continuations joined."""
    data = document.data
    if len(data) > MAX_LINE_BYTES and _LONG_LINE.search(data):
        starts = document.byte_starts
        long_lines = [
            (start, end)
            for start, end in zip(starts, [*starts[1:], len(data) + 1], strict=True)
            if end - start > MAX_LINE_BYTES
        ]
        if long_lines:
            buffer = bytearray(data)
            for start, end in long_lines:
                stop = min(end - 1, len(data))
                buffer[start:stop] = b" " * (stop - start)
            data = bytes(buffer)
    if language == "groovy" and b"\n" in data:
        data = _join_groovy_chains(data)
    return data


def line_is_blanked(document: Document, line: int) -> bool:
    starts = document.byte_starts
    if not 0 <= line < len(starts):
        return False
    end = starts[line + 1] if line + 1 < len(starts) else len(document.data) + 1
    return end - starts[line] > MAX_LINE_BYTES


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many leading bytes `a` and `b` share: 64 KiB slices compared at C speed, then a binary
    search inside the slice that differs."""
    limit = min(len(a), len(b))
    step = 1 << 16
    low = 0
    while low + step <= limit and a[low : low + step] == b[low : low + step]:
        low += step
    high = min(low + step, limit)
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_suffix(a: bytes, b: bytes, floor: int) -> int:
    """How many trailing bytes `a` and `b` share, never reaching into the first `floor` bytes."""
    limit = min(len(a), len(b)) - floor
    step = 1 << 16
    low = 0
    while (
        low + step <= limit
        and a[len(a) - low - step : len(a) - low] == b[len(b) - low - step : len(b) - low]
    ):
        low += step
    high = min(low + step, limit)
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return low


def _point(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


# --- the trees -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    language: str
    version: int | None
    document: Document
    source: bytes | None = None  # what `tree` was parsed from
    tree: Tree | None = None
    parsed: Document | None = None  # the version `tree` reflects
    too_slow_at: int = 0  # size of the text whose parse ran over budget


class SyntaxTrees:
    """A least-recently-used set of parsed documents keyed by URI, re-parsed incrementally.

    `update` only records the new text; the next `tree` call diffs it against the text the tree
    was built from (one edit spanning the changed bytes) and lets tree-sitter re-parse just that
    region. The LSP therefore needs to pass no edit list: whatever happened between two hovers,
    the diff is exact.
    """

    def __init__(self, capacity: int = 32, budget_s: float = PARSE_BUDGET_S) -> None:
        self._capacity = capacity
        self._budget_s = budget_s
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._parsers: dict[str, Parser] = {}
        self._lock = threading.RLock()
        self.last_parse_s = 0.0  # for benchmarks: the time the latest parse took

    def update(self, uri: str, text: str, version: int | None, language: str) -> Document:
        """Record the text of `uri` (a no-op when the version and text are unchanged)."""
        with self._lock:
            entry = self._entries.get(uri)
            if entry is not None and entry.language == language:
                # Comparing the text (a memcmp) rather than trusting the version number alone
                # keeps a client that reuses versions from being served a stale tree.
                if entry.document.text != text:
                    entry.document = Document(text)
                entry.version = version
                self._entries.move_to_end(uri)
                return entry.document
            entry = _Entry(language, version, Document(text))
            self._entries[uri] = entry
            self._entries.move_to_end(uri)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
            return entry.document

    def forget(self, uri: str) -> None:
        with self._lock:
            self._entries.pop(uri, None)

    def release_tree(self, uri: str) -> None:
        """Drop the tree of `uri` but keep its text: a document read through windows only."""
        with self._lock:
            entry = self._entries.get(uri)
            if entry is not None and entry.tree is not None:
                entry.tree, entry.source, entry.parsed = None, None, None

    def is_ready(self, uri: str, text: str) -> bool:
        entry = self._entries.get(uri)
        if entry is None or entry.document.text is not text:
            return False
        return not has_grammar(entry.language) or entry.parsed is entry.document

    def document(self, uri: str) -> Document | None:
        entry = self._entries.get(uri)
        return entry.document if entry else None

    def language(self, uri: str) -> str | None:
        entry = self._entries.get(uri)
        return entry.language if entry else None

    def tree(self, uri: str) -> Tree | None:
        """The syntax tree of the latest text of `uri`, or None: no grammar, too large, too slow."""
        with self._lock:
            entry = self._entries.get(uri)
            if entry is None:
                return None
            if entry.parsed is entry.document:
                return entry.tree
            return self._reparse(entry)

    def _reparse(self, entry: _Entry) -> Tree | None:
        document = entry.document
        size = len(document.text)
        if size > MAX_PARSE_BYTES or (entry.too_slow_at and size * 2 > entry.too_slow_at):
            entry.tree, entry.source, entry.parsed = None, None, document
            return None
        parser = self._parser(entry.language)
        if parser is None:
            entry.tree, entry.source, entry.parsed = None, None, document
            return None
        source = parse_source(document, entry.language)
        old = entry.tree
        if old is not None and entry.source is not None:
            _edit(old, entry.source, source)
        tree = self._parse(parser, source, old)
        if tree is None:
            entry.too_slow_at = size
            log.info("parsing a %d-byte %s document ran over budget", size, entry.language)
        entry.tree, entry.source, entry.parsed = tree, source if tree else None, document
        return tree

    def _parser(self, language: str) -> Parser | None:
        parser = self._parsers.get(language)
        if parser is None:
            lang = load_language(language)
            if lang is None:
                return None
            from tree_sitter import Parser

            parser = self._parsers[language] = Parser(lang)
        return parser

    def _parse(self, parser: Parser, source: bytes, old: Tree | None) -> Tree | None:
        started = time.perf_counter()
        try:
            return parse_within(parser, source, old, started + self._budget_s)
        except ValueError:  # the progress callback halted the parse
            parser.reset()
            return None
        finally:
            self.last_parse_s = time.perf_counter() - started


def parse_within(parser: Parser, source: bytes, old: Tree | None, deadline: float) -> Tree:
    """`parser.parse` of `source` (re-using `old` when given), halted with ValueError once
    `time.perf_counter()` passes `deadline` (tree-sitter checks that only when it reads the text
    through a callback)."""
    # tree-sitter 0.26 keeps a reference to every object the callback returns, so returning slices
    # of the text leaked the whole text on every parse (0.35 MB per keystroke in a 10,000-line
    # file). It takes memoryviews as well: released after the parse, each one it keeps holds a
    # couple of hundred bytes and not the text.
    whole = memoryview(source)
    lent: list[memoryview] = []

    def read(offset: int, _point: tuple[int, int]) -> memoryview:
        chunk = whole[offset : offset + _CHUNK]
        lent.append(chunk)
        return chunk

    def over_budget(_offset: int, _has_error: bool) -> bool:
        return time.perf_counter() > deadline

    try:
        if old is None:
            return parser.parse(read, progress_callback=over_budget)
        return parser.parse(read, old, progress_callback=over_budget)
    finally:
        for chunk in (*lent, whole):
            with contextlib.suppress(BufferError):  # still lent out: left to the collector
                chunk.release()


# A changed stretch longer than this is diffed line by line: edits at two places of a long file
# (typing here, then there, before the next parse) become two small edits instead of one that
# spans everything between them, which tree-sitter would re-parse whole.
SPLIT_EDIT_BYTES = 4096
MAX_DIFF_LINES = 20_000


def _edit(tree: Tree, old: bytes, new: bytes) -> None:
    start = _common_prefix(old, new)
    suffix = _common_suffix(old, new, start)
    old_end, new_end = len(old) - suffix, len(new) - suffix
    regions = [(start, old_end, start, new_end)]
    if old_end - start > SPLIT_EDIT_BYTES and new_end - start > SPLIT_EDIT_BYTES:
        regions = _changed_lines(old, new, start, old_end, new_end) or regions
    # From the last region to the first: an edit leaves the text before it where it was, so each
    # region's start is the same in the old text and in the text being edited.
    for old_start, old_stop, new_start, new_stop in reversed(regions):
        row, column = _point(old, old_start)
        tree.edit(
            start_byte=old_start,
            old_end_byte=old_stop,
            new_end_byte=old_start + (new_stop - new_start),
            start_point=(row, column),
            old_end_point=_point(old, old_stop),
            new_end_point=_after(row, column, new[new_start:new_stop]),
        )


def _changed_lines(
    old: bytes, new: bytes, start: int, old_end: int, new_end: int
) -> list[tuple[int, int, int, int]]:
    """The changed regions between the common prefix and suffix, line by line, as (start, end)
    in the old text and (start, end) in the new; [] when a line diff is not worth it."""
    from difflib import SequenceMatcher

    base = old.rfind(b"\n", 0, start) + 1  # whole lines: the diff compares lines
    a = old[base:old_end].splitlines(keepends=True)
    b = new[base:new_end].splitlines(keepends=True)
    if len(a) + len(b) > MAX_DIFF_LINES:
        return []
    a_at = list(accumulate(map(len, a), initial=base))
    b_at = list(accumulate(map(len, b), initial=base))
    return [
        (a_at[i1], a_at[i2], b_at[j1], b_at[j2])
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if tag != "equal"
    ]


def _after(row: int, column: int, added: bytes) -> tuple[int, int]:
    """The point after `added` bytes written at (row, column)."""
    lines = added.count(b"\n")
    if not lines:
        return row, column + len(added)
    return row + lines, len(added) - (added.rfind(b"\n") + 1)


def parse_once(text: str, language: str) -> tuple[Document, Tree | None]:
    """A fresh parse with no cache (for one-off reads and tests)."""
    trees = SyntaxTrees(capacity=1)
    document = trees.update("memory:", text, None, language)
    return document, trees.tree("memory:")


# --- reading nodes -------------------------------------------------------------------------------


def ancestors(node: Node) -> Iterator[Node]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def field(node: Node | None, name: str) -> Node | None:
    return node.child_by_field_name(name) if node is not None else None


def is_field(node: Node, name: str) -> bool:
    """Whether `node` is its parent's child in field `name`."""
    parent = node.parent
    if parent is None:
        return False
    child = parent.child_by_field_name(name)
    return child is not None and child.id == node.id


def occurrences(
    data: bytes, word: str, start: int, end: int, *, limit: int = 64, reverse: bool = False
) -> Iterator[int]:
    """Byte offsets of `word` as a whole identifier in ``data[start:end]``.

    Finding a name by text first and asking the tree only about those places keeps a lookup in a
    10,000-line file to a handful of node queries instead of a walk over every node.
    """
    needle = word.encode("utf-8", "surrogatepass")
    if not needle:
        return
    found = 0
    pos = end if reverse else start
    while found < limit:
        pos = data.rfind(needle, start, pos) if reverse else data.find(needle, pos, end)
        if pos < 0:
            return
        before = data[pos - 1 : pos] if pos else b""
        after = data[pos + len(needle) : pos + len(needle) + 1]
        if not (_ident_byte(before) or _ident_byte(after)):
            found += 1
            yield pos
        if not reverse:
            pos += len(needle)


def _ident_byte(b: bytes) -> bool:
    return bool(b) and (b.isalnum() or b in (b"_", b"$"))
