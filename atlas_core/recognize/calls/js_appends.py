"""A URL grown with ``+=`` from a base the text does not show::

    let url = process.env.DG_HOST;
    url += "/rest/2.0/assetTypes/";   // the call's endpoint: the first literal of its URL
    url += typeId;
    axios.get(url);

Where the declaration writes a literal (``let url = `${host}/rest/2.0```), the endpoint is there
and an append is only part of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_values import unwrapped
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_values import JsValues

_MAX_LOOKED = 256  # nodes of a declared value looked through for a string
_APPEND = "augmented_assignment_expression"
_CHANGES = frozenset({_APPEND, "assignment_expression"})


def first_written(reader: JsValues, change: Node) -> bool:
    """Whether the append `change` (``url += "/rest/2.0/..."``) writes the first literal of its
    name's URL: the name is declared with none and given none before it."""
    name = child(change, "left")
    if name is None or name.type != "identifier":
        return False
    value = reader._definition(name)
    if value is None or _has_literal(value):
        return False
    for ident in reader.named_nodes(
        reader.text(name), value.end_byte, change.start_byte, _is_identifier
    ):
        earlier = ident.parent
        if earlier is not None and earlier.type in _CHANGES and is_field(ident, "left"):
            right = child(earlier, "right")
            if right is None or _has_literal(right) or earlier.type != _APPEND:
                return False
    return True


def _has_literal(node: Node) -> bool:
    """Whether an expression writes a string; True too past `_MAX_LOOKED` nodes (not looked)."""
    stack = [node]
    for _ in range(_MAX_LOOKED):
        if not stack:
            return False
        found = stack.pop()
        if found.type in ("string", "template_string"):
            return True
        stack.extend(found.named_children)
    return True


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"


def later_key(reader: JsValues, name: Node, value: Node, key: str) -> Node | None:
    """The value key `key` of the options object a name holds is last given after the object is
    written (``const config: AxiosRequestConfig = {...}; config.url = "/rest/2.0/..."``), where
    the name is read at `name` and declared with `value`; None where no such assignment runs,
    or one runs under a condition (which value is sent is not written)."""
    declarator = value.parent
    block = declarator.parent.parent if declarator and declarator.parent else None
    if declarator is None or declarator.type != "variable_declarator" or block is None:
        return None
    found = None
    for ident in reader.named_nodes(
        reader.text(name), value.end_byte, name.start_byte, _is_identifier
    ):
        member = ident.parent
        if member is None or member.type != "member_expression" or not is_field(ident, "object"):
            continue
        assignment = member.parent
        if reader.text(child(member, "property")) != key or assignment is None:
            continue
        if assignment.type != "assignment_expression" or not is_field(member, "left"):
            continue
        statement = assignment.parent
        if statement is None or statement.parent is None or statement.parent.id != block.id:
            return None  # set under a condition, or in another function
        found = child(assignment, "right")
    return found


def assigned_options(reader: JsValues, left: Node | None, keys: frozenset[str]) -> Node | None:
    """The options object written as a name's value (``const config = {...}``) when `left` is
    ``config.url`` (a key of `keys`) given a value after it; else None."""
    if left is None or left.type != "member_expression":
        return None
    receiver = child(left, "object")
    if receiver is None or receiver.type != "identifier":
        return None
    if reader.text(child(left, "property")) not in keys:
        return None
    value = reader._definition(receiver)
    held = unwrapped(value)
    return value if held is not None and held.type == "object" else None
