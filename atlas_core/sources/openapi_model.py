"""The operations and schemas an OpenAPI 3 spec documents, read out of the parsed spec.

A spec may put anything anywhere, so every read checks the JSON type it expects; `$ref`s go
through `openapi_spec.Resolver`. Parameters and properties keep what a reader or a checker needs
(type, format, values, default, example, deprecation), descriptions as markdown.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from atlas_core.markdown import spec_markdown
from atlas_core.sources.openapi_spec import Resolver
from atlas_core.types import Param

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


def json_object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a spec may put anything anywhere."""
    return value if isinstance(value, dict) else {}


def json_array(value: Any) -> list[Any]:
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
    node = resolver.follow_ref(node)
    if not isinstance(node, dict):
        return ""
    if node.get("example") is not None:
        value = node["example"]
    else:
        examples = node.get("examples")
        if isinstance(examples, list) and examples:
            value = examples[0]
        elif isinstance(examples, dict) and examples:
            value = json_object(resolver.follow_ref(next(iter(examples.values())))).get("value")
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
    node = resolver.follow_ref(schema)
    if not isinstance(node, dict):
        return {}
    shared = isinstance(schema, dict) and "$ref" in schema and _is_object(node)
    example = "" if shared else _example(resolver, node)
    if node.get("type") == "array" and "enum" not in node:
        items = resolver.follow_ref(node.get("items"))
        node = (
            {**items, **{k: v for k, v in node.items() if k == "default"}}
            if isinstance(items, dict)
            else node
        )
    enum = json_array(node.get("enum"))
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
        param = resolver.follow_ref(item)
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
        part = resolver.follow_ref(parts.pop(0))
        if not isinstance(part, dict):
            continue
        required.update(str(r) for r in json_array(part.get("required")))
        for name, prop in json_object(part.get("properties")).items():
            props.setdefault(str(name), (prop, location))
        if depth < MAX_ALLOF_DEPTH:
            parts.extend(json_array(part.get("allOf")))
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
    schema = json_object(json_object(media).get("schema"))
    props = schema.get("properties") if "$ref" not in schema else None
    if not isinstance(props, dict) or not props:
        return [Param("body", "body", type_name, required, spec_markdown(description))]
    return _properties(resolver, schema, "body")


def extract_operations(spec: dict[str, Any], resolver: Resolver) -> list[Operation]:
    operations: list[Operation] = []
    for api_path, item in spec["paths"].items():
        item = resolver.follow_ref(item)
        if not isinstance(item, dict):
            continue
        shared = json_array(item.get("parameters"))
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            own = json_array(op.get("parameters"))
            params = _params(resolver, [*shared, *own])
            body = resolver.follow_ref(op.get("requestBody")) if op.get("requestBody") else None
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
            raw_responses = json_object(op.get("responses"))
            for status, raw in raw_responses.items():
                response = resolver.follow_ref(raw)
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
                    external_url=str(json_object(op.get("externalDocs")).get("url") or ""),
                    request_example=request_example,
                    response_examples=response_examples,
                )
            )
    return operations


def extract_schemas(spec: dict[str, Any], resolver: Resolver) -> list[SchemaInfo]:
    raw = json_object(json_object(spec.get("components")).get("schemas"))
    schemas: list[SchemaInfo] = []
    for name, node in raw.items():
        schema = resolver.follow_ref(node)
        if not isinstance(schema, dict):
            continue
        info = SchemaInfo(
            name=str(name),
            description=spec_markdown(str(schema.get("description") or "")),
            type=_schema_kind(schema),
            deprecated=bool(schema.get("deprecated")),
            example=_example(resolver, schema, MAX_BODY_EXAMPLE_CHARS),
        )
        for part in json_array(schema.get("allOf")):
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
