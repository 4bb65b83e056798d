"""`openapi` source: an OpenAPI 3 file becomes reference pages and identifier entries.

Each tag becomes one page (H1 the tag, one H2 per operation) and all component schemas one more
page (one H2 per schema), so the chunker cuts one chunk per operation or schema and the identifier
table points at the exact section. Parsing, validation and `$ref` handling live in
`openapi_spec`, reading operations and schemas out of the spec in `openapi_model`, the markdown
itself in `openapi_pages`, the identifier entries in `openapi_entries`, web addresses in
`openapi_urls`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from atlas_core.markdown import SECTION_URLS
from atlas_core.safeio import display_path
from atlas_core.sources.openapi_entries import operation_entries, parameter_entries, schema_entries
from atlas_core.sources.openapi_model import (
    UNTAGGED,
    Operation,
    extract_operations,
    extract_schemas,
    json_object,
)
from atlas_core.sources.openapi_pages import render_schema_page, render_tag_page, slug
from atlas_core.sources.openapi_spec import Resolver, parse_spec
from atlas_core.sources.openapi_urls import WebAddresses
from atlas_core.types import Document

log = logging.getLogger(__name__)


def base_path(spec: dict[str, Any]) -> str:
    servers = spec.get("servers")
    if isinstance(servers, list) and servers and isinstance(servers[0], dict):
        url = str(servers[0].get("url") or "")
        return urlparse(url).path.rstrip("/") if "://" in url else url.rstrip("/")
    return ""


def spec_date(info: dict[str, Any]) -> str:
    """The date a spec says it was published (an ``x-date``-like info field), "" when none."""
    for key in ("x-date", "x-release-date", "x-last-modified", "x-updated"):
        value = info.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:40]
    return ""


def load_openapi(path: Path, url: str = "") -> tuple[list[Document], dict[str, Any]]:
    """The spec at `path` as reference pages; `url` is where it is published (a developer
    portal, or the spec file's own address: see `openapi_urls`), "" when the source names none."""
    spec = parse_spec(path)
    resolver = Resolver(spec, path)
    info = json_object(spec.get("info"))
    api_title = " ".join(str(info.get("title") or path.stem).split())
    version = str(info.get("version") or "")
    publication = slug(api_title) or slug(path.stem)
    stem = slug(path.stem) or "api"
    base = base_path(spec)
    web = WebAddresses.of(spec, api_title, url)

    operations = extract_operations(spec, resolver)
    schemas = extract_schemas(spec, resolver)

    tag_meta: dict[str, dict[str, Any]] = {}
    for tag in spec.get("tags") or []:
        if isinstance(tag, dict) and tag.get("name"):
            tag_meta[str(tag["name"])] = tag
    # Operations grouped by tag in one pass (their first tag documents them, the others link
    # there); scanning every operation per tag was quadratic for specs with many tags.
    own_ops: dict[str, list[Operation]] = {tag: [] for tag in tag_meta}
    other_ops: dict[str, list[Operation]] = {tag: [] for tag in tag_meta}
    for op in operations:
        for n, tag in enumerate(op.tags):
            own_ops.setdefault(tag, [])
            other_ops.setdefault(tag, [])
            (own_ops if n == 0 else other_ops)[tag].append(op)
    order = list(own_ops)

    taken = {"schemas"} if schemas else set()
    next_suffix: dict[str, int] = {}
    page_of: dict[str, str] = {}
    for tag in order:
        base_slug = slug(tag) or "tag"
        candidate, n = base_slug, next_suffix.get(base_slug, 1)
        while candidate in taken:
            candidate, n = f"{base_slug}-{n}", n + 1
        next_suffix[base_slug] = n
        taken.add(candidate)
        page_of[tag] = f"{stem}/{candidate}.md"

    common = {
        "api_title": api_title,
        "version": version,
        "base_path": base,
        "publication": publication,
    }
    documents: list[Document] = []
    for tag in order:
        own = own_ops[tag]
        # An operation listing the same tag twice is still linked once.
        elsewhere = list({id(op): op for op in other_ops[tag] if op.tags[0] != tag}.values())
        if not own and not elsewhere:
            continue
        meta = tag_meta.get(tag, {})
        tagged = tag != UNTAGGED
        url = web.tag_page(tag, meta, tagged)
        file = page_of[tag]
        title_text = "Untagged operations" if tag == UNTAGGED else tag
        page = render_tag_page(
            file=file,
            tag=title_text,
            tag_description=str(meta.get("description") or ""),
            operations=own,
            elsewhere=[(op, page_of[op.tags[0]]) for op in elsewhere],
            url=url,
            **common,
        )
        op_urls = [
            web.operation(
                method=op.method,
                path=op.path,
                tag=tag,
                tagged=tagged,
                own_docs=op.external_url,
                page=url,
                anchor=anchor,
            )
            for op, (_, anchor) in zip(own, page.positions, strict=True)
        ]
        documents.append(
            Document(
                path=file,
                publication=publication,
                title=f"{title_text} — {api_title}",
                url=url,
                text=page.text,
                source="openapi",
                metadata={
                    "spec": path.name,
                    "tag": tag,
                    "openapi": str(spec.get("openapi")),
                    # What decides whether a docs page's embedded spec is newer (`api_evidence`).
                    "version": version,
                    "date": spec_date(info),
                    SECTION_URLS: _section_urls(page.positions, op_urls),
                },
                identifiers=tuple(
                    entry
                    for item, (op, (line, anchor), op_url) in enumerate(
                        zip(own, page.positions, op_urls, strict=True)
                    )
                    for entry in (
                        *operation_entries(op, file, line, anchor, op_url, publication),
                        *parameter_entries(op, file, page.rows, item, anchor, op_url, publication),
                    )
                ),
            )
        )
    if schemas:
        file = f"{stem}/schemas.md"
        url = web.schemas_page()
        page = render_schema_page(file=file, schemas=schemas, url=url, **common)
        schema_urls = [
            web.schema(schema.name, anchor)
            for schema, (_, anchor) in zip(schemas, page.positions, strict=True)
        ]
        documents.append(
            Document(
                path=file,
                publication=publication,
                title=f"Schemas — {api_title}",
                url=url,
                text=page.text,
                source="openapi",
                metadata={
                    "spec": path.name,
                    "openapi": str(spec.get("openapi")),
                    SECTION_URLS: _section_urls(page.positions, schema_urls),
                },
                identifiers=tuple(
                    entry
                    for item, (schema, (line, anchor), schema_url) in enumerate(
                        zip(schemas, page.positions, schema_urls, strict=True)
                    )
                    for entry in schema_entries(
                        schema, file, page.rows, item, line, anchor, schema_url, publication
                    )
                ),
            )
        )
    description = {
        "kind": "openapi",
        "path": display_path(path.resolve()),
        "title": api_title,
        "version": version,
        "openapi": str(spec.get("openapi")),
        "base_path": base,
        "publication": publication,
        "paths": len(spec["paths"]),
        "operations": len(operations),
        "schemas": len(schemas),
        "documents": len(documents),
    }
    if web.source:
        description["web"] = web.source
        description["web_url"] = web.portal or web.spec_url or web.docs
    return documents, description


def _section_urls(positions: list[tuple[int, str]], urls: list[str]) -> dict[str, str]:
    """The web URL of each operation's or schema's section by its anchor on the page: what
    the chunker gives the passages there (a portal's anchors are not the page's)."""
    return {anchor: url for (_, anchor), url in zip(positions, urls, strict=True) if anchor and url}
