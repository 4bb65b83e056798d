"""Turn a path an agent sent into a file inside the docs mirror, or refuse it.

An agent's path is untrusted: it may climb out with ``..`` (plain or URL-encoded), be absolute,
carry a NUL byte, or name a symlink that points elsewhere. Everything is checked on the string
first and then again on the resolved path, so a symlink cannot smuggle a file from outside in.
A mirror is untrusted too: `reader` opens only what is still a regular file when it is opened.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from atlas_core.errors import QueryError

RESOURCE_PREFIX = "atlas://docs/"
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")
# Decoding is repeated so that double-encoded input (%252e%252e) cannot slip through.
_MAX_DECODE_ROUNDS = 3
MAX_PATH_CHARS = 1024


class PathRejected(QueryError):
    """A path outside the mirror, malformed, or naming something that is not a file."""


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
