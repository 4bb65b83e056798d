"""Reading a file of a bundle without trusting what it is: one open, one size, one depth.

A bundle comes from the internet, and its folder can hold anything a tar or a person puts there.
`manifest.json` linked to `/dev/zero` would be read until memory runs out, a FIFO would block the
reader forever, and a JSON file nested 200,000 levels deep (hashes re-sealed, so verify's hashes
pass it) would overflow Python's stack in the decoder or in whatever walks the value next. Every
file here is opened once without following a final link and without blocking, checked on the open
descriptor to be a regular file no larger than a cap, and read from that descriptor, so nothing
can be swapped in between the check and the read. Every JSON file of a bundle is then parsed by
`loads_bounded`: RFC 8259 (no NaN or Infinity), UTF-8, and at most MAX_JSON_DEPTH levels deep.

Errors are ValueError (what is wrong with the file) or OSError (it cannot be opened at all), with
the reason and no path, like the other readers of bundle files: the caller names the file in
the BundleError it raises.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

# The deepest JSON a bundle writes is the manifest (about 5 levels); 64 leaves room for any later
# format and stays far below Python's recursion limit for whatever walks the value.
MAX_JSON_DEPTH = 64
# An identifier record carries OpenAPI examples, which a spec may nest up to the source reader's
# own limit (safeio/bounded_parse.py, 100 levels) below the record's few levels of its own.
MAX_RECORD_DEPTH = 128
# A manifest lists every mirror page (about 150 bytes each); a million pages stay under this.
MAX_JSON_BYTES = 256 << 20

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: str | Path, *, limit: int, follow_links: bool = False) -> bytes:
    """The bytes of `path` when it is a regular file of at most `limit` bytes.

    ValueError with the reason for a link (unless `follow_links`: then for a link to anything but
    a regular file), a FIFO, a device or anything else that is not a regular file, and for a file
    over `limit`; OSError when it cannot be opened (missing, ...).
    """
    flags = _OPEN_FLAGS & ~os.O_NOFOLLOW if follow_links else _OPEN_FLAGS
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        # O_NOFOLLOW on a final link fails with ELOOP (EMLINK on some BSDs): say what it means.
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise ValueError("is a symbolic link; bundles hold plain files only") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"is {_kind(st.st_mode)}; bundles hold plain files only")
        if st.st_size > limit:
            raise ValueError(f"is {st.st_size:,} bytes, more than the {limit:,} allowed")
        # Blocking reads from here on: a regular file never blocks, and O_NONBLOCK only kept a
        # FIFO's open from waiting for a writer.
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew after fstat
                raise ValueError(f"grew past the {limit:,} bytes allowed while being read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (RFC 8259)")


def loads_bounded(raw: bytes, *, max_depth: int = MAX_JSON_DEPTH, rfc8259: bool = True) -> Any:
    """Parse UTF-8 JSON nested at most `max_depth` levels, as RFC 8259 defines it (Python's extra
    NaN, Infinity and -Infinity are refused) unless `rfc8259` is False; ValueError with the reason
    otherwise."""
    text = raw.decode("utf-8")
    try:
        value = json.loads(text, parse_constant=_refuse_constant if rfc8259 else None)
    except RecursionError:
        # The C decoder stops near Python's recursion limit, far deeper than any limit here.
        raise ValueError(f"nested more than {max_depth} levels deep") from None
    if deeper_than(value, max_depth):
        raise ValueError(f"nested more than {max_depth} levels deep")
    return value


def deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than `limit` levels (the outermost is level 1), without
    recursion: level by level, one comprehension per level rather than Python calls per container
    (a parser may build a deep value without recursing, as TOML's dotted keys do)."""
    level = [value] if isinstance(value, dict | list) else []
    for _ in range(limit):  # each turn finds the containers one level further down
        level = [
            item
            for node in level
            for item in (node.values() if isinstance(node, dict) else node)
            if isinstance(item, dict | list)
        ]
        if not level:
            return False
    return True


def read_json(path: str | Path, *, limit: int = MAX_JSON_BYTES, follow_links: bool = False) -> Any:
    """A JSON file of a bundle, through `read_regular` and `loads_bounded`: ValueError or OSError
    with the reason (the caller names the file)."""
    return loads_bounded(read_regular(path, limit=limit, follow_links=follow_links))
