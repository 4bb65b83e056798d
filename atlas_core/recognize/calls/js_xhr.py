"""``XMLHttpRequest`` requests: ``xhr.open(method, url)``, and the body ``xhr.send(body)`` sends
with the nearest ``open`` before it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_http import Http
from atlas_core.syntax import ancestors
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_requests import JsRequests

_XHR = frozenset({"XMLHttpRequest", "window.XMLHttpRequest"})


def is_xhr_open(reader: JsRequests, function: Node, args: list[Node]) -> bool:
    """Whether a call of `function` with `args` is ``xhr.open(method, url)``."""
    return (
        function.type == "member_expression"
        and len(args) >= 2
        and reader.text(child(function, "property")) == "open"
        and is_xhr(reader, child(function, "object"))
    )


def is_xhr(reader: JsRequests, receiver: Node | None) -> bool:
    """Whether `receiver` (a name or ``this.field``) holds a ``new XMLHttpRequest()``."""
    value = reader.held_value(receiver)
    return (
        value is not None and value.type == "new_expression" and reader._callee_text(value) in _XHR
    )


def xhr_send(reader: JsRequests, call: Node) -> Http | None:
    """The request ``xhr.send(body)`` sends: the nearest ``xhr.open(...)`` before it, in its
    function (in its class for ``this.xhr``)."""
    function = reader.callee(call)
    if function is None or function.type != "member_expression":
        return None
    receiver = child(function, "object")
    if reader.text(child(function, "property")) != "send" or not is_xhr(reader, receiver):
        return None
    name = reader.text(receiver)
    kinds = ("class_body",) if name.startswith("this.") else ()
    scope = next((a for a in ancestors(call) if a.type in kinds), None) or reader.scope_of(call)
    start = scope.start_byte if scope is not None else 0
    for prop in reader.named_nodes("open", start, call.start_byte, _is_property, reverse=True):
        member = prop.parent
        opened = member.parent if member is not None else None
        if member is None or opened is None or reader.text(child(member, "object")) != name:
            continue
        http = reader.http(opened)
        if http is not None and http.style == "xhr":
            return http
    return None


def _is_property(node: Node) -> bool:
    return node.type == "property_identifier"
