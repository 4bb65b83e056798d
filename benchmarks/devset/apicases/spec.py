"""The operations of the two specs as the API cases need them: parameters and top-level body
properties with their schema, required and deprecated flags, and the shape of the JSON body."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.devset.spec import HTTP_METHODS, Refs

SPEC_FILES = ("dgc-rest.json", "dgc-importer-rest.json")


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    schema: dict[str, Any]
    required: bool
    deprecated: bool

    @property
    def enum(self) -> tuple[str, ...]:
        """String enum values of the field or of its array items."""
        values = self.schema.get("enum") or (self.schema.get("items") or {}).get("enum") or []
        return tuple(str(v) for v in values if isinstance(v, str))


@dataclass(frozen=True, slots=True)
class ApiOp:
    spec: str
    method: str
    path: str
    operation_id: str
    tag: str
    deprecated: bool
    path_params: tuple[str, ...]
    query: tuple[Field, ...]
    # none | object | object-array | scalar-array | opaque (a JSON body whose keys the spec
    # does not list, such as a string holding a view config) | form (multipart)
    body_kind: str
    body: tuple[Field, ...]

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def segments(self) -> list[str]:
        return self.path.strip("/").split("/")


def _fields(items: list[tuple[str, dict[str, Any], bool, bool]]) -> tuple[Field, ...]:
    return tuple(Field(n, s, r, d) for n, s, r, d in items)


def _body(refs: Refs, op: dict[str, Any]) -> tuple[str, tuple[Field, ...]]:
    request = refs.follow_ref(op.get("requestBody")) or {}
    content = request.get("content") or {}
    if not content:
        return "none", ()
    if "application/json" not in content:
        return "form", ()
    schema = refs.follow_ref((content["application/json"] or {}).get("schema") or {})
    kind = "object"
    if schema.get("type") == "array":
        schema = refs.follow_ref(schema.get("items") or {})
        kind = "object-array"
        if schema.get("type") not in (None, "object") or not refs.properties(schema):
            return "scalar-array", ()
    props = refs.properties(schema)
    if not props:
        return "opaque", ()
    required: set[str] = set()
    for part in [schema, *(schema.get("allOf") or [])]:
        required.update(str(r) for r in (refs.follow_ref(part) or {}).get("required") or [])
    raw_props: dict[str, Any] = {}
    for part in [*(schema.get("allOf") or []), schema]:
        raw_props.update((refs.follow_ref(part) or {}).get("properties") or {})
    items = []
    for name, prop in props.items():
        deprecated = bool((raw_props.get(name) or {}).get("deprecated") or prop.get("deprecated"))
        items.append((name, prop, name in required, deprecated))
    return kind, _fields(items)


def read_ops(path: Path) -> list[ApiOp]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    refs = Refs(raw)
    spec = path.stem
    ops: list[ApiOp] = []
    for api_path, item in raw["paths"].items():
        item = refs.follow_ref(item)
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            merged: dict[tuple[str, str], dict[str, Any]] = {}
            for p in [*(item.get("parameters") or []), *(op.get("parameters") or [])]:
                p = refs.follow_ref(p)
                if isinstance(p, dict) and "name" in p:
                    merged[(str(p["name"]), str(p.get("in", "query")))] = p
            query = _fields(
                [
                    (
                        n,
                        refs.follow_ref(p.get("schema") or {}),
                        bool(p.get("required")),
                        bool(p.get("deprecated")),
                    )
                    for (n, loc), p in merged.items()
                    if loc == "query"
                ]
            )
            body_kind, body = _body(refs, op)
            tags = [str(t) for t in op.get("tags") or [] if str(t).strip()] or ["api"]
            ops.append(
                ApiOp(
                    spec,
                    method.upper(),
                    str(api_path),
                    str(op.get("operationId") or ""),
                    tags[0],
                    bool(op.get("deprecated")),
                    tuple(re.findall(r"\{([^}]+)\}", str(api_path))),
                    query,
                    body_kind,
                    body,
                )
            )
    return ops


def read_all(shared: Path) -> list[ApiOp]:
    specs_dir = shared / "collibra-openapi"
    missing = [name for name in SPEC_FILES if not (specs_dir / name).is_file()]
    if missing:
        raise SystemExit(f"{specs_dir}: missing {', '.join(missing)} (pass --shared)")
    return [op for name in SPEC_FILES for op in read_ops(specs_dir / name)]


def matches(template: str, written: list[str]) -> bool:
    """Whether a written path (literal segments, `{}` for a variable) fits a spec path template:
    a literal fills a parameter segment, a variable fills only a parameter segment."""
    want = template.strip("/").split("/")
    if len(want) != len(written):
        return False
    return all(w.startswith("{") or g == w for g, w in zip(written, want, strict=True))
