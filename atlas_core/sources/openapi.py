"""`openapi` source: an OpenAPI 3 file becomes reference pages and identifier entries.

Each tag becomes one page (H1 the tag, one H2 per operation) and all component schemas one more
page (one H2 per schema), so the chunker cuts one chunk per operation or schema and the identifier
table points at the exact section. Parsing, validation and `$ref` handling live in
`openapi_spec`, the markdown itself in `openapi_pages`.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from atlas_core.markdown import SECTION_URLS, spec_markdown
from atlas_core.safeio import display_path
from atlas_core.sources.openapi_pages import render_schema_page, render_tag_page, slug
from atlas_core.sources.openapi_spec import Resolver, parse_spec
from atlas_core.sources.openapi_urls import WebAddresses
from atlas_core.types import Document, IdentifierEntry, Param

log = logging.getLogger(__name__)

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
UNTAGGED = "untagged"
_JSON_TYPES = ("application/json", "application/*+json", "*/*")
# allOf parts followed for one schema's properties: real specs nest two or three.
MAX_ALLOF_DEPTH = 16


@dataclass(slots=True)
class Operation:
    method: str
    path: str
    operation_id: str
    summary: str
    description: str
    tags: list[str]
    params: list[Param]
    request_schema: str
    request_media: str
    request_required: bool
    request_description: str
    responses: list[tuple[str, str, str]]  # (status, description, schema name)
    response_schema: str
    deprecated: bool
    replacement: str
    external_url: str = ""  # the operation's own `externalDocs.url`
    request_example: str = ""
    response_examples: dict[str, str] = field(default_factory=dict)  # by status


@dataclass(slots=True)
class SchemaInfo:
    name: str
    description: str
    type: str
    properties: list[Param] = field(default_factory=list)
    enum: list[str] = field(default_factory=list)
    composed_of: list[str] = field(default_factory=list)
    deprecated: bool = False
    example: str = ""


# --- extraction -------------------------------------------------------------------------------------

_REPLACEMENT_RES = (
    re.compile(r"\b[Uu]se\s+`?((?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+/[^\s`,;]*[^\s`,;.])`?"),
    re.compile(r"\b[Uu]se\s+`([^`]+)`\s+instead"),
    re.compile(r"\b(?:[Rr]eplaced by|[Ss]uperseded by)\s+`?([\w./{}-]*\w)`?"),
)


def replacement_in(text: str) -> str:
    for pattern in _REPLACEMENT_RES:
        m = pattern.search(text)
        if m:
            return " ".join(m.group(1).split())
    return ""


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a spec may put anything anywhere."""
    return value if isinstance(value, dict) else {}


def _array(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def _media(content: Any) -> tuple[str, Any]:
    if not isinstance(content, dict) or not content:
        return "", None
    for media in _JSON_TYPES:
        if media in content:
            return media, content[media]
    for media, value in content.items():
        if "json" in media:
            return media, value
    media = next(iter(content))
    return media, content[media]


MAX_ENUM_VALUES = 200
MAX_EXAMPLE_CHARS = 200  # a parameter's or property's example
MAX_BODY_EXAMPLE_CHARS = 400  # a request's or response's example, on one line


def _example(resolver: Resolver, node: Any, cap: int = MAX_EXAMPLE_CHARS) -> str:
    """The example a parameter, property, schema or media type gives: its `example`, else the
    first of its `examples` (a 3.1 schema's list, or a map of Example Objects), written as a
    default is (strings bare, the rest as compact JSON), one line, cut with "…" past `cap`."""
    node = resolver.resolve(node)
    if not isinstance(node, dict):
        return ""
    if node.get("example") is not None:
        value = node["example"]
    else:
        examples = node.get("examples")
        if isinstance(examples, list) and examples:
            value = examples[0]
        elif isinstance(examples, dict) and examples:
            value = _object(resolver.resolve(next(iter(examples.values())))).get("value")
        else:
            return ""
    if value is None:
        return ""
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    )
    text = " ".join(text[: cap * 4].split())
    return text if len(text) <= cap else text[: cap - 1].rstrip() + "…"


