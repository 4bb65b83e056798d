"""Calls through the code's own functions: a JavaScript or TypeScript function, arrow function or
class method whose body sends a request built from its parameters (a wrapper), summarised once
per tree, so that each of its call sites reads as the request it makes.

A summary says which parameter reaches the inner request's URL and, for each other parameter,
what its keys become there (body, query). The inner request may itself go through a wrapper; the
chain is followed `MAX_WRAPPER_DEPTH` deep and a function already being summarised (recursion,
mutual recursion) is no wrapper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Any

from atlas_core.recognize.calls.js_destructured import Patterns, pattern_params
from atlas_core.recognize.calls.js_values import CLASS_FIELDS, FUNCTIONS, unwrapped
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_requests import JsRequests
    from atlas_core.recognize.calls.js_values import JsValues
    from atlas_core.recognize.calls.walk import KeyContext

MAX_WRAPPER_DEPTH = 4
# Reads of one parameter looked at in a wrapper's body; definitions of one name compared.
_MAX_USES = 16
_MAX_DEFINITIONS = 8
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})


@dataclass(slots=True)
class Summary:
    """What a wrapper does with its parameters."""

    params: tuple[str, ...]
    inner: Any  # the request its body makes (a `javascript._Http`)
    url_index: int | None  # the parameter its URL is built from
    roles: dict[int, KeyContext] = field(default_factory=dict)  # parameter -> what its keys are
    patterns: Patterns = field(default_factory=dict)  # destructured options parameters


def summary_of(reader: JsRequests, call: Node) -> Summary | None:
    """The summary of the wrapper `call` calls, if the document defines one."""
    definition = definition_of(reader, call)
    return summary_of_definition(reader, definition) if definition is not None else None


def summary_of_definition(reader: JsRequests, definition: Node) -> Summary | None:
    """The summary of a function the document defines, if it is a wrapper."""
    if reader.memo is None:
        return _summarise(reader, definition)
    return reader.memo.remember(
        ("js-wrapper", definition.id), lambda: _summarise(reader, definition), lambda: reader.cuts
    )


def _summarise(reader: JsRequests, definition: Node) -> Summary | None:
    active = reader.summarising
    if definition.id in active or len(active) >= MAX_WRAPPER_DEPTH:
        reader.cuts += 1
        return None  # recursion, or a chain too deep to follow
    active.append(definition.id)
    try:
        return _read_summary(reader, definition)
    finally:
        active.pop()


def _read_summary(reader: JsRequests, definition: Node) -> Summary | None:
    params = parameters(reader, definition)
    patterns = pattern_params(reader, definition)
    body = child(definition, "body")
    if body is None or not (any(params) or patterns):
        return None
    # A destructured options parameter's names, `({ path, method = "GET" })`: one reaching the
    # URL makes the parameter the URL's; their keys are the pattern's, never the request's.
    named = [(i, n) for i, n in enumerate(params) if n]
    named += [(i, local) for i, names in patterns.items() for local, _, _ in names]
    urls: list[tuple[int, Any]] = []
    keys: list[tuple[int, KeyContext]] = []
    for index, name in named:
        uses = reader.named_nodes(name, body.start_byte, body.end_byte, reader.is_use)
        for count, use in enumerate(uses):
            if count >= _MAX_USES:
                break
            http: Any = reader.url_call(reader.use_root(use), 0)
            if http is not None and http.call is not None:
                urls.append((index, http))
                continue
            context = reader.use_context(use) if index not in patterns else None
            if context is not None and context.http is not None:
                keys.append((index, context))
    reached = [h for _, h in urls] or [c.http for _, c in keys]
    if not reached:
        return None
    inner = reached[0]
    url_index = next((i for i, h in urls if h.call.id == inner.call.id), None)
    roles: dict[int, KeyContext] = {}
    for index, context in keys:
        if context.http.call.id == inner.call.id:
            roles.setdefault(index, context)
    return Summary(params, inner, url_index, roles, patterns)


def parameters(reader: JsValues, definition: Node) -> tuple[str, ...]:
    """The names of a function's parameters ("" for a destructured one)."""
    single = child(definition, "parameter")  # `p => ...`
    if single is not None:
        return (reader.text(single),)
    listed = child(definition, "parameters")
    if listed is None:
        return ()
    names = []
    for param in listed.named_children:
        if param.type in ("required_parameter", "optional_parameter"):
            param = child(param, "pattern") or param
        if param.type == "assignment_pattern":
            param = child(param, "left") or param
        names.append(reader.text(param) if param.type == "identifier" else "")
    return tuple(names)


