"""A strict yes/no check of a JSON document against a small JSON Schema, without jsonschema.

Importing jsonschema costs about 80 ms and building its validator more; `Bundle.open` runs on the
language server's cold-start path, where that was a quarter of the open. This compiles the
manifest schema into plain Python predicates once, for the keywords that schema uses, and answers
one question: is the manifest certainly valid?

The answer errs only towards "no": every type test is at least as strict as the JSON Schema
meaning (an integer must be a Python int, not ``1.0`` and not a bool; a number must be finite). A
"no" costs nothing in correctness: the caller then runs the full validator, whose messages the
user sees exactly as before. A schema using any keyword not handled here cannot be compiled
(`Unsupported`), and the caller always uses the full validator. tests/test_bundle_schema_check.py
checks agreement with jsonschema on valid manifests and on many broken ones.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

# Keywords that only annotate or hold definitions; they never make a document invalid.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "$defs"})
_HANDLED = _ANNOTATIONS | {
    "type",
    "required",
    "properties",
    "additionalProperties",
    "propertyNames",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "items",
    "$ref",
    "dependentRequired",
}


class Unsupported(Exception):
    """The schema uses something this checker does not implement."""


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_number(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


_TYPES: dict[str, Check] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "integer": _is_int,
    "number": _is_number,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}


def _every(checks: list[Check]) -> Check:
    """One predicate for several, without a generator per call (it runs per file entry)."""
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    frozen = tuple(checks)

    def every(v: Any) -> bool:
        for check in frozen:  # noqa: SIM110 - a plain loop, not a generator per entry
            if not check(v):
                return False
        return True

    return every


def compile_schema(root: Mapping[str, Any]) -> Check:
    """A predicate: True only when the document is valid against `root` (draft 2020-12)."""
    compiled: dict[str, Check] = {}
    pending: dict[str, list[Check]] = {}  # references met while their target is being compiled

    def ref(pointer: str) -> Check:
        prefix = "#/$defs/"
        name = pointer[len(prefix) :]
        if not pointer.startswith(prefix) or "/" in name or "~" in name or "%" in name:
            raise Unsupported(f"$ref {pointer!r}")
        if pointer in compiled:
            return compiled[pointer]
        if pointer in pending:
            cell = pending[pointer]  # a recursive reference: resolved once compiled
            return lambda v: cell[0](v)
        defs = root.get("$defs")
        if not isinstance(defs, Mapping) or name not in defs:
            raise Unsupported(f"$ref {pointer!r} names nothing")
        cell = pending[pointer] = []
        check = build(defs[name])
        cell.append(check)
        del pending[pointer]
        compiled[pointer] = check
        return check

    def build(schema: Any) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, Mapping):
            raise Unsupported(f"schema {schema!r}")
        unknown = set(schema) - _HANDLED
        if unknown:
            raise Unsupported(f"keywords {sorted(unknown)}")
        checks: list[Check] = []
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not names or not all(isinstance(n, str) and n in _TYPES for n in names):
                raise Unsupported(f"type {schema['type']!r}")
            tests = [_TYPES[n] for n in names]
            checks.append(tests[0] if len(tests) == 1 else lambda v: any(t(v) for t in tests))
        obj = _object_check(schema, build)
        if obj is not None:
            checks.append(obj)
        checks.extend(_scalar_checks(schema))
        if "items" in schema:
            item = build(schema["items"])
            checks.append(lambda v: type(v) is not list or all(item(x) for x in v))
        if "$ref" in schema:
            checks.append(ref(schema["$ref"]))
        return _every(checks)

    return build(root)


def _object_check(schema: Mapping[str, Any], build: Callable[[Any], Check]) -> Check | None:
    """The object keywords of one schema as one predicate (None when it has none)."""
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
        raise Unsupported(f"required {required!r}")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise Unsupported(f"properties {properties!r}")
    deps = schema.get("dependentRequired", {})
    if not isinstance(deps, Mapping) or not all(isinstance(d, list) for d in deps.values()):
        raise Unsupported(f"dependentRequired {deps!r}")
    need = tuple(required)
    props = tuple((key, build(sub)) for key, sub in properties.items())
    known = frozenset(properties)
    extra = build(schema["additionalProperties"]) if "additionalProperties" in schema else None
    name_ok = build(schema["propertyNames"]) if "propertyNames" in schema else None
    pairs = tuple((key, tuple(needed)) for key, needed in deps.items())
    if not (need or props or extra or name_ok or pairs):
        return None

    def check(v: Any) -> bool:
        if type(v) is not dict:
            return True  # object keywords say nothing about other types
        for key in need:
            if key not in v:
                return False
        for key, prop in props:
            if key in v and not prop(v[key]):
                return False
        if extra is not None:
            for key, value in v.items():
                if key not in known and not extra(value):
                    return False
        if name_ok is not None:
            for key in v:
                if not name_ok(key):
                    return False
        for key, needed in pairs:
            if key in v:
                for other in needed:
                    if other not in v:
                        return False
        return True

    return check


def _scalar_checks(schema: Mapping[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "pattern" in schema:
        try:
            search = re.compile(schema["pattern"]).search
        except (re.error, TypeError) as exc:
            raise Unsupported(f"pattern {schema['pattern']!r}: {exc}") from None
        checks.append(lambda v: type(v) is not str or search(v) is not None)
    for key in ("minLength", "maxLength", "minimum", "maximum"):
        if key in schema and not _is_int(schema[key]):
            raise Unsupported(f"{key} {schema[key]!r}")
    if "minLength" in schema:
        shortest = schema["minLength"]
        checks.append(lambda v: type(v) is not str or len(v) >= shortest)
    if "maxLength" in schema:
        longest = schema["maxLength"]
        checks.append(lambda v: type(v) is not str or len(v) <= longest)
    if "minimum" in schema:
        least = schema["minimum"]

        def at_least(v: Any) -> bool:
            # Outside its type a keyword does not apply; a bool is not a number in JSON Schema.
            if type(v) is int:
                return v >= least
            return type(v) is not float or (math.isfinite(v) and v >= least)

        checks.append(at_least)
    if "maximum" in schema:
        most = schema["maximum"]

        def at_most(v: Any) -> bool:
            if type(v) is int:
                return v <= most
            return type(v) is not float or (math.isfinite(v) and v <= most)

        checks.append(at_most)
    return checks
