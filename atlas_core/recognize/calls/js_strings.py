"""URLs made by string methods the code calls on its parts::

    TEMPLATE.replace("{userId}", uid)                 // a placeholder filled
    [BASE, "rest/2.0/assets", id].join("/")           // parts joined

`replaced` and `joined` read the value such a call makes; `fills`, `join_step` and `to_string`
let a URL part written in one reach the request the call's value is sent with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.site import UNKNOWN
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_values import Bind, JsValues

REPLACE = frozenset({"replace", "replaceAll"})


def fills(reader: JsValues, member: Node) -> bool:
    """`member` is the callee of ``template.replace("{placeholder}", value)`` (a string pattern,
    not a regular expression)."""
    return _string_call(reader, member, REPLACE, 2)


def to_string(reader: JsValues, node: Node, member: Node) -> bool:
    """`node.toString()`, `member` being `node.toString`."""
    call = member.parent
    return (
        is_field(node, "object")
        and reader.text(child(member, "property")) == "toString"
        and call is not None
        and call.type == "call_expression"
    )


def join_step(reader: JsValues, node: Node, parent: Node) -> Node | None:
    """The larger URL expression a part of ``[BASE, "rest/2.0", "assets", id].join("/")`` is
    in: the array for an element, the call for the array; else None."""
    if parent.type == "array" and node.type != "spread_element":
        outer = parent.parent
        if outer is not None and outer.type == "member_expression" and _joins(reader, outer):
            return parent
        return None
    if parent.type == "member_expression" and is_field(node, "object"):
        return parent.parent if node.type == "array" and _joins(reader, parent) else None
    return None


def joined(reader: JsValues, call: Node, array: Node | None, depth: int, bind: Bind | None) -> str:
    """``["rest", "2.0", "assets", id].join("/")``: the parts joined by the separator."""
    args = reader._arguments(call)
    if array is None or array.type != "array" or len(args) != 1 or args[0].type != "string":
        return UNKNOWN
    parts = [
        UNKNOWN if item.type == "spread_element" else reader._value(item, depth + 1, bind)
        for item in array.named_children
        if item.type != "comment"
    ]
    return reader.literal(args[0]).join(parts)


def replaced(
    reader: JsValues, call: Node, template: Node | None, depth: int, bind: Bind | None
) -> str:
    """``"/rest/2.0/assets/:assetId".replace(":assetId", id)``: the template with the placeholder
    written in it filled; a pattern not written in it (a regular expression) leaves a value the
    text does not show."""
    args = reader._arguments(call)
    if len(args) != 2 or args[0].type != "string":
        return UNKNOWN
    value = reader._value(template, depth + 1, bind)
    placeholder = reader.literal(args[0])
    if not placeholder or placeholder not in value:
        return UNKNOWN
    filled = reader._value(args[1], depth + 1, bind)
    count = -1 if reader.text(child(reader.callee(call), "property")) == "replaceAll" else 1
    return value.replace(placeholder, filled, count)


def _joins(reader: JsValues, member: Node) -> bool:
    """`member` is the callee of ``[...].join("/")``."""
    return _string_call(reader, member, frozenset({"join"}), 1)


def _string_call(reader: JsValues, member: Node, names: frozenset[str], arity: int) -> bool:
    call = member.parent
    if call is None or call.type != "call_expression":
        return False
    args = reader._arguments(call)
    return (
        reader.text(child(member, "property")) in names
        and len(args) == arity
        and args[0].type == "string"
    )
