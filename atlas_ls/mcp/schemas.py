"""The schemas `tools/list` advertises, made compact: every agent session pays for them in tokens
before its first question.

The full schemas pydantic writes repeat a title per field, a description per nested field and a
`$defs` entry per model: 17,000 characters for eleven tools. The advertised output schema names a
result's keys (every result carries all of them, so they are `required`); the tool descriptions
say what the important ones mean. The advertised input schema keeps what a model needs to call a
tool (types, enums, defaults, bounds and the argument descriptions) without titles. The server
still validates arguments and structured results against the full models, and a compact schema
accepts every result the full one does, so a client that checks results against the advertised
schema (the SDK client does) still can.
"""

from __future__ import annotations

from typing import Any


def compact_output(schema: dict[str, Any]) -> dict[str, Any]:
    """The advertised output schema for a tool whose full schema pydantic wrote: an object and its
    keys; no types, titles or descriptions."""
    return {"type": "object", "required": list(schema.get("properties", {}))}


def _types(node: dict[str, Any]) -> list[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    return []


def compact_input(schema: dict[str, Any]) -> dict[str, Any]:
    """The advertised input schema: no titles, and an optional argument advertised by its type
    alone (leaving it out is how a model says "none"; the server still accepts null)."""
    properties = {
        name: _input_property(prop) for name, prop in schema.get("properties", {}).items()
    }
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        out["required"] = schema["required"]
    return out


def _input_property(prop: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in prop.items() if k != "title"}
    options = out.pop("anyOf", None)
    if options is not None:
        kept = [o for o in options if o.get("type") != "null"]
        types = [t for o in kept for t in _types(o)]
        if len(kept) == 1:
            out = {**{k: v for k, v in kept[0].items() if k != "additionalProperties"}, **out}
        elif types:
            out = {"type": types, **out}
    if out.get("type") == "object":
        out.pop("additionalProperties", None)
    if "default" in out and out["default"] is None:
        del out["default"]
    return out
