"""Markdown as Atlas reads it: the heading outline, anchors and sections of a page (`outline`),
the GitBook syntax cleaner (`gitbook`), front matter in a strict (build) and a lenient (crawl,
listing) mode (`frontmatter`), and the section chunker (`chunker`).

Names load on first use: the language server reads `outline` (through the mention index) and
must not pay for the build's chunker, the GitBook cleaner or YAML front matter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.markdown.chunker import (
        SECTION_URLS,
        chunk_documents,
        chunk_id_for,
        heading_anchors,
    )
    from atlas_core.markdown.frontmatter import (
        MARKDOWN_SUFFIXES,
        decode_utf8,
        is_markdown,
        markdown_document,
        read_text,
        split_front_matter,
    )
    from atlas_core.markdown.gitbook import clean as clean_gitbook
    from atlas_core.markdown.html import spec_inline, spec_markdown
    from atlas_core.markdown.outline import (
        Heading,
        Outline,
        fence_ids,
        github_slug,
        page_lines,
        scan_headings,
    )

_EXPORTS = {
    "chunk_documents": "chunker",
    "MARKDOWN_SUFFIXES": "frontmatter",
    "is_markdown": "frontmatter",
    "markdown_document": "frontmatter",
    "read_text": "frontmatter",
    "split_front_matter": "frontmatter",
    "Heading": "outline",
    "Outline": "outline",
    "github_slug": "outline",
    "page_lines": "outline",
    "scan_headings": "outline",
    "decode_utf8": "frontmatter",
    "chunk_id_for": "chunker",
    "heading_anchors": "chunker",
    "SECTION_URLS": "chunker",
    "spec_markdown": "html",
    "fence_ids": "outline",
    "spec_inline": "html",
}
__all__ = [
    "MARKDOWN_SUFFIXES",
    "SECTION_URLS",
    "Heading",
    "Outline",
    "chunk_documents",
    "chunk_id_for",
    "clean_gitbook",
    "decode_utf8",
    "fence_ids",
    "github_slug",
    "heading_anchors",
    "is_markdown",
    "markdown_document",
    "page_lines",
    "read_text",
    "scan_headings",
    "spec_inline",
    "spec_markdown",
    "split_front_matter",
]
_lazy = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str) -> object:
    if name == "clean_gitbook":  # exported under another name than gitbook's own
        from atlas_core.markdown.gitbook import clean

        return clean
    return _lazy(name)
