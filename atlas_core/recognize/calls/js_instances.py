"""Client instances made with a base URL, ``axios.create({baseURL})``, ``$fetch.create(...)``::

const api = axios.create({ baseURL: "https://acme.collibra.com/rest/2.0" });
api.get("/assets", { params });                       // a verb method of the instance
api({ url: "/roles", method: "get" });                // the instance called with a config
const ofetch = $fetch.create({ baseURL: ROOT });
ofetch("/workflowTasks", { query: { limit: 20 } });   // or with a path and options
const { get, post: send } = api;                      // its verb methods taken out of it
get("/assets");                                       // GET, as `api.get("/assets")`
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_http import Http
from atlas_core.recognize.calls.site import HTTP_VERBS
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_requests import JsRequests

# `const { get, post: send } = ...` in a document's bytes: the names a pattern takes out.
_TAKEN = re.compile(rb"(?:const|let|var)\s*\{([^{}=]{1,300})\}\s*=")
_TAKEN_NAME = re.compile(rb"^\s*([A-Za-z_$][\w$]*)\s*(?::\s*([A-Za-z_$][\w$]*))?\s*$")


def instance_base(reader: JsRequests, receiver: Node) -> str | None:
    """``const api = axios.create({baseURL})`` (or ``this.client = axios.create(...)``): the
    base of ``api.get(path)`` ("" where the options give none), else None."""
    # `axios.create({baseURL}).get(path)`, or a name or `this.client` holding an instance
    value = receiver if receiver.type == "call_expression" else reader.held_value(receiver)
    if value is None or value.type != "call_expression":
        return None
    if not reader._callee_text(value).endswith(".create"):
        return None
    args = reader._arguments(value)
    return reader._option(args[0], "baseURL") if args else ""


def instance_call(reader: JsRequests, call: Node, args: list[Node], base: str) -> Http | None:
    """An instance with the base URL `base` called as a function: ``api(config)`` or
    ``api(url, options)``."""
    if args[0].type == "object":
        http = reader._config_call(args, "")
        if http is not None:
            http.base = http.base or base
        return http
    options = args[1] if len(args) > 1 else None
    return reader._with_method(Http("GET", args[0], "options", base=base, call=call), options)


def destructured_verb(reader: JsRequests, function: Node) -> tuple[str, Node] | None:
    """``const { get, post: send } = api``: the verb method a called name was taken out of, and
    the object it was taken from; None where the name is declared any other way."""
    name = reader.text(function)
    if reader.memo is None:
        taken = _taken_verbs(reader.data)
    else:
        taken = reader.memo.remember(("js-taken-verbs", 0), lambda: _taken_verbs(reader.data))
    if name not in taken:
        return None  # most calls: a name no pattern takes out of an object
    for found in reader.named_nodes(name, 0, function.start_byte, _is_pattern_name, reverse=True):
        pattern, key = found.parent, name
        if pattern is not None and pattern.type == "pair_pattern":
            key = reader._key_name(child(pattern, "key"))
            pattern = pattern.parent
        declarator = pattern.parent if pattern is not None else None
        if pattern is None or pattern.type != "object_pattern" or declarator is None:
            continue
        if not reader._within(function, reader.scope_of(declarator)):
            continue
        if declarator.type != "variable_declarator" or not is_field(pattern, "name"):
            return None  # a parameter's pattern: which object it is, the caller says
        value = child(declarator, "value")
        if key not in HTTP_VERBS or value is None:
            return None
        return key, value
    return None


def _taken_verbs(data: bytes) -> frozenset[str]:
    """The names the document's destructuring declarations take out of an object's verb key,
    found from its text once per scan."""
    names = set()
    for found in _TAKEN.finditer(data):
        for item in found.group(1).split(b","):
            m = _TAKEN_NAME.match(item)
            if m is not None and m.group(1).decode() in HTTP_VERBS:
                names.add((m.group(2) or m.group(1)).decode())
    return frozenset(names)


def _is_pattern_name(node: Node) -> bool:
    parent = node.parent
    if node.type == "shorthand_property_identifier_pattern":
        return True
    return (
        node.type == "identifier"
        and parent is not None
        and parent.type == "pair_pattern"
        and is_field(node, "value")
    )
