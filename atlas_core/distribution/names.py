"""File names that come from the network or a manifest, checked before they name anything on disk.

A release's asset names and tag and a bundle's manifest `name` end up in paths under the install
root (`.downloads/<asset>.part`, `releases/<tag>-<time>/`, `.backups/<name>-<time>.tar.zst`). They
are data written by whoever published the release, so each must be one plain path segment: no
separator, no `.`/`..`, no leading dot, nothing invisible, and short enough that the suffixes
Atlas adds still fit in the file system's 255-byte name limit.
"""

from __future__ import annotations

from atlas_core.errors import DistributionError

# 255 (NAME_MAX) less the longest suffix added to a name: "-<UTC time>.tar.zst.partial" / ".sha256".
MAX_NAME_BYTES = 200


def unsafe_reason(name: object) -> str | None:
    """Why `name` cannot be one file name inside a folder, or None when it can."""
    if not isinstance(name, str):
        return f"is a JSON {type(name).__name__}, not a string"
    if not name:
        return "is empty"
    if name in (".", ".."):
        return "is a relative folder"
    if "/" in name or "\\" in name:
        return "contains a path separator"
    if name.startswith("."):
        return "starts with a dot"
    if not name.isprintable():
        return "contains a control or invisible character"
    if len(name.encode("utf-8", errors="surrogatepass")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None


def shown(name: object, limit: int = 80) -> str:
    """`name` quoted for a one-line message: escapes visible, long names cut short."""
    text = repr(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_name(name: object, what: str, *, hint: str) -> str:
    """`name` itself when it is one safe file name; else a DistributionError saying why."""
    reason = unsafe_reason(name)
    if reason is not None:
        raise DistributionError(
            f"{what} {shown(name)} {reason}, so it cannot name a file", hint=hint
        )
    assert isinstance(name, str)
    return name


def as_file_name(text: str, default: str = "bundle") -> str:
    """`text` made into one safe file name: odd characters become `-`, no leading dot, cut short."""
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in text).lstrip(".")
    name = name.encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", errors="ignore")
    return name or default
