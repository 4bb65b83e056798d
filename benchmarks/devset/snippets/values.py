"""Values for the keys of a snippet: literals and variables in each language."""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from typing import Any

from benchmarks.devset.casing import snake


@dataclass(slots=True)
class Key:
    name: str
    role: str  # query | body | path
    schema: dict[str, Any]


_STRINGS = {
    "name": "Customer ID",
    "displayName": "Customer identifier",
    "description": "Synced from the CRM",
    "value": "42",
    "email": "jane.doe@acme.com",
    "content": "Reviewed by the data office",
    "comment": "Reviewed by the data office",
}


def ident(name: str, lang: str) -> str:
    return snake(name) if lang == "python" else name[0].lower() + name[1:]


def value_code(key: Key, lang: str, rng: random.Random, variables: list[str]) -> str:
    """A literal or a variable for a key's value in `lang`; ids become function arguments."""
    schema = key.schema
    kind = schema.get("type")
    if schema.get("enum"):
        return json.dumps(str(rng.choice(schema["enum"])))
    if schema.get("format") == "uuid" or (key.name.endswith("Id") and kind == "string"):
        var = ident(key.name, lang)
        variables.append(var)
        if lang == "java":
            return f"UUID.fromString({var})"
        return f"string2Uuid({var})" if lang == "groovy" else var
    if kind == "array":
        items = schema.get("items") or {}
        inner = value_code(Key(singular(key.name), key.role, items), lang, rng, variables)
        if lang == "java":
            return f"List.of({inner})"
        return f"[{inner}]"
    if kind == "boolean":
        value = rng.choice([True, False])
        return ("True" if value else "False") if lang == "python" else str(value).lower()
    if kind in ("integer", "number"):
        return "100" if key.name in ("limit", "countLimit") else str(rng.choice([0, 1, 10]))
    if kind == "object" or "additionalProperties" in schema or schema.get("properties"):
        if lang == "groovy":
            return '[comment: "Started by the nightly sync"]'
        if lang == "java":
            return 'Map.of("comment", "Started by the nightly sync")'
        return '{"comment": "Started by the nightly sync"}'
    return json.dumps(
        _STRINGS.get(key.name, "Customer ID" if "name" in key.name.lower() else "example")
    )


def literal(key: Key, rng: random.Random) -> str:
    """A JSON value for curl bodies and query strings."""
    schema = key.schema
    if schema.get("enum"):
        return str(rng.choice(schema["enum"]))
    if schema.get("format") == "uuid" or key.name.endswith("Id"):
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    kind = schema.get("type")
    if kind == "boolean":
        return rng.choice(["true", "false"])
    if kind in ("integer", "number"):
        return "100" if key.name in ("limit", "countLimit") else str(rng.choice([0, 1, 10]))
    return _STRINGS.get(key.name, "Customer ID" if "name" in key.name.lower() else "example")


def json_literal(key: Key, rng: random.Random) -> str:
    kind = key.schema.get("type")
    if kind == "array":
        return "[" + json_literal(Key(key.name, key.role, key.schema.get("items") or {}), rng) + "]"
    if kind in ("boolean", "integer", "number") and not key.schema.get("enum"):
        return literal(key, rng)
    if kind == "object" or "additionalProperties" in key.schema:
        return '{"comment": "nightly sync"}'
    return json.dumps(literal(key, rng))


def singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "uses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