def _body_example(resolver: Resolver, media: Any) -> str:
    """A request's or response's example: the media type's own, else its schema's."""
    own = _example(resolver, media, MAX_BODY_EXAMPLE_CHARS)
    if own or not isinstance(media, dict):
        return own
    return _example(resolver, media.get("schema"), MAX_BODY_EXAMPLE_CHARS)


def _is_object(node: dict[str, Any]) -> bool:
    return node.get("type") == "object" or "properties" in node or "allOf" in node


def _details(resolver: Resolver, schema: Any) -> dict[str, Any]:
    """Format, values, default and example of a parameter's or property's schema: a `$ref` to
    an enum schema gives that schema's values (and example), an array its items' values (and
    example, when it has none of its own). A `$ref` to an object type gives no example: a
    whole object's would crowd a table cell."""
    node = resolver.resolve(schema)
    if not isinstance(node, dict):
        return {}
    shared = isinstance(schema, dict) and "$ref" in schema and _is_object(node)
    example = "" if shared else _example(resolver, node)
    if node.get("type") == "array" and "enum" not in node:
        items = resolver.resolve(node.get("items"))
        node = (
            {**items, **{k: v for k, v in node.items() if k == "default"}}
            if isinstance(items, dict)
            else node
        )
    enum = _array(node.get("enum"))
    details: dict[str, Any] = {
        "format": str(node.get("format") or ""),
        "enum": tuple(_value_text(v) for v in enum[:MAX_ENUM_VALUES] if v is not None),
    }
    if "default" in node and node["default"] is not None:
        details["default"] = _value_text(node["default"])
    example = example or ("" if _is_object(node) else _example(resolver, node))
    if example:
        details["example"] = example
    return details


