"""`mirror` source: the crawler's layout, `markdown/<section>/**/*.md` plus `crawl_meta.json`."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from atlas_core.errors import SourceError
from atlas_core.sources.frontmatter import decode_utf8
from atlas_core.sources.local import load_folder, require_folder
from atlas_core.types import Document

log = logging.getLogger(__name__)

CRAWL_META = "crawl_meta.json"
_SUMMARY_KEYS_CAP = 40


def mirror_roots(path: Path) -> tuple[Path, Path]:
    """(mirror root, markdown folder) for a path naming either of them."""
    require_folder(path, "mirror")
    if (path / "markdown").is_dir():
        return path, path / "markdown"
    if path.name == "markdown" or (path.parent / CRAWL_META).is_file():
        return path.parent, path
    raise SourceError(
        f"mirror source {path}: no markdown/ folder inside",
        hint="point mirror= at a crawl output (the folder holding markdown/ and crawl_meta.json), "
        "or use local= for a plain folder of markdown",
        path=str(path),
    )


def crawl_summary(root: Path) -> dict[str, Any]:
    """The scalar facts of crawl_meta.json and its per-section counts, bounded for the manifest."""
    meta_path = root / CRAWL_META
    if not meta_path.is_file():
        return {}
    try:
        meta = json.loads(decode_utf8(meta_path.read_bytes(), str(meta_path)))
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"{meta_path}:{exc.lineno}: not valid JSON ({exc.msg})",
            hint="re-run `atlas crawl` to rewrite it, or delete it (it is optional)",
            path=str(meta_path),
        ) from None
    if not isinstance(meta, dict):
        return {}
    summary: dict[str, Any] = {}
    for key, value in list(meta.items())[:_SUMMARY_KEYS_CAP]:
        if isinstance(value, str | int | float | bool) or value is None:
            summary[key] = value
        elif key == "sections" and isinstance(value, dict):
            summary[key] = {
                str(name): {k: v for k, v in counts.items() if isinstance(v, int | float)}
                if isinstance(counts, dict)
                else counts
                for name, counts in list(value.items())[:200]
            }
    return summary


def load_mirror(path: Path, *, clean_gitbook: bool) -> tuple[list[Document], dict[str, Any]]:
    root, markdown = mirror_roots(path)
    documents = load_folder(markdown, source="mirror", clean_gitbook=clean_gitbook, name=root.name)
    if not documents:
        raise SourceError(
            f"mirror source {markdown}: no markdown files found",
            hint="crawl first (`atlas crawl --output DIR`) or check the path",
            path=str(markdown),
        )
    description: dict[str, Any] = {
        "kind": "mirror",
        "path": str(root.resolve()),
        "documents": len(documents),
        "sections": sorted({doc.publication for doc in documents}),
        "clean_gitbook": clean_gitbook,
    }
    crawl = crawl_summary(root)
    if crawl:
        description["crawl"] = crawl
    return documents, description
