"""Document text as the features need it: LSP lines, position encodings, language guesses.

pygls re-splits a document's whole text on every ``lines`` access; a hover on a 5 MB file would pay
for that on every request, so the split is cached per text object here. Lines split on ``\\n``,
``\\r\\n`` and ``\\r`` only, as the LSP specification says (``str.splitlines`` also splits on form
feeds and Unicode separators, which would shift every line number after one).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

logger = logging.getLogger(__name__)

MAX_UNOPENED_BYTES = 8 * 1024 * 1024  # a file the client never opened is read from disk, capped

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


def _units(ch: str, encoding: str) -> int:
    cp = ord(ch)
    if encoding == "utf-8":
        return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
    if encoding == "utf-32":
        return 1
    return 2 if cp >= 0x10000 else 1


def column_from_client(line: str, character: int, encoding: str) -> int:
    """A client column (UTF-16 code units by default) as an index into the Python string."""
    if character <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(character, len(line))
    units = 0
    for index, ch in enumerate(line):
        if units >= character:
            return index
        units += _units(ch, encoding)
    return len(line)


def column_to_client(line: str, column: int, encoding: str) -> int:
    column = max(0, min(column, len(line)))
    if encoding == "utf-32" or line.isascii():
        return column
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


class DocumentCache:
    """Snapshots keyed by URI, rebuilt only when pygls holds a new text object for the document."""

    def __init__(self) -> None:
        self._cache: dict[str, Snapshot] = {}

    def snapshot(self, workspace: Any, uri: str) -> Snapshot | None:
        """The document's current snapshot; None when it is neither open nor a readable file."""
        doc = workspace.text_documents.get(uri) if hasattr(workspace, "text_documents") else None
        if doc is None:
            return self._unopened(workspace, uri)
        text = doc._source if doc._source is not None else ""
        cached = self._cache.get(uri)
        if cached is not None and cached.text is text:
            return cached
        language = doc.language_id or language_from_path(doc.path or uri)
        snap = Snapshot(uri, text, split_lines(text), language, doc.version)
        self._cache[uri] = snap
        return snap

    def _unopened(self, workspace: Any, uri: str) -> Snapshot | None:
        try:
            doc = workspace.get_text_document(uri)
            path = doc.path
        except Exception:
            return None
        if not path:
            return None
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_UNOPENED_BYTES + 1)
        except OSError:
            return None
        if len(data) > MAX_UNOPENED_BYTES:
            logger.info(
                "%s is over %d bytes and not open in the editor; skipped", path, MAX_UNOPENED_BYTES
            )
            return None
        text = data.decode("utf-8", errors="replace")
        return Snapshot(uri, text, split_lines(text), language_from_path(path), None)

    def forget(self, uri: str) -> None:
        self._cache.pop(uri, None)
