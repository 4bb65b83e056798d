"""Markdown as Atlas reads it: the heading outline, anchors and sections of a page (`outline`),
the GitBook syntax cleaner (`gitbook`), front matter in a strict (build) and a lenient (crawl,
listing) mode (`frontmatter`), and the section chunker (`chunker`)."""

from __future__ import annotations

from atlas_core.markdown.chunker import chunk_documents
from atlas_core.markdown.frontmatter import (
    MARKDOWN_SUFFIXES,
    is_markdown,
    markdown_document,
    read_text,
    split_front_matter,
)
from atlas_core.markdown.gitbook import clean as clean_gitbook
from atlas_core.markdown.outline import Heading, Outline, github_slug, page_lines, scan_headings

__all__ = [
    "MARKDOWN_SUFFIXES",
    "Heading",
    "Outline",
    "chunk_documents",
    "clean_gitbook",
    "github_slug",
    "is_markdown",
    "markdown_document",
    "page_lines",
    "read_text",
    "scan_headings",
    "split_front_matter",
]
