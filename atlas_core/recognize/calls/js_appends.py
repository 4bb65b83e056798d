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
