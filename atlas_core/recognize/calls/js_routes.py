"""Paths kept in an object of routes, read where they are sent::

    const ROUTES = { communities: "/rest/2.0/communities", api: { tags: "/rest/2.0/tags" } };
    fetch(base + ROUTES.communities);
    fetch(`${base}${ROUTES.api.tags}?limit=5`);

The value of a key is followed to the reads of ``name.key`` (``name.a.b`` for a key of an object
nested in the object a name holds), the way a name's value is followed to its reads.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_values import TYPINGS
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_values import JsValues

# A value of an object key that may be a URL or a path: a string or template starting with a
# slash, a scheme, or a substitution (``${BASE}/assets``).
_ROUTE_VALUE = re.compile(r"""^[`'"](?:/|\$\{|[a-z][\w+.-]*://)""")


def route_reads(reader: JsValues, pair: Node, value: Node) -> list[Node] | None:
    """Reads of ``paths.assets`` (``paths.api.tags``) where `pair` is that key, with the URL
    `value`, of an object (nested in objects) a name holds; None where the key holds no URL or
    no name holds the object."""
    if not _ROUTE_VALUE.match(reader.text(value)):
        return None  # `"Content-Type": "application/json"`
    keys: list[str] = []
    node: Node | None = pair
    while node is not None and node.type == "pair" and len(keys) <= MAX_DEPTH:
        keys.insert(0, reader._key_name(child(node, "key")))
        obj = node.parent
        node = obj.parent if obj is not None else None
        while node is not None and node.type in TYPINGS:
            node = node.parent  # `const ROUTES = {...} as const`
    if node is None or node.type != "variable_declarator" or not all(keys):
        return None
    name = child(node, "name")
    if name is None or name.type != "identifier":
        return None
    declaration, spelled = node, reader.text(name)
    if reader.memo is None:
        found = reader.declared_uses(spelled, declaration)
    else:
        found = reader.memo.remember(
            ("js-declared-uses", declaration.id),
            lambda: reader.declared_uses(spelled, declaration),
        )
    uses = [_member_read(reader, use, keys) for use in found]
    return [use for use in uses if use is not None]


def _member_read(reader: JsValues, use: Node, keys: list[str]) -> Node | None:
    """The ``name.a.b`` that a read `use` of a name starts, when it reads the keys `keys`."""
    member = use
    for key in keys:
        outer = member.parent
        if outer is None or outer.type != "member_expression" or not is_field(member, "object"):
            return None
        if reader.text(child(outer, "property")) != key:
            return None
        member = outer
    return member


def enum_reads(reader: JsValues, member: Node, value: Node) -> list[Node] | None:
    """Reads of ``Path.Assets`` where `member` is ``Assets = "/assets"`` of a TypeScript
    ``enum Path``, with a URL `value`; None where the member holds no URL."""
    body = member.parent
    declaration = body.parent if body is not None else None
    name = child(declaration, "name") if declaration is not None else None
    if name is None or not _ROUTE_VALUE.match(reader.text(value)):
        return None
    enum, key = reader.text(name), reader.text(child(member, "name"))
    reads = []
    for found in reader.named_nodes(key, 0, len(reader.data), _is_property):
        read = found.parent
        receiver = child(read, "object") if read is not None else None
        if receiver is not None and reader.text(receiver) == enum and is_field(found, "property"):
            reads.append(read)
    return reads


def _is_property(node: Node) -> bool:
    return node.type == "property_identifier"
