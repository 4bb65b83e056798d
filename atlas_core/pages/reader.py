"""The one reader of docs pages: one size cap, one way to open a file, one outline cache.

Whoever reads a page (the MCP file tools, a hover's section, `atlas` commands) reads it here, so a
page too big to be a page, a FIFO or a file swapped for a link is refused the same way everywhere.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from atlas_core.errors import QueryError
from atlas_core.pages.paths import PathRejected

if TYPE_CHECKING:
    from atlas_core.markdown import Outline

log = logging.getLogger(__name__)

MAX_PAGE_BYTES = 8 * 1024 * 1024  # a docs page is kilobytes; anything this big is not one
OUTLINES_KEPT = 256  # pages whose headings one mirror keeps

# A FIFO opened for reading blocks until a writer appears; O_NONBLOCK makes the open return at
# once, and fstat then tells what was opened. O_NOFOLLOW: a file swapped for a link is refused.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
)


def open_regular(path: Path, name: str) -> BinaryIO:
    """Open ``path`` for binary reading if it is a regular file; PathRejected for anything else
    (FIFO, device, socket, directory), OSError when it cannot be opened. ``name`` is what the
    message calls it (the path the agent knows)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PathRejected(
                f"{name!r} is not a regular file; only docs pages can be read",
                hint="list_files(publication=...) shows the docs files",
            )
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_lines(path: Path, name: str) -> list[str]:
    """A page's lines, split on "\\n" only (the engine's and ripgrep's line numbering); QueryError
    for a file larger than a page can be, PathRejected or OSError when it cannot be read.
    Blocking and bounded: a server calls it off its event loop."""
    from atlas_core.markdown import page_lines

    with open_regular(path, name) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_PAGE_BYTES:
            raise QueryError(
                f"{name!r} is {size} bytes, larger than a docs page can be ({MAX_PAGE_BYTES})",
                hint="search_text finds lines in it without reading it whole",
            )
        # Read to the cap, not to the size: a file can grow after fstat.
        data = fh.read(MAX_PAGE_BYTES + 1)[:MAX_PAGE_BYTES]
    return page_lines(data)


def read_page(path: Path) -> bytes | None:
    """A page's bytes, or None when it is not a readable regular file of a page's size."""
    try:
        with open_regular(path, path.name) as handle:
            data = handle.read(MAX_PAGE_BYTES + 1)
    except (OSError, QueryError):
        log.debug("cannot read the page %s", path, exc_info=True)
        return None
    return data if len(data) <= MAX_PAGE_BYTES else None


class Outlines:
    """The headings of the pages of one mirror asked about most recently. A mirror never changes
    while it is served, so an outline read once stays true."""

    def __init__(self, kept: int = OUTLINES_KEPT) -> None:
        self._kept = kept
        self._outlines: OrderedDict[str, Outline | None] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, rel: str, path: Path) -> Outline | None:
        """The outline of page `rel` (at `path`); None when it cannot be read."""
        with self._lock:
            if rel in self._outlines:
                self._outlines.move_to_end(rel)
                return self._outlines[rel]
        from atlas_core.markdown import Outline, page_lines

        data = read_page(path)
        outline = Outline.of(page_lines(data)) if data is not None else None
        with self._lock:
            self._outlines[rel] = outline
            while len(self._outlines) > self._kept:
                self._outlines.popitem(last=False)
        return outline