def definition_of(reader: JsValues, call: Node) -> Node | None:
    """The function `call` calls, when this document defines it: a function declaration or a
    function assigned to a name for `name(...)`; a method or function-valued field for
    `receiver.name(...)`, in the caller's own class first when the receiver is `this`."""
    function = reader.callee(call)
    if function is None:
        return None
    if function.type == "identifier":
        # The nearest definition before the call (an inner `const get = ...` shadows an outer
        # one), else a function declared later (hoisted). Only definitions count toward the
        # cap: a name used a hundred times before its definition is still found.
        name = reader.text(function)
        before = reader.named_nodes(
            name, 0, call.start_byte, _is_function_name, reverse=True, limit=_MAX_DEFINITIONS
        )
        after = reader.named_nodes(
            name, call.start_byte, len(reader.data), _is_function_name, limit=_MAX_DEFINITIONS
        )
        return next((_named_function(ident) for ident in chain(before, after)), None)
    if function.type != "member_expression":
        return None
    prop = child(function, "property")
    receiver = child(function, "object")
    if prop is None or receiver is None:
        return None
    held = _held(reader, receiver)
    if held is not None and held.type not in ("object", "new_expression"):
        return None  # `http.get(...)` of `const http = axios.create(...)`: no method of ours
    candidates = []
    found = reader.named_nodes(reader.text(prop), 0, len(reader.data), _is_property)
    for count, name in enumerate(found):
        if count >= _MAX_DEFINITIONS:
            break
        method = _method(name)
        if method is not None and (held is None or _belongs(reader, method, held)):
            candidates.append(method)
    if receiver.type == "this":
        own = next((a for a in ancestors(call) if a.type == "class_body"), None)
        for method in candidates:
            if own is not None and own.start_byte <= method.start_byte < own.end_byte:
                return method
    return candidates[0] if candidates else None


def _held(reader: JsValues, receiver: Node) -> Node | None:
    """What a method call's receiver holds where the document shows it: the value of a name, or
    of ``this.field``."""
    if receiver.type == "identifier":
        return unwrapped(reader._definition(receiver))
    this = child(receiver, "object") if receiver.type == "member_expression" else None
    return reader._field_value(receiver) if this is not None and this.type == "this" else None


def _belongs(reader: JsValues, method: Node, held: Node) -> bool:
    """Whether `method` is one of the object literal `held`, or of the class `held` makes
    (``new Client(...)``)."""
    if held.type == "object":
        return held.start_byte <= method.start_byte < held.end_byte
    made = reader._callee_text(held)
    return any(
        a.type in ("class_declaration", "class") and reader.text(child(a, "name")) == made
        for a in ancestors(method)
    )


def _is_function_name(node: Node) -> bool:
    return node.type == "identifier" and _named_function(node) is not None


def _named_function(ident: Node) -> Node | None:
    parent = ident.parent
    if parent is None or not is_field(ident, "name"):
        return None
    if parent.type in ("function_declaration", "generator_function_declaration"):
        return parent
    value = child(parent, "value") if parent.type == "variable_declarator" else None
    return value if value is not None and value.type in _FUNCTION_VALUES else None


def _method(name: Node) -> Node | None:
    parent = name.parent
    if parent is None:
        return None
    if parent.type == "method_definition" and is_field(name, "name"):
        return parent
    if parent.type in CLASS_FIELDS or (parent.type == "pair" and is_field(name, "key")):
        value = child(parent, "value")
        return value if value is not None and value.type in _FUNCTION_VALUES else None
    return None


def in_forwarding_body(reader: JsRequests, call: Node, url: str) -> bool:
    """Whether `call`, a request whose URL reads `url`, sits in a function that only forwards a
    path its callers pass: no endpoint of its own (the call sites are the calls)."""
    scope = next((a for a in ancestors(call) if a.type in FUNCTIONS), None)
    if scope is None:
        return False
    return is_forwarded(url)


def is_forwarded(url: str) -> bool:
    """A URL with no path of its own past the host and the API prefix (``{}/rest/2.0{}``)."""
    rest = url.split("://", 1)[-1]
    if "://" in url:
        rest = rest[rest.find("/") :] if "/" in rest else ""
    rest = rest.split("?", 1)[0]
    for prefix in ("/rest/2.0", "/rest/1.0", "/graphql/knowledgeGraph/v1"):
        if rest.startswith(prefix):
            rest = rest[len(prefix) :]
            break
    return rest.replace("{}", "").strip("/") == ""


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"


def _is_property(node: Node) -> bool:
    return node.type == "property_identifier"
