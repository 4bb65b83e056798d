"""Document text as the features need it: LSP lines, position encodings, language guesses.

pygls re-splits a document's whole text on every ``lines`` access; a hover on a 5 MB file would pay
for that on every request, so the split is cached per text object here. Lines split on ``\\n``,
``\\r\\n`` and ``\\r`` only, as the LSP specification says (``str.splitlines`` also splits on form
feeds and Unicode separators, which would shift every line number after one).

Nothing here blocks the event loop for long: a big document is split on a worker thread, one over
`MAX_DOCUMENT_CHARS` counts as no document at all, and a file the client never opened is read on
a thread of its own, only when it is a regular file, at most `MAX_UNOPENED_BYTES`, within
`UNOPENED_READ_TIMEOUT_S` (a hover on a FIFO or ``/dev/zero`` would otherwise hang every request).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import stat
import threading
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

logger = logging.getLogger(__name__)

MAX_DOCUMENT_CHARS = 8 * 1024 * 1024  # an open document over this is left alone, as no document
INLINE_SPLIT_CHARS = 256 * 1024  # texts up to this are split on the event loop (well under 5 ms)
MAX_UNOPENED_BYTES = 2 * 1024 * 1024  # a file the client never opened is read from disk, capped
UNOPENED_READ_TIMEOUT_S = 5.0  # a read still running then (a hung network mount) is given up
MAX_UNOPENED_READS = 4  # reads in flight at once; more are refused rather than queued

# Opening a FIFO for reading must not wait for a writer, and a terminal must not become ours.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")

_EXTENSIONS = {
    ".py": "python",
    ".pyi": "python",
    ".java": "java",
    ".groovy": "groovy",
    ".gvy": "groovy",
    ".gradle": "groovy",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".json": "json",
    ".jsonc": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".md": "markdown",
    ".markdown": "markdown",
    ".graphql": "graphql",
    ".gql": "graphql",
}


def split_lines(text: str) -> list[str]:
    """The document's lines without their line breaks; an empty text has one empty line."""
    return _LINE_BREAK.split(text)


def language_from_path(path: str) -> str:
    return _EXTENSIONS.get(PurePosixPath(path).suffix.lower(), "")


# --- position encodings ---------------------------------------------------------------------

# Python codecs for the client's position encoding and its code-unit width. Encoding a prefix of
# the line runs in C: a position on a 5 MB minified line costs microseconds, not a Python loop.
_CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2)}


def _codec(encoding: str) -> tuple[str, int]:
    return _CODECS.get(encoding, _CODECS["utf-16"])


def _units(ch: str, encoding: str) -> int:
    cp = ord(ch)
    if encoding == "utf-8":
        return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
    if encoding == "utf-32":
        return 1
    return 2 if cp >= 0x10000 else 1


def column_from_client(line: str, character: int, encoding: str) -> int:
    """A client column (UTF-16 code units by default) as an index into the Python string.

    A column inside a character (half a surrogate pair, a byte inside a UTF-8 sequence) is the
    index after that character; a column past the end is the line's length.
    """
    if character <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(character, len(line))
    codec, width = _codec(encoding)
    try:
        # Every character is at least one code unit, so the first `character` characters cover it.
        data = line[:character].encode(codec)[: character * width]
    except UnicodeEncodeError:  # a lone surrogate (no codec spells it): count one by one
        units = 0
        for index, ch in enumerate(line):
            if units >= character:
                return index
            units += _units(ch, encoding)
        return len(line)
    try:
        return len(data.decode(codec))
    except UnicodeDecodeError as exc:  # the column cuts a character: count that character
        return len(data[: exc.start].decode(codec)) + 1


def column_to_client(line: str, column: int, encoding: str) -> int:
    column = max(0, min(column, len(line)))
    if encoding == "utf-32" or line.isascii():
        return column
    codec, width = _codec(encoding)
    try:
        return len(line[:column].encode(codec)) // width
    except UnicodeEncodeError:  # a lone surrogate
        return sum(_units(ch, encoding) for ch in line[:column])


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One version of a document's text, split into lines, with its language."""

    uri: str
    text: str
    lines: list[str]
    language_id: str
    version: int | None


def line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
    return starts


def _short(name: str) -> str:
    """A path or URI for a log line: a client can send one of 50 MB."""
    return name if len(name) <= 200 else name[:199] + "…"


