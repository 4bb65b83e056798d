"""`local` source: any folder of markdown files."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from atlas_core.errors import SourceError
from atlas_core.sources.frontmatter import is_markdown, markdown_document, read_text
from atlas_core.types import Document

log = logging.getLogger(__name__)

_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"}


def publication_for(rel_path: str, root_name: str) -> str:
    """First path component, or the source's own name for files at its top level."""
    head, sep, _ = rel_path.partition("/")
    return head if sep else root_name


def markdown_files(root: Path) -> list[Path]:
    """Markdown files under root, sorted, skipping hidden and tool folders."""
    found: list[Path] = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if any(part in _SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        if is_markdown(path.name) and path.is_file():
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def require_folder(root: Path, kind: str) -> None:
    if not root.exists():
        raise SourceError(
            f"{kind} source {root}: no such folder",
            hint=f"pass --source {kind}=PATH with an existing folder of markdown",
            path=str(root),
        )
    if not root.is_dir():
        raise SourceError(
            f"{kind} source {root}: not a folder",
            hint=f"point {kind}= at the folder that holds the markdown files",
            path=str(root),
        )


def load_folder(
    root: Path,
    *,
    source: str,
    clean_gitbook: bool,
    name: str | None = None,
    extra: dict[str, Any] | None = None,
) -> list[Document]:
    root_name = name or root.resolve().name
    documents: list[Document] = []
    for path in markdown_files(root):
        rel = path.relative_to(root).as_posix()
        text = read_text(path, str(path))
        documents.append(
            markdown_document(
                rel,
                text,
                source=source,
                publication=publication_for(rel, root_name),
                clean_gitbook=clean_gitbook,
                display_name=str(path),
                extra=extra,
            )
        )
    return documents


def load_local(root: Path, *, clean_gitbook: bool) -> tuple[list[Document], dict[str, Any]]:
    require_folder(root, "local")
    documents = load_folder(root, source="local", clean_gitbook=clean_gitbook)
    if not documents:
        raise SourceError(
            f"local source {root}: no markdown files (*.md, *.markdown) found",
            hint="point local= at a folder that contains markdown files",
            path=str(root),
        )
    description = {
        "kind": "local",
        "path": str(root.resolve()),
        "documents": len(documents),
        "clean_gitbook": clean_gitbook,
    }
    return documents, description
