"""`local` source: any folder of markdown files."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from atlas_core.errors import SourceError
from atlas_core.markdown import is_markdown, markdown_document, read_text
from atlas_core.safeio import Listing, display_path, list_files, warn_skipped
from atlas_core.types import Document

log = logging.getLogger(__name__)


def publication_for(rel_path: str, root_name: str) -> str:
    """First path component, or the source's own name for files at its top level."""
    head, sep, _ = rel_path.partition("/")
    return head if sep else root_name


def markdown_files(root: Path) -> Listing:
    """Markdown files under root, sorted, skipping hidden and tool folders and every link."""
    return list_files(root, is_markdown)


def require_folder(root: Path, kind: str) -> None:
    if not root.exists():
        raise SourceError(
            f"{kind} source {display_path(root)}: no such folder",
            hint=f"pass --source {kind}=PATH with an existing folder of markdown",
            path=display_path(root),
        )
    if not root.is_dir():
        raise SourceError(
            f"{kind} source {display_path(root)}: not a folder",
            hint=f"point {kind}= at the folder that holds the markdown files",
            path=display_path(root),
        )


def load_folder(
    root: Path,
    *,
    source: str,
    clean_gitbook: bool,
    name: str | None = None,
    extra: dict[str, Any] | None = None,
) -> tuple[list[Document], Listing]:
    """Documents of every markdown file under root, and the listing that says what was skipped."""
    root_name = name or display_path(root.resolve().name)
    listing = markdown_files(root)
    warn_skipped(
        f"{source} source {display_path(root)}", listing.skipped_links, listing.skipped_names
    )
    documents: list[Document] = []
    for path in listing.files:
        rel = path.relative_to(root).as_posix()
        display = display_path(path)
        text = read_text(path, display)
        documents.append(
            markdown_document(
                rel,
                text,
                source=source,
                publication=publication_for(rel, root_name),
                clean_gitbook=clean_gitbook,
                display_name=display,
                extra=extra,
            )
        )
    return documents, listing


def load_local(root: Path, *, clean_gitbook: bool) -> tuple[list[Document], dict[str, Any]]:
    require_folder(root, "local")
    documents, listing = load_folder(root, source="local", clean_gitbook=clean_gitbook)
    if not documents:
        raise SourceError(
            f"local source {display_path(root)}: no markdown files (*.md, *.markdown) found"
            + skipped_note(listing),
            hint="point local= at a folder that contains markdown files",
            path=display_path(root),
        )
    description = {
        "kind": "local",
        "path": display_path(root.resolve()),
        "documents": len(documents),
        "clean_gitbook": clean_gitbook,
        **listing.counts(),
    }
    return documents, description


def skipped_note(listing: Listing) -> str:
    """Why an apparently non-empty folder has no documents: everything in it was skipped."""
    counts = listing.counts()
    if not any(counts.values()):
        return ""
    return (
        f" ({counts['skipped_links']} symbolic links and {counts['skipped_names']} files with "
        "non-UTF-8 names were skipped)"
    )