def read_regular_file(path: str, limit: int) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most `limit` bytes, else None.

    Anything else (a FIFO, a socket, a device such as ``/dev/zero``, a directory, ``/proc/self/fd/0``)
    is refused before it is opened: opening some devices has effects of its own. The open file is
    checked again (it may have been swapped since the stat), and at most ``limit + 1`` bytes are
    read, since ``/proc`` files report a size of 0 whatever they hold.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError):  # ValueError: a NUL byte or a lone surrogate in the path
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data if len(data) <= limit else None


def _unopened_snapshot(uri: str, path: str) -> Snapshot | None:
    data = read_regular_file(path, MAX_UNOPENED_BYTES)
    if data is None:
        logger.info(
            "%s is not open in the editor nor a readable regular file of at most %d bytes; skipped",
            _short(path),
            MAX_UNOPENED_BYTES,
        )
        return None
    text = data.decode("utf-8", errors="replace")
    return Snapshot(uri, text, split_lines(text), language_from_path(path), None)


class DocumentCache:
    """Snapshots keyed by URI, rebuilt only when pygls holds a new text object for the document."""

    def __init__(self) -> None:
        self._cache: dict[str, Snapshot] = {}
        self._oversized: set[str] = set()  # URIs already logged as over MAX_DOCUMENT_CHARS
        self._reads = 0  # unopened-file reads whose thread has not finished

    @staticmethod
    def _open_document(workspace: Any, uri: str) -> Any:
        documents = getattr(workspace, "text_documents", None)
        return documents.get(uri) if documents is not None else None

    def is_current(self, workspace: Any, snap: Snapshot) -> bool:
        """Whether `snap` still holds the text of its open document."""
        doc = self._open_document(workspace, snap.uri)
        return doc is not None and doc._source is snap.text

    def is_open(self, workspace: Any, uri: str) -> bool:
        return self._open_document(workspace, uri) is not None

    async def snapshot(self, workspace: Any, uri: str) -> Snapshot | None:
        """The document's current snapshot; None when it is neither open nor a readable file, or
        when it is too big to work on."""
        doc = self._open_document(workspace, uri)
        if doc is None:
            return await self._unopened(workspace, uri)
        text = doc._source if doc._source is not None else ""
        cached = self._cache.get(uri)
        if cached is not None and cached.text is text:
            return cached
        if len(text) > MAX_DOCUMENT_CHARS:
            if uri not in self._oversized:
                self._oversized.add(uri)
                logger.info(
                    "%s has %d characters, over %d: hover, completion and diagnostics are off "
                    "for it",
                    _short(uri),
                    len(text),
                    MAX_DOCUMENT_CHARS,
                )
            return None
        if len(text) > INLINE_SPLIT_CHARS:
            lines = await asyncio.to_thread(split_lines, text)
        else:
            lines = split_lines(text)
        language = doc.language_id or language_from_path(doc.path or uri)
        snap = Snapshot(uri, text, lines, language, doc.version)
        self._cache[uri] = snap
        return snap

    async def _unopened(self, workspace: Any, uri: str) -> Snapshot | None:
        try:
            path = workspace.get_text_document(uri).path
        except Exception:  # not a URI pygls can map to a path
            return None
        if not path or not isinstance(path, str):
            return None
        if self._reads >= MAX_UNOPENED_READS:
            logger.info("%s: %d file reads are still running; skipped", _short(path), self._reads)
            return None
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Snapshot | None] = loop.create_future()

        def finish(snap: Snapshot | None) -> None:
            self._reads -= 1  # counted until the thread ends, even after the request gave up
            if not done.done():
                done.set_result(snap)

        def read() -> None:
            snap = None
            try:
                snap = _unopened_snapshot(uri, path)
            except Exception:
                logger.exception("reading %s failed", _short(path))
            finally:
                # The loop may be gone when a hung read returns at last, after the server stopped.
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(finish, snap)

        self._reads += 1
        # A daemon thread, not an executor: a read that never returns must not hold up exit.
        threading.Thread(target=read, name="atlas-read", daemon=True).start()
        try:
            return await asyncio.wait_for(asyncio.shield(done), UNOPENED_READ_TIMEOUT_S)
        except TimeoutError:
            logger.warning(
                "reading %s took over %.0f s; skipped", _short(path), UNOPENED_READ_TIMEOUT_S
            )
            return None

    def forget(self, uri: str) -> None:
        self._cache.pop(uri, None)
        self._oversized.discard(uri)
