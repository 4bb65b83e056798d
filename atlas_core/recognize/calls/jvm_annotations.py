"""Retrofit's client interfaces: a method annotated with its request (``@GET("rest/2.0/assets")
Call<Page> find(@Query("name") String name)``) makes that request, its ``@Query`` parameters the
query keys. JAX-RS resources (servers) write ``@GET`` with no argument and are not read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.jvm_helpers import Http
from atlas_core.recognize.calls.site import HTTP_VERBS, QUERY, CallSite
from atlas_core.syntax import ancestors
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.jvm import JavaCalls


def retrofit_http(reader: JavaCalls, root: Node, arguments: Node) -> Http | None:
    """The request an annotation makes whose first argument is the URL expression `root`."""
    annotation = arguments.parent
    first = arguments.named_children[0] if arguments.named_child_count else None
    if annotation is None or first is None or first.id != root.id:
        return None
    verb = _verb(reader, annotation)
    return Http(verb, root) if verb else None


def retrofit_query(reader: JavaCalls, string: Node) -> CallSite | None:
    """The query key a ``@Query("name")`` parameter names, of its method's request."""
    annotation = string.parent.parent if string.parent is not None else None
    if annotation is None or annotation.type != "annotation":
        return None
    if reader.text(child(annotation, "name")) != "Query":
        return None
    method = next((a for a in ancestors(annotation) if a.type == "method_declaration"), None)
    if method is None:
        return None
    for made in _annotations(method):
        verb, args = _verb(reader, made), child(made, "arguments")
        if not verb or args is None or not reader.is_string(args.named_children[0]):
            continue
        return reader.key_site(
            QUERY,
            reader.literal(string),
            reader.content_span(string),
            _query_keys(reader, method),
            http=(verb, reader.literal(args.named_children[0])),
            operation="",
        )
    return None


def _verb(reader: JavaCalls, annotation: Node) -> str:
    """``GET`` for ``@GET("path")``: an upper-case HTTP verb with an argument, else ""."""
    verb = reader.text(child(annotation, "name"))
    args = child(annotation, "arguments")
    has_url = args is not None and args.named_child_count > 0
    return verb if has_url and verb.isupper() and verb.lower() in HTTP_VERBS else ""


def _annotations(declaration: Node) -> list[Node]:
    modifiers = next((c for c in declaration.children if c.type == "modifiers"), None)
    if modifiers is None:
        return []
    return [a for a in modifiers.named_children if a.type == "annotation"]


def _query_keys(reader: JavaCalls, method: Node) -> tuple[str, ...]:
    """Every ``@Query("name")`` key of a method's parameters, in order."""
    params = child(method, "parameters")
    keys = []
    for param in params.named_children if params is not None else []:
        for made in _annotations(param):
            args = child(made, "arguments")
            if reader.text(child(made, "name")) != "Query" or args is None:
                continue
            first = args.named_children[0] if args.named_child_count else None
            if first is not None and reader.is_string(first):
                keys.append(reader.literal(first))
    return tuple(keys)
