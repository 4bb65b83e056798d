"""What a host asks about the bundles it serves, so that no host reads a manifest: their
summaries, where a result's page lies (in the docs mirror, or a project's working tree), the pages
of a mirror, and the section around a line of one (read by `atlas_core.pages`, which keeps the
headings of the pages asked about most recently)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.errors import AtlasError, QueryError
from atlas_core.search import describe_cards, describe_headings
from atlas_core.types import BundleInfo, DocFile, Section

if TYPE_CHECKING:
    from atlas_core.engine.parts import OpenBundle, OpenBundles
    from atlas_core.markdown import Outline
    from atlas_core.pages import Outlines


class ServedBundles:
    """Answers about the open bundles' files and summaries."""

    def __init__(self, bundles: OpenBundles) -> None:
        self.bundles = bundles
        self._outlines: dict[str, Outlines] = {}  # by bundle, made when a page is first read

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
                "cards": describe_cards(part.bundle.manifest),
                "headings": describe_headings(part.bundle.manifest),
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
            if f"{MIRROR}/{file}" in listed  # once per page, not per chunk
        ]

    def section_at(self, bundle: str, relpath: str, line: int) -> Section:
        outline = self.outline(self.bundles.named(bundle), relpath)
        if outline is None:
            return Section(heading="", line_start=line, line_end=line)
        return outline.section_at(line)

    def outline(self, part: OpenBundle, relpath: str) -> Outline | None:
        """The headings of a mirror page of `part`; None when the page cannot be read."""
        kept = self._outlines.get(part.name)
        if kept is None:
            from atlas_core.pages import Outlines  # a hover reads no page: not at startup

            kept = self._outlines.setdefault(part.name, Outlines())
        return kept.of(relpath, part.bundle.mirror_dir / relpath)
