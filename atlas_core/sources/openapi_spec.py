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
from atlas_core.markdown import decode_utf8
from atlas_core.safeio import LimitExceeded, TooLarge, load_yaml, parse_json

log = logging.getLogger(__name__)

MAX_REF_CHAIN = 32
_BOUNDS_HINT = (
    "real specs need no deep nesting, self-referencing or exploding YAML aliases, or numbers "
    "thousands of digits long; check where the file came from, or export it again"
)


def parse_spec(path: Path) -> dict[str, Any]:
    """The spec as a mapping; JSON or YAML syntax errors name the file and line."""
    if not path.is_file():
        raise OpenAPIError(
            f"openapi source {path}: no such file",
            hint="pass --source openapi=FILE (or FILE#URL) with an OpenAPI 3 .json or .yaml file",
            path=str(path),
        )
    text = decode_utf8(path.read_bytes(), str(path))
    if not text.strip():
        raise OpenAPIError(
            f"{path}: empty file", hint="export the OpenAPI 3 spec again", path=str(path)
        )
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        try:
            spec = parse_json(text)
        except json.JSONDecodeError as exc:
            raise OpenAPIError(
                f"{path}:{exc.lineno}: not valid JSON ({exc.msg})",
                hint="fix the JSON syntax or export the spec again",
                path=str(path),
            ) from None
        except TooLarge as exc:
            raise OpenAPIError(
                f"{path}: refused: {exc}", hint=_BOUNDS_HINT, path=str(path)
            ) from None
    else:
        try:
            # Never more values than bytes: a spec without aliases cannot reach this, and one
            # with them cannot cost more than a spec written out in full would.
            spec = load_yaml(text, max_nodes=max(len(text), 100_000))
        except LimitExceeded as exc:
            mark = exc.problem_mark
            line = f":{mark.line + 1}" if mark is not None else ""
            raise OpenAPIError(
                f"{path}{line}: refused: {exc.problem}", hint=_BOUNDS_HINT, path=str(path)
            ) from None
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


# A pointer is built only when a message needs it: (parent, key) links, not strings, so walking
# a spec costs the same however long its keys are.
_Where = tuple[Any, str] | None


def pointer_of(where: _Where) -> str:
    keys: list[str] = []
    while where is not None:
        where, key = where
        keys.append(key.replace("~", "~0").replace("/", "~1"))
    return "#" + "".join(f"/{key}" for key in reversed(keys))


def _walk(node: Any) -> Iterator[tuple[_Where, dict[str, Any]]]:
    stack: list[tuple[_Where, Any]] = [(None, node)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            yield where, value
            stack.extend(((where, str(key)), child) for key, child in value.items())
        elif isinstance(value, list):
            stack.extend(((where, str(i)), child) for i, child in enumerate(value))


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
    external: list[tuple[str, _Where]] = []
    for where, node in _walk(spec):
        ref = node.get("$ref")
        if ref is None:
            continue
        if not isinstance(ref, str):
            raise OpenAPIError(
                f"{path}: $ref at {pointer_of(where)} is not a string",
                hint="fix the $ref",
                path=str(path),
            )
        if ref.startswith("#"):
            try:
                lookup_pointer(spec, ref)
            except KeyError:
                raise OpenAPIError(
                    f"{path}: broken $ref {ref!r} at {pointer_of(where)}",
                    hint="define the target under components or correct the pointer",
                    path=str(path),
                ) from None
        else:
            external.append((ref, where))
    if external:
        # Other files and URLs are never read: a spec must not pull local files or the network
        # into a bundle. One warning, however many there are.
        ref, where = external[0]
        log.warning(
            "%s: %d external $ref(s) not followed, shown by name only (first: %r at %s)",
            path,
            len(external),
            ref[:200],
            pointer_of(where),
        )


class Resolver:
    """Follows `$ref` chains; a chain that loops back is an error naming the pointer."""

    def __init__(self, spec: dict[str, Any], path: Path) -> None:
        self.spec = spec
        self.path = path

    def follow_ref(self, node: Any) -> Any:
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
            if len(seen) >= MAX_REF_CHAIN:
                # Resolving is repeated for every use, so a chain as long as the spec would make
                # the build quadratic; real specs chain two or three.
                raise OpenAPIError(
                    f"{self.path}: $ref chain longer than {MAX_REF_CHAIN} starting at {seen[0]!r}",
                    hint="point the $ref at the definition itself",
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
