"""The OpenAPI specs: operations with their parameters and JSON bodies, and schema properties."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.devset.spec_pages import assign_pages, slug

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(slots=True)
class Op:
    stem: str
    method: str
    path: str
    operation_id: str
    summary: str
    tag: str
    params: list[tuple[str, str, dict[str, Any]]]  # (name, in, schema)
    body: dict[str, dict[str, Any]]  # top-level JSON body keys -> schema
    body_is_array: bool
    inline_body: bool
    body_schema: str  # the request schema's name when it is a $ref
    body_media: str
    required: frozenset[str]  # required query parameters and body keys
    page: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.path


@dataclass(slots=True)
class Spec:
    stem: str
    base: str
    ops: list[Op]
    schemas: dict[str, list[str]]  # schema name -> property names
    raw: dict[str, Any]

    @property
    def schema_page(self) -> str:
        return f"{self.stem}/schemas.md"


class Refs:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def follow_ref(self, node: Any) -> Any:
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/"):
                return {}
            seen.add(ref)
            node = self.raw
            for part in ref[2:].split("/"):
                node = node.get(part.replace("~1", "/").replace("~0", "~"), {})
        return node

    def properties(self, schema: Any, depth: int = 0) -> dict[str, dict[str, Any]]:
        schema = self.follow_ref(schema)
        if not isinstance(schema, dict) or depth > 8:
            return {}
        props: dict[str, dict[str, Any]] = {}
        for part in schema.get("allOf") or []:
            props.update(self.properties(part, depth + 1))
        for name, prop in (schema.get("properties") or {}).items():
            props[str(name)] = self.follow_ref(prop) if isinstance(prop, dict) else {}
        return props


def read_spec(path: Path) -> Spec:
    raw = json.loads(path.read_text(encoding="utf-8"))
    refs = Refs(raw)
    stem = slug(path.stem) or "api"
    servers = raw.get("servers") or [{}]
    base = str(servers[0].get("url") or "").rstrip("/")
    ops: list[Op] = []
    for api_path, item in raw["paths"].items():
        item = refs.follow_ref(item)
        shared = item.get("parameters") or []
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            merged: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {}
            required: set[str] = set()
            for p in [*shared, *(op.get("parameters") or [])]:
                p = refs.follow_ref(p)
                if isinstance(p, dict) and "name" in p:
                    loc = str(p.get("in", "query"))
                    merged[(p["name"], loc)] = (
                        str(p["name"]),
                        loc,
                        refs.follow_ref(p.get("schema")),
                    )
                    if p.get("required") and loc == "query":
                        required.add(str(p["name"]))
            body: dict[str, dict[str, Any]] = {}
            is_array = inline = False
            body_schema = body_media = ""
            request = refs.follow_ref(op.get("requestBody")) or {}
            content = request.get("content") or {}
            body_media = (
                "application/json" if "application/json" in content else next(iter(content), "")
            )
            media = content.get(body_media)
            if isinstance(media, dict) and "schema" in media:
                schema = media["schema"]
                inline = "$ref" not in schema and bool(schema.get("properties"))
                resolved = refs.follow_ref(schema)
                if resolved.get("type") == "array":
                    items = resolved.get("items") or {}
                    is_array, resolved = True, refs.follow_ref(items)
                    schema = items
                if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
                    body_schema = schema["$ref"].rsplit("/", 1)[-1]
                body = refs.properties(resolved)
                for part in [resolved, *(resolved.get("allOf") or [])]:
                    required.update(
                        str(r) for r in (refs.follow_ref(part) or {}).get("required") or []
                    )
            tags = [str(t) for t in op.get("tags") or [] if str(t).strip()] or ["untagged"]
            ops.append(
                Op(
                    stem,
                    method.upper(),
                    str(api_path),
                    str(op.get("operationId") or ""),
                    " ".join(str(op.get("summary") or "").split()),
                    tags[0],
                    list(merged.values()),
                    body,
                    is_array,
                    inline,
                    body_schema,
                    body_media,
                    frozenset(required),
                )
            )
    schemas = {
        str(name): list(refs.properties(node))
        for name, node in ((raw.get("components") or {}).get("schemas") or {}).items()
    }
    spec = Spec(stem, base, ops, schemas, raw)
    assign_pages(spec)
    return spec
