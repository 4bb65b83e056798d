"""Request keys Spring code writes as plain strings: a query key of a URL built with
``UriComponentsBuilder...queryParam("name", n)``, and a body key of a map sent as a request's
entity (``Map.of("name", n)``, or a ``HashMap`` filled with ``body.put("name", n)``, passed to
``new HttpEntity<>(body)`` and ``rest.exchange(url, HttpMethod.POST, entity, ..)`` or to
``rest.postForObject(url, body, ..)``, or to WebClient's ``bodyValue(body)``).

A key is answered only where the map or builder is seen reaching the call: through its own
expression or a local name declared in the same method, never through a field or a method of
another class. A map some other code may change (it is passed elsewhere, or keys are put with a
name that is no literal) still answers its literal keys, but not as its complete key set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.jvm_chain import QUERY_LINKS, Chain, chain_top
from atlas_core.recognize.calls.jvm_helpers import Http
from atlas_core.recognize.calls.site import BODY, QUERY, CallSite
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.jvm import JavaCalls

_MAP_FACTORIES = frozenset({"Map", "ImmutableMap", "java.util.Map"})
_MAP_CLASSES = frozenset({"HashMap", "LinkedHashMap", "TreeMap", "ConcurrentHashMap"})
_ENTITIES = frozenset({"HttpEntity", "RequestEntity"})
# RestTemplate methods and the index of their request (entity or body) argument.
_BODY_INDEX = {
    "exchange": 2,
    "postForObject": 1,
    "postForEntity": 1,
    "postForLocation": 1,
    "put": 1,
    "patchForObject": 1,
}
# WebClient's request-chain links that take the body (``post().uri(u).bodyValue(body)``).
_CHAIN_BODIES = frozenset({"bodyValue", "syncBody"})
_MAX_FLOW = 8  # steps from a map to its call (`body` -> `new HttpEntity<>(body)` -> `entity` ..)
_MAX_USES = 32


def spring_key_site(reader: JavaCalls, string: Node) -> CallSite | None:
    """The query or body key the string literal `string` names, or None."""
    arguments = string.parent
    call = arguments.parent if arguments is not None else None
    if arguments is None or call is None or call.type != "method_invocation":
        return None
    args = arguments.named_children
    index = next(i for i, a in enumerate(args) if a.id == string.id)
    name = reader.text(child(call, "name"))
    receiver = child(call, "object")
    if name in QUERY_LINKS and index == 0 and receiver is not None:
        return _query_site(reader, call, string)
    if name == "of" and index % 2 == 0 and reader.text(receiver) in _MAP_FACTORIES:
        keys = tuple(reader.literal(a) if reader.is_string(a) else "" for a in args[::2])
        return _body_site(reader, call, string, keys, complete=all(keys))
    if name == "put" and index == 0 and receiver is not None and receiver.type == "identifier":
        declarator = _map_declaration(reader, receiver)
        if declarator is None:
            return None
        keys, complete = _put_keys(reader, declarator)
        return _body_site(reader, declarator, string, keys, complete=complete)
    return None


def _query_site(reader: JavaCalls, call: Node, string: Node) -> CallSite | None:
    top = chain_top(reader, call)
    http = reader.url_call(reader.url_root(top), 0)
    if not isinstance(http, Http):
        return None
    keys = []
    link: Node | None = top
    while link is not None and link.type == "method_invocation":
        args = child(link, "arguments")
        if reader.text(child(link, "name")) in QUERY_LINKS and args and args.named_child_count:
            keys.insert(0, reader.literal(args.named_children[0]))
        link = child(link, "object")
    return reader.key_site(
        QUERY,
        reader.literal(string),
        reader.content_span(string),
        tuple(keys),
        http=(http.method, reader.call_url(http)),
        operation="",
    )


def _body_site(
    reader: JavaCalls, source: Node, string: Node, keys: tuple[str, ...], *, complete: bool
) -> CallSite | None:
    http = _sent(reader, source)
    url = reader.call_url(http) if http is not None else ""
    if http is None or not http.method or "/" not in url:
        return None  # `outer.put("k", body)` reads as RestTemplate's put but sends nothing
    return reader.key_site(
        BODY,
        reader.literal(string),
        reader.content_span(string),
        keys,
        http=(http.method, url),
        operation="",
        complete=complete,
    )


def _sent(reader: JavaCalls, source: Node) -> Http | None:
    """The RestTemplate call a map expression (or a map variable's declarator) is sent by."""
    pending = [source]
    for _ in range(_MAX_FLOW):
        if not pending:
            return None
        node, pending = pending[0], pending[1:]
        if node.type == "variable_declarator":
            name = child(node, "name")
            if name is None:
                return None
            uses = _uses(reader, node)
            pending += [u for u in uses if not is_field(u, "object")]  # not `body.put(..)`
            continue
        parent = node.parent
        call = parent.parent if parent is not None else None
        if parent is None or call is None:
            continue
        if parent.type == "variable_declarator":
            pending.append(parent)
        elif parent.type == "argument_list" and call.type == "object_creation_expression":
            kind = reader.text(child(call, "type")).split("<", 1)[0]
            if kind in _ENTITIES and parent.named_children[0].id == node.id:
                pending.append(call)  # `new HttpEntity<>(body, headers)`
        elif parent.type == "argument_list" and call.type == "method_invocation":
            at = next(i for i, a in enumerate(parent.named_children) if a.id == node.id)
            name = reader.text(child(call, "name"))
            if _BODY_INDEX.get(name) == at:
                http = reader.http(call)
                if isinstance(http, Http):
                    return http
            elif name in _CHAIN_BODIES and at == 0:
                return Chain(reader, call).http()
    return None


def _map_declaration(reader: JavaCalls, receiver: Node) -> Node | None:
    """The local declarator of a map created empty (``Map<..> body = new HashMap<>()``)."""
    scope = reader.scope_of(receiver)
    if scope is None:
        return None
    name = reader.text(receiver)
    for ident in reader.named_nodes(name, scope.start_byte, receiver.start_byte, _is_ident):
        declarator = ident.parent
        if declarator is None or declarator.type != "variable_declarator":
            continue
        value = child(declarator, "value")
        if not is_field(ident, "name") or value is None:
            continue
        if value.type != "object_creation_expression":
            return None
        kind = reader.text(child(value, "type")).split("<", 1)[0]
        args = child(value, "arguments")
        empty = args is None or args.named_child_count == 0
        return declarator if kind in _MAP_CLASSES and empty else None
    return None


def _put_keys(reader: JavaCalls, declarator: Node) -> tuple[tuple[str, ...], bool]:
    """The literal keys put into a map variable, and whether they are all of its keys (every
    other use of it sends it: an entity, a RestTemplate call, a name)."""
    name = child(declarator, "name")
    keys: list[str] = []
    complete = True
    uses = _uses(reader, declarator) if name is not None else []
    for use in uses[:_MAX_USES]:
        call = use.parent
        if call is not None and call.type == "method_invocation" and is_field(use, "object"):
            args = child(call, "arguments")
            first = args.named_children[0] if args and args.named_child_count else None
            if reader.text(child(call, "name")) == "put" and first and reader.is_string(first):
                keys.append(reader.literal(first))
                continue
            complete = False  # `putAll`, `remove`, a key not written literally
        elif call is None or call.type not in ("argument_list", "variable_declarator"):
            complete = False
        elif call.type == "argument_list" and call.parent is not None:
            outer = call.parent
            kind = reader.text(child(outer, "type")).split("<", 1)[0]
            sends = kind in _ENTITIES or reader.text(child(outer, "name")) in (
                _BODY_INDEX.keys() | _CHAIN_BODIES
            )
            complete = complete and sends
    return tuple(keys), complete and len(uses) <= _MAX_USES


def _uses(reader: JavaCalls, declarator: Node) -> list[Node]:
    """Reads of the name `declarator` declares, in its method (`CallWalk.declared_uses` with a
    test the scan's `NameMemo` keeps across reads: a bound method is a new key each read)."""
    name, scope = child(declarator, "name"), reader.scope_of(declarator)
    if name is None or scope is None:
        return []
    found = reader.named_nodes(
        reader.text(name), declarator.end_byte, scope.end_byte, _is_ident, limit=_MAX_USES + 1
    )
    return [
        use
        for use in found
        if not (use.parent and use.parent.type == "variable_declarator" and is_field(use, "name"))
    ]


def _is_ident(node: Node) -> bool:
    return node.type == "identifier"
