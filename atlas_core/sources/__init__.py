"""Documentation sources: each turns a `KIND=PATH` spec into Documents for the build.

Kinds: ``local`` (a folder of markdown), ``mirror`` (the crawler's output), ``git`` (markdown of a
repository at a pinned commit: ``git=PATH_OR_URL#REF`` or ``#REF:SUBDIR``; ``@REF`` is also
accepted where it cannot be confused with a user name), ``openapi`` (an OpenAPI 3 file rendered
as reference pages with identifier entries: ``openapi=FILE`` or ``openapi=FILE#URL``, URL the
developer portal that publishes it or the file's own web address) and ``code`` (a repository's
source files, chunked by definition: ``code=PATH`` or ``code=PATH_OR_URL#REF[:SUBDIR]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.sources.code_chunks import (
        CHUNKINGS,
        chunk_code_documents,
        code_identifiers,
        parse_call,
        qualified_name,
    )
    from atlas_core.sources.code_explain import Explanation, explain_indexing
    from atlas_core.sources.code_walk import GENERATED_REASONS, VENDORED, walk_repository
    from atlas_core.sources.credentials import name_reason

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas_core.errors import SourceError
from atlas_core.sources.publisher import (
    PUBLISHER_KINDS,
    PUBLISHER_WORDS,
    THIRD_PARTY,
    page_publishers,
    publisher_counts,
    publisher_problems,
    publisher_section,
    source_publisher,
    split_publisher,
)
from atlas_core.types import Document

log = logging.getLogger(__name__)

SOURCE_KINDS: tuple[str, ...] = ("local", "mirror", "git", "openapi", "code")
# GitBook cleaning is on by default only where GitBook exports are expected.
CLEAN_BY_DEFAULT: dict[str, bool] = {
    "local": False,
    "mirror": True,
    "git": False,
    "openapi": False,
    "code": False,
}


@dataclass(slots=True)
class SourceSet:
    """Documents of all sources (sorted by path, paths unique) and one description per source."""

    documents: list[Document] = field(default_factory=list)
    descriptions: list[dict[str, Any]] = field(default_factory=list)
    # Each document's publisher (`publisher.PUBLISHER_KINDS`), where one is known.
    publishers: dict[str, str] = field(default_factory=dict)


def parse_spec(spec: str) -> tuple[str, str]:
    """`KIND=PATH` -> (kind, path); an unknown kind or a missing `=` is a SourceError."""
    kind, sep, value = spec.partition("=")
    kind = kind.strip().lower()
    if not sep or not value.strip():
        raise SourceError(
            f"source {spec!r}: expected KIND=PATH",
            hint=f"e.g. --source mirror=./collibra-docs; KIND is one of {', '.join(SOURCE_KINDS)}",
        )
    if kind not in SOURCE_KINDS:
        raise SourceError(
            f"source {spec!r}: unknown kind {kind!r}",
            hint=f"KIND is one of {', '.join(SOURCE_KINDS)}",
        )
    return kind, value.strip()


# `openapi=FILE#URL`: the part after the last `#` that starts a web address.
_OPENAPI_URL_RE = re.compile(r"^(.*)#(https?://\S+)$")


def openapi_value(value: str) -> tuple[str, str]:
    """`FILE#URL` -> (FILE, URL): where the spec's reference is published on the web (a
    developer portal, or the spec file's own address); a `#` not followed by one is part of
    the file name."""
    m = _OPENAPI_URL_RE.match(value)
    return (m.group(1), m.group(2)) if m else (value, "")


def load_source(
    kind: str, value: str, clean_gitbook: bool | None = None, *, code_max_files: int | None = None
) -> tuple[list[Document], dict[str, Any]]:
    clean = CLEAN_BY_DEFAULT[kind] if clean_gitbook is None else clean_gitbook
    if kind == "local":
        from atlas_core.sources.local import load_local

        return load_local(Path(value).expanduser(), clean_gitbook=clean)
    if kind == "mirror":
        from atlas_core.sources.mirror import load_mirror

        return load_mirror(Path(value).expanduser(), clean_gitbook=clean)
    if kind == "git":
        from atlas_core.sources.git import load_git

        return load_git(value, clean_gitbook=clean)
    if kind == "code":
        from atlas_core.sources.code import load_code

        return load_code(value, max_files=code_max_files)
    from atlas_core.sources.openapi import load_openapi

    path, url = openapi_value(value)
    return load_openapi(Path(path).expanduser(), url)


def load_sources(
    specs: list[str],
    clean_gitbook: bool | None = None,
    limit: int | None = None,
    *,
    code_max_files: int | None = None,
) -> SourceSet:
    """Load every `KIND=PATH` source. `clean_gitbook=None` uses each kind's default (on for
    mirror only); `limit` keeps the first N documents in path order (for quick builds);
    `code_max_files` replaces the `code` sources' file limit (`code_walk.MAX_FILES`)."""
    if not specs:
        raise SourceError(
            "no sources given", hint="add --source KIND=PATH (local, mirror, git, openapi or code)"
        )
    owner: dict[str, str] = {}
    documents: list[Document] = []
    descriptions: list[dict[str, Any]] = []
    publishers: dict[str, str] = {}
    for spec in specs:
        head, sep, rest = spec.partition("=")
        base, explicit = split_publisher(head)  # `KIND:PUBLISHER=PATH` names it
        kind, value = parse_spec(base + sep + rest)
        docs, description = load_source(kind, value, clean_gitbook, code_max_files=code_max_files)
        pages = page_publishers(kind, ((d.path, d.url) for d in docs), description, explicit)
        publishers.update(pages)
        if publisher := source_publisher(pages, explicit):
            description["publisher"] = publisher
        if pages:
            description["publishers"] = publisher_counts(pages)
        for doc in docs:
            if doc.path in owner:
                raise SourceError(
                    f"document path {doc.path!r} comes from two sources: {owner[doc.path]} and "
                    f"{spec}",
                    hint="give each source distinct file paths (e.g. put one in a subfolder)",
                    path=doc.path,
                )
            owner[doc.path] = spec
        documents.extend(docs)
        descriptions.append(description)
    documents.sort(key=lambda d: d.path)
    if limit is not None and limit >= 0 and len(documents) > limit:
        kept = {d.path for d in documents[:limit]}
        log.info("keeping %d of %d documents (limit)", limit, len(documents))
        documents = documents[:limit]
        publishers = {p: k for p, k in publishers.items() if p in kept}
        for description, spec in zip(descriptions, specs, strict=True):
            description["documents"] = sum(1 for p in kept if owner[p] == spec)
            description["limited"] = True
    return SourceSet(documents=documents, descriptions=descriptions, publishers=publishers)


__all__ = [
    "CHUNKINGS",
    "CLEAN_BY_DEFAULT",
    "GENERATED_REASONS",
    "PUBLISHER_KINDS",
    "PUBLISHER_WORDS",
    "SOURCE_KINDS",
    "THIRD_PARTY",
    "VENDORED",
    "Explanation",
    "SourceSet",
    "chunk_code_documents",
    "code_identifiers",
    "explain_indexing",
    "load_source",
    "load_sources",
    "name_reason",
    "parse_call",
    "parse_spec",
    "publisher_problems",
    "publisher_section",
    "qualified_name",
    "walk_repository",
]

# Loaded on first use, so importing the face stays as cheap as it was.
_EXPORTS = {
    "VENDORED": "code_walk",
    "GENERATED_REASONS": "code_walk",
    "walk_repository": "code_walk",
    "CHUNKINGS": "code_chunks",
    "chunk_code_documents": "code_chunks",
    "code_identifiers": "code_chunks",
    "parse_call": "code_chunks",
    "qualified_name": "code_chunks",
    "name_reason": "credentials",
    "Explanation": "code_explain",
    "explain_indexing": "code_explain",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
