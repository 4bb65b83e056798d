"""`mirror` source: the crawler's layout, `markdown/<section>/**/*.md` plus `crawl_meta.json`."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from atlas_core.errors import SourceError
from atlas_core.markdown import decode_utf8
from atlas_core.safeio import TooLarge, display_path, parse_json, read_regular_file
from atlas_core.sources.local import load_folder, require_folder, skipped_note
from atlas_core.types import Document

log = logging.getLogger(__name__)

CRAWL_META = "crawl_meta.json"
_SUMMARY_KEYS_CAP = 40


def mirror_roots(path: Path) -> tuple[Path, Path]:
    """(mirror root, markdown folder) for a path naming either of them."""
    require_folder(path, "mirror")
    markdown = path / "markdown"
    if markdown.is_symlink():
        # The folder a mirror= path names is the user's choice; a link inside it is content, and
        # sources never follow links (see safeio/files.py).
        raise SourceError(
            f"mirror source {display_path(path)}: markdown/ is a symbolic link",
            hint="sources never follow links; point mirror= at the folder the link names",
            path=display_path(markdown),
        )
    if markdown.is_dir():
        return path, markdown
    if path.name == "markdown" or _is_regular(path.parent / CRAWL_META):
        return path.parent, path
    raise SourceError(
        f"mirror source {display_path(path)}: no markdown/ folder inside",
        hint="point mirror= at a crawl output (the folder holding markdown/ and crawl_meta.json), "
        "or use local= for a plain folder of markdown",
        path=display_path(path),
    )


def _is_regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def crawl_summary(root: Path) -> dict[str, Any]:
    """The scalar facts of crawl_meta.json and its per-section counts, bounded for the manifest."""
    meta_path = root / CRAWL_META
    if meta_path.is_symlink():
        # Its values go into the manifest: a link to another JSON file would publish that file.
        log.warning("%s: a symbolic link, not read (sources never follow links)", meta_path)
        return {}
    if not meta_path.is_file():
        return {}
    name = display_path(meta_path)
    try:
        meta = parse_json(decode_utf8(read_regular_file(meta_path, name), name))
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"{name}:{exc.lineno}: not valid JSON ({exc.msg})",
            hint="re-run `atlas crawl` to rewrite it, or delete it (it is optional)",
            path=name,
        ) from None
    except TooLarge as exc:
        raise SourceError(
            f"{name}: refused: {exc}",
            hint="re-run `atlas crawl` to rewrite it, or delete it (it is optional)",
            path=name,
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
    documents, listing = load_folder(
        markdown, source="mirror", clean_gitbook=clean_gitbook, name=display_path(root.name)
    )
    if not documents:
        raise SourceError(
            f"mirror source {display_path(markdown)}: no markdown files found"
            + skipped_note(listing),
            hint="crawl first (`atlas crawl --output DIR`) or check the path",
            path=display_path(markdown),
        )
    description: dict[str, Any] = {
        "kind": "mirror",
        "path": display_path(root.resolve()),
        "documents": len(documents),
        "sections": sorted({doc.publication for doc in documents}),
        "clean_gitbook": clean_gitbook,
        **listing.counts(),
    }
    crawl = crawl_summary(root)
    if crawl:
        description["crawl"] = crawl
    return documents, description
