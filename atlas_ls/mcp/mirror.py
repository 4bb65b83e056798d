"""The docs mirror the filesystem tools serve: a bundle's ``mirror/`` or a crawled ``--mirror`` dir.

A crawled mirror is ``<dir>/markdown/<section>/*.md`` (pages with front matter) plus
``<dir>/crawl_meta.json``; a bundle's mirror holds each document's text verbatim, and its titles,
URLs and publications come from the bundle's chunk table instead. Either way a file's path is
relative to the mirror root and its publication is, unless the bundle says otherwise, its first
directory. The file list is read once: a mirror never changes under a running server (a new
bundle is a new Mirror).

The tools serve exactly the files of that list (`textsearch.iter_doc_files`): a hidden file, a
file that is not markdown or one in a skipped folder is refused by read_file and the resources as
it is by list_files and search, and a file is only ever opened if it is still a regular file.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from atlas_core.errors import QueryError
from atlas_core.markdown.chunker import Heading, scan_headings
from atlas_ls.mcp.paths import PathRejected, normalize_relpath, open_regular, resolve_file
from atlas_ls.mcp.textsearch import iter_doc_files

log = logging.getLogger(__name__)

CRAWL_META = "crawl_meta.json"
MAX_FILE_BYTES = 8 * 1024 * 1024  # a doc page is kilobytes; anything this big is not one


@dataclass(frozen=True, slots=True)
class DocMeta:
    """What the tools show about one file besides its text."""

    publication: str
    title: str = ""
    url: str = ""


@dataclass(frozen=True, slots=True)
class Section:
    """The section around a line: its heading path and line range (1-based, inclusive)."""

    heading: str
    line_start: int
    line_end: int


@dataclass
class Mirror:
    root: Path
    crawl_meta: Mapping[str, Any] = field(default_factory=dict)
    # Per-file facts a bundle knows (from its chunk table); a crawled mirror reads front matter.
    known: Mapping[str, DocMeta] = field(default_factory=dict)
    _front_matter: dict[str, DocMeta] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(cls, path: Path, known: Mapping[str, DocMeta] | None = None) -> Mirror:
        """Open a crawled mirror dir (with ``markdown/``) or a plain folder of docs."""
        path = Path(path).expanduser()
        if not path.is_dir():
            raise QueryError(
                f"docs mirror {path} is not a directory",
                hint="pass --mirror DIR (a crawled mirror or a bundle's mirror/ folder)",
                path=str(path),
            )
        root = path / "markdown" if (path / "markdown").is_dir() else path
        meta: Mapping[str, Any] = {}
        for candidate in (path / CRAWL_META, root / CRAWL_META):
            if candidate.is_file():
                try:
                    with open_regular(candidate, CRAWL_META) as fh:
                        data = fh.read(MAX_FILE_BYTES + 1)
                    if len(data) > MAX_FILE_BYTES:
                        raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
                    loaded = json.loads(data.decode("utf-8"))
                except (OSError, ValueError, RecursionError, QueryError) as exc:
                    log.warning("ignoring unreadable %s: %s", candidate, exc)
                    continue
                if isinstance(loaded, dict):
                    meta = loaded
                    break
        return cls(root=root.resolve(), crawl_meta=meta, known=dict(known or {})).listed()

    def listed(self) -> Mirror:
        """This mirror with its file list read now (a walk of the folder), so that no request
        pays for the walk on the event loop."""
        _ = self.publications
        return self

    @cached_property
    def files(self) -> tuple[str, ...]:
        return tuple(iter_doc_files(self.root))

    @cached_property
    def _file_set(self) -> frozenset[str]:
        return frozenset(self.files)

    @cached_property
    def publications(self) -> dict[str, tuple[str, ...]]:
        """Publication name -> its files, both sorted."""
        grouped: dict[str, list[str]] = {}
        for rel in self.files:
            grouped.setdefault(self.publication_of(rel), []).append(rel)
        return {name: tuple(grouped[name]) for name in sorted(grouped)}

    def publication_of(self, rel: str) -> str:
        known = self.known.get(rel)
        if known is not None and known.publication:
            return known.publication
        return rel.split("/", 1)[0] if "/" in rel else ""

    def files_of(self, publication: str) -> tuple[str, ...]:
        try:
            return self.publications[publication]
        except KeyError:
            names = ", ".join(repr(p) for p in self.publications) or "none"
            raise QueryError(
                f"unknown publication {publication!r}",
                hint=f"known publications: {names} (list_publications shows them with counts)",
            ) from None

    def search_paths(self, publication: str) -> tuple[str, ...]:
        """What to hand the text search for one publication: its folders where a folder holds
        exactly the publication's files (short command lines), else the files themselves."""
        files = self.files_of(publication)
        by_dir: dict[str, list[str]] = {}
        for rel in files:
            by_dir.setdefault(rel.split("/", 1)[0] if "/" in rel else "", []).append(rel)
        paths: list[str] = []
        for top, members in sorted(by_dir.items()):
            whole = top and len(members) == sum(1 for f in self.files if f.startswith(top + "/"))
            paths += [top] if whole else members
        return tuple(paths)

    def meta(self, rel: str) -> DocMeta:
        """Title, URL and publication of a file (front matter read once, on first use)."""
        known = self.known.get(rel)
        if known is not None:
            return known
        with self._lock:
            cached = self._front_matter.get(rel)
        if cached is not None:
            return cached
        found = self._read_front_matter(rel)
        with self._lock:
            self._front_matter[rel] = found
        return found

    def _read_front_matter(self, rel: str) -> DocMeta:
        from atlas_core.markdown.frontmatter import split_front_matter

        publication = self.publication_of(rel)
        try:
            with open_regular(self.root / rel, rel) as fh:
                head = fh.read(16_384).decode("utf-8", "replace")
        except (OSError, QueryError):
            return DocMeta(publication=publication)
        data, _ = split_front_matter(head, strict=False)
        title = str(data.get("title") or "")
        url = str(data.get("source_url") or data.get("url") or "")
        if not title:
            headings = scan_headings(head.split("\n"))
            title = headings[0].text if headings else ""
        return DocMeta(publication=publication, title=title, url=url)

    def resolve(self, raw: str) -> tuple[str, Path]:
        """A user path to (relpath, file) inside this mirror, for one of the listed docs files
        only; see paths.resolve_file for what else is checked."""
        rel = normalize_relpath(raw)
        if rel not in self._file_set:
            if any(f.startswith(rel + "/") for f in self.files):
                raise PathRejected(
                    f"{rel!r} is a directory, not a file",
                    hint=f"list_files(publication={rel.split('/')[0]!r}) lists its files",
                )
            # The same answer whether or not something by that name exists: nothing unlisted
            # is read, and nothing about it is told.
            raise PathRejected(
                f"{rel!r} is not a docs file: only the markdown pages that list_files lists can "
                "be read (hidden files, other file types and tool folders are not served)",
                hint="list_publications, then list_files(publication=...), shows the docs files; "
                "search_docs and search_text find them by topic or text",
            )
        return resolve_file(self.root, rel)

    def read_lines(self, rel: str, path: Path | None = None) -> list[str]:
        """The file's lines, split on "\\n" only (the engine's and ripgrep's line numbering).
        Blocking and bounded: call it off the event loop."""
        with open_regular(path or self.root / rel, rel) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise QueryError(
                    f"{rel!r} is {size} bytes, larger than a docs page can be ({MAX_FILE_BYTES})",
                    hint="search_text finds lines in it without reading it whole",
                )
            # Read to the cap, not to the size: a file can grow after fstat.
            data = fh.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
        text = data.decode("utf-8-sig", "replace")
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        if lines and lines[-1] == "":
            lines.pop()
        return lines

    def outline(self, rel: str) -> Outline | None:
        """The headings of a file in the mirror, None when it cannot be read."""
        try:
            return Outline.of(self.read_lines(*self.resolve(rel)))
        except (OSError, QueryError):
            return None


