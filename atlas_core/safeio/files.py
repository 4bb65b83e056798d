"""Listing and reading a source folder without ever leaving it.

A bundle's mirror is published, so a source must not pull in files from outside its folder. No
symbolic link is followed, wherever it points: a link out of the folder (``leak.md ->
/etc/passwd``, ``docs -> /etc``) would leak, and a link inside it only indexes a file that is
already read under its own path, so one rule covers both and a link loop cannot arise. The `git`
source follows the same rule for committed links. Names that are not UTF-8 cannot become document
paths (Parquet and JSON need valid UTF-8), so such files are skipped too; both are counted, so the
manifest and the build summary say what was left out.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from atlas_core.errors import SourceError

log = logging.getLogger(__name__)

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})
# How many skipped entries a warning names; the count covers the rest.
_EXAMPLES = 3


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as valid UTF-8 text: undecodable bytes are shown escaped (``caf\\xe9.md``)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def is_utf8_name(name: str) -> bool:
    """False for a name holding bytes that are not UTF-8 (Python keeps them as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(slots=True)
class Listing:
    """The readable files of a source and what was skipped on the way (display paths)."""

    files: list[Path] = field(default_factory=list)
    skipped_links: list[str] = field(default_factory=list)
    skipped_names: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The manifest's record of what was left out."""
        return {"skipped_links": len(self.skipped_links), "skipped_names": len(self.skipped_names)}


def warn_skipped(what: str, skipped_links: list[str], skipped_names: list[str]) -> None:
    """One warning per kind of skip, naming the first few entries."""
    for entries, reason in (
        (skipped_links, "symbolic link(s) skipped (sources never follow links)"),
        (skipped_names, "file(s) skipped: the name is not UTF-8"),
    ):
        if entries:
            shown = ", ".join(entries[:_EXAMPLES]) + (", ..." if len(entries) > _EXAMPLES else "")
            log.warning("%s: %d %s: %s", what, len(entries), reason, shown)


def list_files(root: Path, wanted: Callable[[str], bool]) -> Listing:
    """Regular files under root whose name `wanted` accepts, sorted by relative path; hidden and
    tool folders are not entered, links are never followed. Iterative, so depth costs no stack."""
    listing = Listing()
    stack: list[Path] = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise SourceError(
                f"{display_path(folder)}: cannot list the folder ({exc.strerror})",
                hint="check the folder's permissions",
                path=display_path(folder),
            ) from None
        for entry in entries:
            path = Path(entry.path)
            rel = display_path(path.relative_to(root))
            if entry.is_symlink():
                # A link named like a folder that is never entered (.git, node_modules) is not
                # worth a mention; every other one is counted.
                if wanted(entry.name) or not _skipped_folder_name(entry.name):
                    listing.skipped_links.append(rel)
                continue
            if entry.is_dir(follow_symlinks=False):
                if _skipped_folder_name(entry.name):
                    continue
                if not is_utf8_name(entry.name):
                    listing.skipped_names.append(rel + "/")
                    continue
                stack.append(path)
            elif entry.is_file(follow_symlinks=False) and wanted(entry.name):
                if is_utf8_name(entry.name):
                    listing.files.append(path)
                else:
                    listing.skipped_names.append(rel)
    listing.files.sort(key=lambda p: p.relative_to(root).as_posix())
    listing.skipped_links.sort()
    listing.skipped_names.sort()
    return listing


def _skipped_folder_name(name: str) -> bool:
    return name in SKIP_DIRS or name.startswith(".")


def read_regular_file(path: Path, name: str) -> bytes:
    """The bytes of a regular file, refusing a link or a FIFO put there after the listing."""
    # O_NOFOLLOW: the file may have become a link since it was listed; O_NONBLOCK: a FIFO must
    # not block the build (it is refused by the fstat below).
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise SourceError(
            f"{name}: cannot read ({exc.strerror})",
            hint="check that the file exists, is readable and is not a link",
            path=name,
        ) from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise SourceError(
                f"{name}: not a regular file",
                hint="sources read regular files only; remove it or replace it with a file",
                path=name,
            )
        return handle.read()
