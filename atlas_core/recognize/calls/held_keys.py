"""Whether a request body or params dict built in a variable is in view whole (Python): the keys
its literal writes and those the same scope adds (``payload["name"] = ...``) are all its keys, so
a missing required key can be told. Anything else that could add a key (``payload.update(...)``,
passing it to another function, ``**payload``, a second assignment, a computed key) says no."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_READS = 64  # reads of the name looked at; a name read more often than this is not judged


def held_whole(reader: Any, dictionary: Node) -> bool:
    """`dictionary` is assigned to a name (``body = {...}``, string keys only) whose every other
    read in its scope writes a string key into it or sends it in an HTTP call."""
    assignment = dictionary.parent
    if assignment is None or assignment.type != "assignment" or not is_field(dictionary, "right"):
        return False
    target = child(assignment, "left")
    if target is None or target.type != "identifier":
        return False
    for item in dictionary.named_children:
        if item.type == "comment":
            continue
        key = child(item, "key") if item.type == "pair" else None
        if key is None or key.type != "string":
            return False
    scope = reader.scope_of(assignment)
    start = scope.start_byte if scope is not None else 0
    end = scope.end_byte if scope is not None else reader.root.end_byte
    reads = list(
        reader.named_nodes(reader.text(target), start, end, _is_identifier, limit=MAX_READS + 1)
    )
    if len(reads) > MAX_READS:
        return False
    return all(read.start_byte == target.start_byte or _keeps_keys(reader, read) for read in reads)


def _keeps_keys(reader: Any, read: Node) -> bool:
    parent = read.parent
    if parent is None:
        return False
    if parent.type == "subscript" and is_field(read, "value"):
        key = child(parent, "subscript")
        return key is not None and key.type == "string"  # reads and writes of a named key
    if parent.type == "keyword_argument" and is_field(read, "value"):
        call = parent.parent.parent if parent.parent is not None else None
        return call is not None and reader.http(call) is not None
    if parent.type == "argument_list":
        call = parent.parent
        return call is not None and reader.http(call) is not None
    return False


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"