@dataclass(frozen=True, slots=True)
class Outline:
    """A file's headings (the chunker's own scan), to place any line in its section quickly."""

    lines: Sequence[str]
    headings: tuple[Heading, ...]
    starts: tuple[int, ...]  # 1-based line of each heading

    @classmethod
    def of(cls, lines: Sequence[str]) -> Outline:
        headings = tuple(scan_headings(lines))
        return cls(lines=lines, headings=headings, starts=tuple(h.line + 1 for h in headings))

    def section_at(self, line: int) -> Section:
        """The heading path (``H1 > H2``) around ``line`` and the line range of that section,
        subsections included, trailing blank lines left out."""
        index = bisect_right(self.starts, line) - 1
        stack: list[Heading] = []
        for heading in self.headings[: index + 1]:
            while stack and stack[-1].level >= heading.level:
                stack.pop()
            stack.append(heading)
        start = self.starts[index] if index >= 0 else 1
        end = len(self.lines)
        for heading in self.headings[index + 1 :]:
            if not stack or heading.level <= stack[-1].level:
                end = heading.line  # 0-based index of the next heading: the line before it
                break
        while end > max(line, start) and not self.lines[end - 1].strip():
            end -= 1
        return Section(
            heading=" > ".join(h.text for h in stack), line_start=start, line_end=max(end, start)
        )


class SectionLocator:
    """Places lines of mirror files in their sections, reading each file's outline once."""

    def __init__(self, mirror: Mirror) -> None:
        self._mirror = mirror
        self._outlines: dict[str, Outline | None] = {}

    def __call__(self, rel: str, line: int) -> Section:
        if rel not in self._outlines:
            self._outlines[rel] = self._mirror.outline(rel)
        outline = self._outlines[rel]
        if outline is None:  # unreadable: the line alone, with no heading
            return Section(heading="", line_start=line, line_end=line)
        return outline.section_at(line)
