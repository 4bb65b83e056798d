"""What a host asks about the bundles it serves, so that no host reads a manifest: their
summaries, where a result's page lies (in the docs mirror, or a project's working tree), the pages
of a mirror, and the section around a line of one (the page's headings kept for the pages asked
about most recently)."""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.errors import AtlasError, QueryError
from atlas_core.types import BundleInfo, DocFile, Section

if TYPE_CHECKING:
    from atlas_core.engine.parts import OpenBundle, OpenBundles
    from atlas_core.markdown import Outline

log = logging.getLogger(__name__)

MAX_PAGE_BYTES = 8 * 1024 * 1024  # a docs page is kilobytes; anything this big is not one
OUTLINES_KEPT = 256  # pages whose headings are kept per bundle, for section_at
# O_NOFOLLOW and O_NONBLOCK: a page swapped for a link or a FIFO is refused, never followed or
# waited on (fstat below tells what was opened).
_PAGE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


class ServedBundles:
    """Answers about the open bundles' files and summaries."""

    def __init__(self, bundles: OpenBundles) -> None:
        self.bundles = bundles
        # A bundle's mirror never changes while it is open, so a page's outline stays true.
        self._outlines: dict[str, OrderedDict[str, Outline | None]] = {
            part.name: OrderedDict() for part in bundles.parts
        }
        self._outline_lock = threading.Lock()

    def info_of(self, part: OpenBundle) -> BundleInfo:
        return replace(part.bundle.info(), name=part.name, load_ms=round(part.opened_ms, 3))

    def summary(self, missing: list[str]) -> BundleInfo:
        """The first bundle's summary; `extra["bundles"]` lists every opened bundle."""
        part = self.bundles.parts[0]
        embedder = part._embedder
        return replace(
            self.info_of(part),
            backend=getattr(embedder, "backend", "") if embedder is not None else "",
            backend_reason=getattr(embedder, "backend_reason", "") if embedder else "",
            extra={
                "bundles": [
                    {"name": p.name, "path": str(p.bundle.path), "chunks": p.bundle.chunk_count}
                    for p in self.bundles.parts
                ],
                "keyword": dict(part.bundle.section("keyword") or {}),
                "ranking": part.ranking_line(),
                # Not empty only after a served bundle's folder was deleted: answers then come
                # from memory and point into files that are gone.
                "missing": missing,
            },
        )

    def mirror_path(self, bundle: str, relpath: str) -> Path:
        from atlas_core.safeio import safe_relpath

        part = self.bundles.named(bundle)
        if not safe_relpath(relpath):
            raise QueryError(
                f"{relpath!r} is not a page path inside a docs mirror",
                hint="use the `file` of a result: a relative POSIX path without '..'",
            )
        return part.bundle.mirror_dir / relpath

    def project_file(self, bundle: str, relpath: str) -> Path | None:
        from atlas_core.safeio import safe_relpath

        try:
            part = self.bundles.named(bundle)
        except AtlasError:
            return None
        if part.scope != "project" or not safe_relpath(relpath):
            return None
        for source in part.bundle.manifest.get("sources") or []:
            root = source.get("path") if isinstance(source, dict) else None
            if source.get("kind") != "code" or not isinstance(root, str) or "commit" in source:
                continue  # a commit's files are not the working tree's
            path = Path(root) / relpath
            if path.is_file() and not path.is_symlink():
                return path
        return None

    def doc_files(self, bundle: str) -> list[DocFile]:
        from atlas_core.bundle import MIRROR

        part = self.bundles.named(bundle)
        c = part.table().cols
        listed = part.bundle.files
        first: dict[str, int] = {}  # page -> row of its first chunk (lowest line, then row)
        for row, file in enumerate(c["file"]):
            if f"{MIRROR}/{file}" not in listed:
                continue
            seen = first.get(file)
            if seen is None or c["line_start"][row] < c["line_start"][seen]:
                first[file] = row
        return [
            DocFile(
                file=file,
                publication=c["publication"][row] or "",
                title=c["title"][row] or "",
                url=(c["url"][row] or "").split("#")[0],
            )
            for file, row in first.items()
        ]

    def section_at(self, bundle: str, relpath: str, line: int) -> Section:
        outline = self.outline(self.bundles.named(bundle), relpath)
        if outline is None:
            return Section(heading="", line_start=line, line_end=line)
        return outline.section_at(line)

    def outline(self, part: OpenBundle, relpath: str) -> Outline | None:
        """The headings of a mirror page of `part`; None when the page cannot be read."""
        kept = self._outlines[part.name]
        with self._outline_lock:
            if relpath in kept:
                kept.move_to_end(relpath)
                return kept[relpath]
        from atlas_core.markdown import Outline, page_lines

        data = read_page(part.bundle.mirror_dir / relpath)
        outline = Outline.of(page_lines(data)) if data is not None else None
        with self._outline_lock:
            kept[relpath] = outline
            while len(kept) > OUTLINES_KEPT:
                kept.popitem(last=False)
        return outline


def read_page(path: Path) -> bytes | None:
    """A mirror page's bytes, or None when it is not a readable regular file of a page's size."""
    try:
        with os.fdopen(os.open(path, _PAGE_FLAGS), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(MAX_PAGE_BYTES + 1)
    except OSError:
        log.debug("cannot read the mirror page %s", path, exc_info=True)
        return None
    return data if len(data) <= MAX_PAGE_BYTES else None
