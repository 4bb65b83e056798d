"""Turn a path an agent sent into a file inside the docs mirror, or refuse it.

An agent's path is untrusted: it may climb out with ``..`` (plain or URL-encoded), be absolute,
carry a NUL byte, or name a symlink that points elsewhere. Everything is checked on the string
first and then again on the resolved path, so a symlink cannot smuggle a file from outside in.
A mirror is untrusted too: whatever sits in it is opened only if it is a regular file, so a FIFO
or a device that appears there can never block a read.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePosixPath
from typing import BinaryIO
from urllib.parse import unquote

from atlas_core.errors import QueryError

RESOURCE_PREFIX = "atlas://docs/"
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
# Decoding is repeated so that double-encoded input (%252e%252e) cannot slip through.
_MAX_DECODE_ROUNDS = 3
MAX_PATH_CHARS = 1024


# A FIFO opened for reading blocks until a writer appears; O_NONBLOCK makes the open return at
# once, and fstat then tells what was opened. O_NOFOLLOW: a file swapped for a link is refused.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
)


class PathRejected(QueryError):
    """A path outside the mirror, malformed, or naming something that is not a file."""


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


def normalize_relpath(raw: str) -> str:
    """Check a user path on its own and return it as a clean relative POSIX path.

    Accepts the forms results hand out: ``section/page.md``, ``./section/page.md`` and the
    resource URI ``atlas://docs/section/page.md``. Raises PathRejected for anything else.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise PathRejected("path is empty", hint="pass a path from list_files or a search result")
    if len(raw) > MAX_PATH_CHARS:
        raise PathRejected(f"path is longer than {MAX_PATH_CHARS} characters")
    text = raw.strip()
    if text.startswith(RESOURCE_PREFIX):
        text = text[len(RESOURCE_PREFIX) :]
    for _ in range(_MAX_DECODE_ROUNDS):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    if "\x00" in text:
        raise PathRejected(f"path {raw!r} contains a NUL byte", hint="pass a plain relative path")
    text = text.replace("\\", "/")
    if text.startswith("/") or text.startswith("~") or _WINDOWS_DRIVE.match(text):
        raise PathRejected(
            f"path {raw!r} is absolute; only paths inside the docs mirror can be read",
            hint="pass a relative path such as the `file` of a search result",
        )
    parts = [part for part in PurePosixPath(text).parts if part not in ("", ".")]
    if ".." in parts:
        raise PathRejected(
            f"path {raw!r} contains '..'; only paths inside the docs mirror can be read",
            hint="pass a relative path such as the `file` of a search result",
        )
    if not parts:
        raise PathRejected(f"path {raw!r} names the mirror root, not a file")
    return "/".join(parts)


def resolve_file(root: Path, raw: str) -> tuple[str, Path]:
    """Resolve a user path to ``(relpath, absolute file)`` strictly inside ``root``."""
    rel = normalize_relpath(raw)
    base = root.resolve()
    candidate = base / rel
    try:
        resolved = candidate.resolve(strict=True)
    except FileNotFoundError:
        raise PathRejected(
            f"no file {rel!r} in the docs mirror",
            hint="list_files(publication=...) shows the files; search_docs finds pages by topic",
        ) from None
    except (OSError, RuntimeError) as exc:  # symlink loops, permission problems
        raise PathRejected(f"cannot open {rel!r}: {exc}") from None
    if not resolved.is_relative_to(base):
        raise PathRejected(
            f"path {rel!r} leads outside the docs mirror (a link to {resolved.name!r})",
            hint="only files inside the mirror can be read",
        )
    if resolved.is_dir():
        raise PathRejected(
            f"{rel!r} is a directory, not a file",
            hint=f"list_files(publication={rel.split('/')[0]!r}) lists its files",
        )
    if not resolved.is_file():  # a FIFO, socket or device: never opened
        raise PathRejected(
            f"{rel!r} is not a regular file; only docs pages can be read",
            hint="list_files(publication=...) shows the docs files",
        )
    return rel, resolved