def _value_text(value: Any) -> str:
    """A value as written in a request: strings bare (ANYWHERE), the rest as JSON (true, 10)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)[:200]


def _described(resolver: Resolver, node: Any) -> str:
    """A parameter's or property's own description, as markdown; a `$ref`'s target describes
    the type, not this use of it, so it counts only when the node has none."""
    text = node.get("description") if isinstance(node, dict) else None
    return spec_markdown(str(text or ""))


def _params(resolver: Resolver, raw: list[Any]) -> list[Param]:
    merged: dict[tuple[str, str], Param] = {}
    for item in raw:
        param = resolver.resolve(item)
        if not isinstance(param, dict) or "name" not in param:
            continue
        schema = param.get("schema")
        if schema is None and isinstance(param.get("content"), dict):
            schema = (_media(param["content"])[1] or {}).get("schema")
        location = str(param.get("in", "query"))
        details = _details(resolver, schema)
        # The parameter's own example describes this use; its schema's, the type.
        own = _example(resolver, param)
        if own:
            details["example"] = own
        merged[(str(param["name"]), location)] = Param(
            name=str(param["name"]),
            location=location,
            type=resolver.type_name(schema) if schema is not None else "",
            required=bool(param.get("required", location == "path")),
            description=_described(resolver, param),
            deprecated=param.get("deprecated") is True,
            **details,
        )
    return list(merged.values())


def _properties(
    resolver: Resolver, schema: dict[str, Any], location: str, depth: int = 0
) -> list[Param]:
    """The properties of an object schema, `allOf` parts (in-spec `$ref`s followed) included,
    each marked required where any part requires it."""
    parts: list[Any] = [schema]
    props: dict[str, tuple[Any, str]] = {}
    required: set[str] = set()
    while parts:
        part = resolver.resolve(parts.pop(0))
        if not isinstance(part, dict):
            continue
        required.update(str(r) for r in _array(part.get("required")))
        for name, prop in _object(part.get("properties")).items():
            props.setdefault(str(name), (prop, location))
        if depth < MAX_ALLOF_DEPTH:
            parts.extend(_array(part.get("allOf")))
            depth += 1
    return [
        Param(
            name,
            where,
            resolver.type_name(prop),
            name in required,
            _described(resolver, prop),
            deprecated=isinstance(prop, dict) and prop.get("deprecated") is True,
            **_details(resolver, prop),
        )
        for name, (prop, where) in props.items()
    ]


def _body_params(
    resolver: Resolver, media: Any, type_name: str, required: bool, description: str
) -> list[Param]:
    """A named body type is one `body` param; an inline object lists its fields instead."""
    schema = _object(_object(media).get("schema"))
    props = schema.get("properties") if "$ref" not in schema else None
    if not isinstance(props, dict) or not props:
        return [Param("body", "body", type_name, required, spec_markdown(description))]
    return _properties(resolver, schema, "body")


def extract_operations(spec: dict[str, Any], resolver: Resolver) -> list[Operation]:
    operations: list[Operation] = []
    for api_path, item in spec["paths"].items():
        item = resolver.resolve(item)
        if not isinstance(item, dict):
            continue
        shared = _array(item.get("parameters"))
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            own = _array(op.get("parameters"))
            params = _params(resolver, [*shared, *own])
            body = resolver.resolve(op.get("requestBody")) if op.get("requestBody") else None
            request_schema = request_media = request_description = request_example = ""
            request_required = False
            if isinstance(body, dict):
                request_media, media = _media(body.get("content"))
                request_example = _body_example(resolver, media)
                if isinstance(media, dict) and "schema" in media:
                    request_schema = resolver.type_name(media["schema"])
                request_required = bool(body.get("required"))
                request_description = str(body.get("description") or "")
                params.extend(
                    _body_params(
                        resolver, media, request_schema, request_required, request_description
                    )
                )
            responses: list[tuple[str, str, str]] = []
            response_examples: dict[str, str] = {}
            raw_responses = _object(op.get("responses"))
            for status, raw in raw_responses.items():
                response = resolver.resolve(raw)
                if not isinstance(response, dict):
                    continue
                _, media = _media(response.get("content"))
                example = _body_example(resolver, media)
                if example:
                    response_examples[str(status)] = example
                name = (
                    resolver.type_name(media["schema"])
                    if isinstance(media, dict) and "schema" in media
                    else ""
                )
                responses.append((str(status), str(response.get("description") or ""), name))
            success = [r for r in responses if r[0].startswith("2") and r[2]]
            success = success or [r for r in responses if r[0] == "default" and r[2]]
            description = str(op.get("description") or "")
            tags = [str(t) for t in op.get("tags") or [] if str(t).strip()]
            operations.append(
                Operation(
                    method=method.upper(),
                    path=str(api_path),
                    operation_id=str(op.get("operationId") or ""),
                    summary=" ".join(str(op.get("summary") or "").split()),
                    description=description,
                    tags=tags or [UNTAGGED],
                    params=params,
                    request_schema=request_schema,
                    request_media=request_media,
                    request_required=request_required,
                    request_description=request_description,
                    responses=responses,
                    response_schema=success[0][2] if success else "",
                    deprecated=bool(op.get("deprecated")),
                    replacement=replacement_in(description) if op.get("deprecated") else "",
                    external_url=str(_object(op.get("externalDocs")).get("url") or ""),
                    request_example=request_example,
                    response_examples=response_examples,
                )
            )
    return operations


def extract_schemas(spec: dict[str, Any], resolver: Resolver) -> list[SchemaInfo]:
    raw = _object(_object(spec.get("components")).get("schemas"))
    schemas: list[SchemaInfo] = []
    for name, node in raw.items():
        schema = resolver.resolve(node)
        if not isinstance(schema, dict):
            continue
        info = SchemaInfo(
            name=str(name),
            description=spec_markdown(str(schema.get("description") or "")),
            type=_schema_kind(schema),
            deprecated=bool(schema.get("deprecated")),
            example=_example(resolver, schema, MAX_BODY_EXAMPLE_CHARS),
        )
        for part in _array(schema.get("allOf")):
            if isinstance(part, dict) and "$ref" in part:
                info.composed_of.append(resolver.type_name(part))
        # Inherited properties are listed with the schema's own: its section documents every
        # field a request of that type takes, and each gets an entry owned by this schema.
        info.properties = _properties(resolver, schema, "body")
        if isinstance(schema.get("enum"), list):
            info.enum = [str(v) for v in schema["enum"]]
        schemas.append(info)
    return schemas


def _schema_kind(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = "|".join(str(k) for k in kind if k != "null")
    if not kind:
        kind = "object" if schema.get("properties") or schema.get("allOf") else "any"
    if schema.get("enum"):
        return f"{kind} (enum)"
    return f"{kind} ({schema['format']})" if schema.get("format") else str(kind)


# --- documents ------------------------------------------------------------------------------------


def base_path(spec: dict[str, Any]) -> str:
    servers = spec.get("servers")
    if isinstance(servers, list) and servers and isinstance(servers[0], dict):
        url = str(servers[0].get("url") or "")
        return urlparse(url).path.rstrip("/") if "://" in url else url.rstrip("/")
    return ""


def load_openapi(path: Path, url: str = "") -> tuple[list[Document], dict[str, Any]]:
    """The spec at `path` as reference pages; `url` is where it is published (a developer
    portal, or the spec file's own address: see `openapi_urls`), "" when the source names none."""
    spec = parse_spec(path)
    resolver = Resolver(spec, path)
    info = _object(spec.get("info"))
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
                    SECTION_URLS: _section_urls(page.positions, op_urls),
                },
                identifiers=tuple(
                    entry
                    for item, (op, (line, anchor), op_url) in enumerate(
                        zip(own, page.positions, op_urls, strict=True)
                    )
                    for entry in (
                        *_operation_entries(op, file, line, anchor, op_url, publication),
                        *_parameter_entries(op, file, page.rows, item, anchor, op_url, publication),
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
                    for entry in (
                        IdentifierEntry(
                            name=schema.name,
                            kind="schema",
                            file=file,
                            line=line,
                            anchor=anchor,
                            url=schema_url,
                            summary=_first_paragraph(schema.description),
                            publication=publication,
                            params=tuple(schema.properties),
                            deprecated=schema.deprecated,
                        ),
                        *(
                            IdentifierEntry(
                                name=p.name,
                                kind="property",
                                file=file,
                                line=page.rows.get((item, p.location, p.name), line),
                                anchor=anchor,
                                url=schema_url,
                                summary=_first_paragraph(p.description),
                                publication=publication,
                                params=(p,),
                                owner=schema.name,
                            )
                            for p in schema.properties
                        ),
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


def _first_paragraph(text: str, cap: int = 400) -> str:
    from atlas_core.markdown import clean_gitbook as clean

    para = clean(text).strip().split("\n\n", 1)[0]
    para = " ".join(para.split())
    return para if len(para) <= cap else para[: cap - 1].rstrip() + "…"


def _operation_entries(
    op: Operation, file: str, line: int, anchor: str, url: str, publication: str
) -> list[IdentifierEntry]:
    summary = op.summary
    detail = _first_paragraph(op.description)
    if detail and detail.rstrip(".").lower() != summary.rstrip(".").lower():
        summary = f"{summary.rstrip('.')}. {detail}" if summary else detail
    common: dict[str, Any] = {
        "file": file,
        "line": line,
        "anchor": anchor,
        "url": url,
        "summary": summary,
        "publication": publication,
        "method": op.method,
        "path": op.path,
        "operation_id": op.operation_id,
        "params": tuple(op.params),
        "request_schema": op.request_schema,
        "response_schema": op.response_schema,
        "deprecated": op.deprecated,
        "replacement": op.replacement,
    }
    entries = [IdentifierEntry(name=f"{op.method} {op.path}", kind="endpoint", **common)]
    if op.operation_id:
        entries.append(IdentifierEntry(name=op.operation_id, kind="operation", **common))
    return entries


def _parameter_entries(
    op: Operation,
    file: str,
    rows: dict[tuple[int, str, str], int],
    item: int,
    anchor: str,
    url: str,
    publication: str,
) -> list[IdentifierEntry]:
    """One `parameter` entry per path, query, header or cookie parameter of `op`, one
    `property` entry per field of its inline request body, each at its table row; `url` is the
    operation's."""
    entries: list[IdentifierEntry] = []
    for p in op.params:
        if p.location == "body" and p.name == "body":
            continue  # a named body type: its properties are the schema's entries
        line = rows.get((item, p.location, p.name))
        if line is None:
            continue
        entries.append(
            IdentifierEntry(
                name=p.name,
                kind="property" if p.location == "body" else "parameter",
                file=file,
                line=line,
                anchor=anchor,
                url=url,
                summary=_first_paragraph(p.description),
                publication=publication,
                method=op.method,
                path=op.path,
                operation_id=op.operation_id,
                params=(p,),
                deprecated=op.deprecated,
            )
        )
    return entries
