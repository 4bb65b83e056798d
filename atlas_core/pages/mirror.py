"""The docs mirrors the filesystem tools serve: each bundle's ``mirror/``, or a crawled ``--mirror``.

A crawled mirror is ``<dir>/markdown/<section>/*.md`` (pages with front matter) plus
``<dir>/crawl_meta.json``; a bundle's mirror holds each document's text verbatim, and its titles,
URLs and publications come from the bundle's chunk table instead (`Engine.doc_files`). Either way a
file's path is relative to the mirror root and its publication is, unless the bundle says
otherwise, its first directory. The file list is read once: a mirror never changes under a running
server (a new bundle is a new Mirror).

With several bundles open, a `MirrorSet` holds one mirror per bundle under the name its results
carry; a path names its bundle with ``bundle=`` or a ``<bundle>/`` prefix, or is found in the one
mirror that has it.

The tools serve exactly the files of that list (`grep.iter_doc_files`): a hidden file, a
file that is not markdown or one in a skipped folder is refused by read_file and the resources as
it is by list_files and search, and a file is only ever opened if it is still a regular file.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from atlas_core.errors import QueryError
from atlas_core.markdown import scan_headings
from atlas_core.pages.grep import iter_doc_files
from atlas_core.pages.paths import PathRejected, normalize_relpath, resolve_file
from atlas_core.pages.reader import MAX_PAGE_BYTES, Outlines, open_regular, read_lines
from atlas_core.types import Section

if TYPE_CHECKING:
    from atlas_core.markdown import Outline
    from atlas_core.types import BundleInfo, DocFile

log = logging.getLogger(__name__)

CRAWL_META = "crawl_meta.json"


class ServedDocs(Protocol):
    """What `MirrorSet.of_engine` asks of the engine (`atlas_core.engine.Engine` answers it):
    the open bundles, the pages each one's chunk table knows, and each one's scope."""

    def bundle_infos(self) -> list[BundleInfo]: ...

    def doc_files(self, bundle: str) -> list[DocFile]: ...

    def scope_of(self, bundle: str) -> str: ...


@dataclass(frozen=True, slots=True)
class DocMeta:
    """What the tools show about one file besides its text."""

    publication: str
    title: str = ""
    url: str = ""


@dataclass
class Mirror:
    root: Path
    crawl_meta: Mapping[str, Any] = field(default_factory=dict)
    # Per-file facts a bundle knows (from its chunk table); a crawled mirror reads front matter.
    known: Mapping[str, DocMeta] = field(default_factory=dict)
    # A project bundle's files are its source files, not only markdown: exactly the files its
    # chunk table names and its manifest lists are served (what `atlas index` read: regular
    # files, never links), less any a credentials rule names (a bundle built before those
    # rules may hold `.aws/credentials`: it is refused, as an unlisted file is).
    source_files: bool = False
    _front_matter: dict[str, DocMeta] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _outlines: Outlines = field(default_factory=Outlines, repr=False)

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
                        data = fh.read(MAX_PAGE_BYTES + 1)
                    if len(data) > MAX_PAGE_BYTES:
                        raise ValueError(f"larger than {MAX_PAGE_BYTES} bytes")
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
        if self.source_files:
            from atlas_core.sources import name_reason

            return tuple(
                sorted(
                    rel
                    for rel in self.known
                    if name_reason(rel) is None and (self.root / rel).is_file()
                )
            )
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
        from atlas_core.markdown import split_front_matter

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

    def has(self, rel: str) -> bool:
        """Whether `rel` (a clean relative path) is one of the listed docs files."""
        return rel in self._file_set

    def is_folder(self, rel: str) -> bool:
        return any(f.startswith(rel + "/") for f in self.files)

    def find_file(self, raw: str) -> tuple[str, Path]:
        """A user path to (relpath, file) inside this mirror, for one of the listed docs files
        only; see paths.resolve_file for what else is checked."""
        rel = normalize_relpath(raw)
        if rel not in self._file_set:
            raise self.refusal(rel)
        return resolve_file(self.root, rel)

    def refusal(self, rel: str) -> PathRejected:
        """Why `rel`, which is not a listed docs file, cannot be read."""
        if self.is_folder(rel):
            return PathRejected(
                f"{rel!r} is a directory, not a file",
                hint=f"list_files(publication={rel.split('/')[0]!r}) lists its files",
            )
        # The same answer whether or not something by that name exists: nothing unlisted is
        # read, and nothing about it is told.
        return PathRejected(
            f"{rel!r} is not a docs file: only the markdown pages that list_files lists can "
            "be read (hidden files, other file types and tool folders are not served)",
            hint="list_publications, then list_files(publication=...), shows the docs files; "
            "search_docs and search_text find them by topic or text",
        )

    def read_lines(self, rel: str, path: Path | None = None) -> list[str]:
        """The file's lines (see `reader.read_lines`): blocking and bounded, call it off the
        event loop."""
        return read_lines(path or self.root / rel, rel)

    def outline(self, rel: str) -> Outline | None:
        """The headings of a file in the mirror, None when it cannot be read."""
        try:
            rel, path = self.find_file(rel)
        except QueryError:
            return None
        return self._outlines.of(rel, path)

    def section_at(self, rel: str, line: int) -> Section:
        """The section around `line` of a file; the line alone, with no heading, when the file
        cannot be read."""
        outline = self.outline(rel)
        if outline is None:
            return Section(heading="", line_start=line, line_end=line)
        return outline.section_at(line)


class MirrorSet:
    """The mirrors the file tools serve, by the bundle name results carry.

    One entry per open bundle, or a single entry named "" for a ``--mirror`` folder. With one
    mirror, results and paths carry no bundle name and nothing changes from a single-bundle
    server; with several, a path names its bundle (``bundle=`` or a ``<bundle>/`` prefix) or is
    found in the one mirror that lists it.
    """

    def __init__(self, mirrors: Mapping[str, Mirror]) -> None:
        if not mirrors:
            raise ValueError("a MirrorSet needs at least one mirror")
        self.mirrors = dict(mirrors)

    @classmethod
    def of_engine(cls, engine: ServedDocs) -> MirrorSet:
        """Each open bundle's mirror, with titles, URLs and publications from its chunk table.
        Blocking (it lists the folders): call it off the event loop."""
        mirrors = {}
        for info in engine.bundle_infos():
            known = {
                doc.file: DocMeta(publication=doc.publication, title=doc.title, url=doc.url)
                for doc in engine.doc_files(info.name)
            }
            mirrors[info.name] = Mirror(
                root=Path(info.mirror).resolve(),
                known=known,
                source_files=engine.scope_of(info.name) == "project",
            ).listed()
        return cls(mirrors)

    @property
    def several(self) -> bool:
        return len(self.mirrors) > 1

    @property
    def first(self) -> Mirror:
        return next(iter(self.mirrors.values()))

    def tag(self, bundle: str) -> str:
        """The bundle name a result carries: its bundle's, when there are several to tell apart."""
        return bundle if self.several else ""

    def address(self, bundle: str, rel: str) -> str:
        """A path read_file and the resources accept for `rel` of `bundle`."""
        return f"{bundle}/{rel}" if self.several else rel

    def select(self, bundle: str | None) -> list[tuple[str, Mirror]]:
        """The mirrors `bundle` names: all of them when it is None or ""."""
        if not bundle:
            return list(self.mirrors.items())
        if bundle in self.mirrors:
            return [(bundle, self.mirrors[bundle])]
        if "" in self.mirrors:
            raise QueryError(
                f"bundle={bundle!r} does not apply: the file tools serve the --mirror folder "
                f"{self.first.root} only",
                hint="leave bundle out",
            )
        names = ", ".join(repr(name) for name in self.mirrors)
        raise QueryError(
            f"no open bundle is named {bundle!r}",
            hint=f"the open bundles are {names} (results name theirs in `bundle`)",
        )

    def find_file(self, raw: str, bundle: str | None = None) -> tuple[str, Mirror, str, Path]:
        """A user path to (bundle, mirror, relpath, file); see Mirror.find_file for the checks."""
        if bundle or not self.several:
            ((name, mirror),) = self.select(bundle)
            return (name, mirror, *mirror.find_file(raw))
        rel = normalize_relpath(raw)
        head, _, rest = rel.partition("/")
        named = self.mirrors.get(head)
        if named is not None and named.has(rest):
            return (head, named, *named.find_file(rest))
        holders = [(name, mirror) for name, mirror in self.mirrors.items() if mirror.has(rel)]
        if len(holders) == 1:
            name, mirror = holders[0]
            return (name, mirror, *mirror.find_file(rel))
        if holders:
            names = ", ".join(repr(name) for name, _ in holders)
            raise QueryError(
                f"{rel!r} is in several bundles ({names})",
                hint=f"pass bundle=NAME, or put the bundle's name first: {holders[0][0]}/{rel}",
            )
        folder = next((m for m in self.mirrors.values() if m.is_folder(rel)), self.first)
        raise folder.refusal(rel)

    def files_of(
        self, publication: str, bundle: str | None = None
    ) -> list[tuple[str, Mirror, tuple[str, ...]]]:
        """The files of `publication` in each mirror `bundle` selects that has it."""
        chosen = self.select(bundle)
        found = [
            (name, m, m.publications[publication])
            for name, m in chosen
            if publication in m.publications
        ]
        if not found:
            known = sorted({p for _, m in chosen for p in m.publications})
            names = ", ".join(repr(p) for p in known) or "none"
            raise QueryError(
                f"unknown publication {publication!r}",
                hint=f"known publications: {names} (list_publications shows them with counts)",
            )
        return found

    def entries(self) -> Iterator[tuple[str, Mirror, str]]:
        """Every docs file as (bundle, mirror, relpath), mirror by mirror."""
        for name, mirror in self.mirrors.items():
            for rel in mirror.files:
                yield name, mirror, rel

    @cached_property
    def file_count(self) -> int:
        return sum(len(m.files) for m in self.mirrors.values())
