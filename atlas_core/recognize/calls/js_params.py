"""Query and body keys written by name on a builder object rather than in an object literal or a
URL string: ``url.searchParams.append("name", q)`` on a ``new URL(...)``, ``params.set("name", q)``
on a ``new URLSearchParams()``, Angular's ``new HttpParams().set("name", q)`` (immutable: a chain,
or ``params = params.set(...)``), ``url.search = params``, and superagent's chained
``.query(q)``/``.send(body)``.

A key counts only where the builder object is seen made (``new URL``, ``new URLSearchParams``,
``new HttpParams``) and reaches a request; the same ``.set("name", v)`` on anything else (a Map,
a form, a cache) is no query key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.site import BODY, QUERY
from atlas_core.recognize.calls.walk import KeyContext
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.javascript import JavaScriptCalls
    from atlas_core.recognize.calls.site import CallSite
    from atlas_core.recognize.calls.walk import HttpCall

_SETTERS = frozenset({"append", "set"})
# Builders whose keys end up in a query string; URLSearchParams' are put into a URL by text
# (`"?" + params`), HttpParams' are passed as an options object's `params`.
_ENCODED = "URLSearchParams"
_BUILDERS = frozenset({_ENCODED, "HttpParams"})
_MAX_CHAIN = 64  # `.set(...)` links followed down one chain
# superagent's chain: `superagent.post(url).set(...).query(q).send(body)`.
_CHAIN_ROLES = {"send": BODY, "query": QUERY}
_CHAIN_LINKS = frozenset({"set", "type", "accept", "auth", "timeout", "retry", "withCredentials"})


def builder_key_site(reader: JavaScriptCalls, node: Node) -> CallSite | None:
    """The cursor on the key string of a builder's ``.append(key, value)``/``.set(key, value)``."""
    arguments = node.parent
    call = arguments.parent if arguments is not None else None
    if arguments is None or call is None or call.type != "call_expression":
        return None
    first = next((a for a in arguments.named_children if a.type != "comment"), None)
    if first is None or first.id != node.id:
        return None
    context = setter_context(reader, call)
    if context is None:
        return None
    name = reader._key_name(node)
    return reader.context_site(context, name, reader.content_span(node), (name,))


def setter_context(reader: JavaScriptCalls, call: Node) -> KeyContext | None:
    """The request whose query a setter call (``x.set(k, v)``) adds a key to, else None."""
    function = reader.callee(call)
    if not _is_setter(reader, function):
        return None
    assert function is not None
    receiver = child(function, "object")
    if receiver is None:
        return None
    if receiver.type == "member_expression" and reader.text(child(receiver, "property")) == (
        "searchParams"
    ):
        http = url_object_call(reader, child(receiver, "object"))
        return KeyContext(QUERY, http) if http is not None else None
    top = call
    for _ in range(_MAX_CHAIN):  # `new HttpParams().set(a, x).set(b, y)`: the chain's last call
        member = top.parent
        outer = member.parent if member is not None else None
        if member is None or outer is None or not is_field(top, "object"):
            break
        if member.type != "member_expression" or not _is_setter(reader, reader.callee(outer)):
            break
        top = outer
    bottom = _chain_bottom(reader, receiver)
    if bottom is None:
        return None
    if bottom.type == "identifier":
        value = reader._definition(bottom)
        made = _chain_bottom(reader, value) if value is not None else None
        builder = _builder(reader, made)
        if value is None or builder is None:
            return None
        if builder != _ENCODED and not _reassigned(reader, top, reader.text(bottom)):
            return None  # `params.set(k, v);` on an HttpParams changes nothing
        return reader._container(value, [], builder == _ENCODED, 0)
    builder = _builder(reader, bottom)
    if builder is None:
        return None
    return reader._container(top, [], builder == _ENCODED, 0)


def url_object_call(reader: JavaScriptCalls, owner: Node | None) -> HttpCall | None:
    """The request a ``new URL(...)`` held by `owner` (a name or ``this.url``) is sent with."""
    value = reader.held_value(owner)
    if value is None or value.type != "new_expression" or reader._callee_text(value) != "URL":
        return None
    return reader.url_call(reader.url_root(value), 0)


def search_assignment(reader: JavaScriptCalls, assignment: Node) -> HttpCall | None:
    """``url.search = params`` (or ``"?" + params``): the request of the URL object `url`."""
    left = child(assignment, "left")
    if left is None or left.type != "member_expression":
        return None
    if reader.text(child(left, "property")) != "search":
        return None
    return url_object_call(reader, child(left, "object"))


def _is_setter(reader: JavaScriptCalls, function: Node | None) -> bool:
    return (
        function is not None
        and function.type == "member_expression"
        and reader.text(child(function, "property")) in _SETTERS
    )


def _chain_bottom(reader: JavaScriptCalls, node: Node) -> Node | None:
    """What a chain of setter calls starts from: ``new HttpParams()`` or a name."""
    for _ in range(_MAX_CHAIN):
        if node.type in ("new_expression", "identifier"):
            return node
        if node.type != "call_expression":
            return None
        function = reader.callee(node)
        if not _is_setter(reader, function):
            return None
        assert function is not None
        inner = child(function, "object")
        if inner is None:
            return None
        node = inner
    return None


def _builder(reader: JavaScriptCalls, node: Node | None) -> str | None:
    if node is None or node.type != "new_expression":
        return None
    name = reader._callee_text(node)
    return name if name in _BUILDERS else None


def _reassigned(reader: JavaScriptCalls, top: Node, name: str) -> bool:
    """``params = params.set(k, v)``: the chain's result is put back into the name."""
    parent = top.parent
    return (
        parent is not None
        and parent.type == "assignment_expression"
        and is_field(top, "right")
        and reader.text(child(parent, "left")) == name
    )


def chain_context(reader: JavaScriptCalls, call: Node, path: list[str]) -> KeyContext | None:
    """``superagent.post(url).send(body)``: the keys of `.send`'s and `.query`'s argument."""
    function = reader.callee(call)
    if function is None or function.type != "member_expression":
        return None
    role = _CHAIN_ROLES.get(reader.text(child(function, "property")))
    link = child(function, "object")
    for _ in range(_MAX_CHAIN):
        if role is None or link is None or link.type != "call_expression":
            return None
        http = reader.http(link)
        if http is not None:
            return KeyContext(role, http, nested=len(path))
        inner = reader.callee(link)
        if inner is None or inner.type != "member_expression":
            return None
        name = reader.text(child(inner, "property"))
        if name not in _CHAIN_LINKS and name not in _CHAIN_ROLES:
            return None
        link = child(inner, "object")
    return None
