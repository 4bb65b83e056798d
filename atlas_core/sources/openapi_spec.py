"""Reading an OpenAPI 3 file safely: parse JSON or YAML, validate, check and follow `$ref`s.

Every local `$ref` is checked up front, so a broken one is reported by its pointer and where it is
used instead of failing halfway through rendering; chains of `$ref`s that loop are refused.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from atlas_core.errors import OpenAPIError
from atlas_core.sources.frontmatter import decode_utf8

log = logging.getLogger(__name__)


def parse_spec(path: Path) -> dict[str, Any]:
    """The spec as a mapping; JSON or YAML syntax errors name the file and line."""
    if not path.is_file():
        raise OpenAPIError(
            f"openapi source {path}: no such file",
            hint="pass --source openapi=FILE with an OpenAPI 3 .json or .yaml file",
            path=str(path),
        )
    text = decode_utf8(path.read_bytes(), str(path))
    if not text.strip():
        raise OpenAPIError(
            f"{path}: empty file", hint="export the OpenAPI 3 spec again", path=str(path)
        )
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as exc:
            raise OpenAPIError(
                f"{path}:{exc.lineno}: not valid JSON ({exc.msg})",
                hint="fix the JSON syntax or export the spec again",
                path=str(path),
            ) from None
    else:
        try:
            spec = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f":{mark.line + 1}" if mark is not None else ""
            raise OpenAPIError(
                f"{path}{line}: not valid YAML ({getattr(exc, 'problem', None) or exc})",
                hint="fix the YAML syntax or export the spec again",
                path=str(path),
            ) from None
    if not isinstance(spec, dict):
        raise OpenAPIError(
            f"{path}: not an OpenAPI document (top level is not a mapping)",
            hint="pass an OpenAPI 3 JSON or YAML file",
            path=str(path),
        )
    version = str(spec.get("openapi", ""))
    if not version.startswith("3."):
        found = f"swagger {spec['swagger']}" if "swagger" in spec else f"openapi {version or '?'}"
        raise OpenAPIError(
            f"{path}: not OpenAPI 3 (found {found})",
            hint="convert Swagger 2 with swagger2openapi, or pass an OpenAPI 3.x file",
            path=str(path),
        )
    paths = spec.get("paths")
    if not isinstance(paths, dict) or not paths:
        raise OpenAPIError(
            f"{path}: no paths (the spec documents no operations)",
            hint="pass a spec with a non-empty `paths` object",
            path=str(path),
        )
    check_refs(spec, path)
    return spec


def _walk(node: Any, pointer: str = "#") -> Iterator[tuple[str, Any]]:
    stack: list[tuple[str, Any]] = [(pointer, node)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            yield where, value
            for key, child in value.items():
                stack.append((f"{where}/{str(key).replace('~', '~0').replace('/', '~1')}", child))
        elif isinstance(value, list):
            stack.extend((f"{where}/{i}", child) for i, child in enumerate(value))


def lookup_pointer(spec: dict[str, Any], ref: str) -> Any:
    """The node a local `#/...` pointer names; KeyError when it names nothing."""
    node: Any = spec
    for raw in ref[1:].split("/")[1:] if ref.startswith("#/") else []:
        token = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(ref)
    return node


def check_refs(spec: dict[str, Any], path: Path) -> None:
    for where, node in _walk(spec):
        ref = node.get("$ref")
        if ref is None:
            continue
        if not isinstance(ref, str):
            raise OpenAPIError(
                f"{path}: $ref at {where} is not a string", hint="fix the $ref", path=str(path)
            )
        if ref.startswith("#"):
            try:
                lookup_pointer(spec, ref)
            except KeyError:
                raise OpenAPIError(
                    f"{path}: broken $ref {ref!r} at {where}",
                    hint="define the target under components or correct the pointer",
                    path=str(path),
                ) from None
        else:
            log.warning("%s: external $ref %r at %s is shown by name only", path, ref, where)


class Resolver:
    """Follows `$ref` chains; a chain that loops back is an error naming the pointer."""

    def __init__(self, spec: dict[str, Any], path: Path) -> None:
        self.spec = spec
        self.path = path

    def resolve(self, node: Any) -> Any:
        seen: list[str] = []
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#"):
                return {}
            if ref in seen:
                raise OpenAPIError(
                    f"{self.path}: circular $ref {' -> '.join([*seen, ref])}",
                    hint="a $ref must end at a definition, not loop",
                    path=str(self.path),
                )
            seen.append(ref)
            node = lookup_pointer(self.spec, ref)
        return node

    def type_name(self, schema: Any, depth: int = 0) -> str:
        """A short type: a schema name, `array[Item]`, `map[string, V]`, `string (uuid)`."""
        if not isinstance(schema, dict) or depth > 6:
            return "any" if not isinstance(schema, dict) else "object"
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return ref.rsplit("/", 1)[-1]
        for key, joiner in (("allOf", " & "), ("oneOf", " | "), ("anyOf", " | ")):
            parts = schema.get(key)
            if isinstance(parts, list) and parts:
                names = [self.type_name(p, depth + 1) for p in parts]
                return joiner.join(dict.fromkeys(names))
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = "|".join(str(k) for k in kind if k != "null") or "null"
        if kind == "array":
            return f"array[{self.type_name(schema.get('items'), depth + 1)}]"
        extra = schema.get("additionalProperties")
        if (kind in (None, "object")) and isinstance(extra, dict) and not schema.get("properties"):
            return f"map[string, {self.type_name(extra, depth + 1)}]"
        if kind is None:
            return "object" if schema.get("properties") else "any"
        fmt = schema.get("format")
        return f"{kind} ({fmt})" if fmt else str(kind)
