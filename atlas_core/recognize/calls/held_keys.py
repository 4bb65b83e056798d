"""Whether a request body or params object built in a variable is in view whole: the keys its
literal writes (and, in Python, those the same scope adds: ``payload["name"] = ...``) are all its
keys, so a missing required key can be told. Anything else that could add a key
(``payload.update(...)``, ``body.extra = 1``, passing it to another function, a spread, a second
assignment, a computed key) says no."""

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


def held_whole_js(reader: Any, obj: Node) -> bool:
    """JavaScript/TypeScript: `obj` is the value of ``const body = {...}`` (named keys and
    shorthands only) whose every other read in its scope sends it in an HTTP call (as an argument,
    through ``JSON.stringify``, or as a value of the options object written in the call) or reads
    a key of it without assigning one."""
    declarator = obj.parent
    if declarator is None or declarator.type != "variable_declarator":
        return False
    if not is_field(obj, "value"):
        return False
    target = child(declarator, "name")
    if target is None or target.type != "identifier":
        return False
    if any(c.type not in _JS_KEYED for c in obj.named_children):
        return False
    scope = reader.scope_of(declarator)
    start = scope.start_byte if scope is not None else 0
    end = scope.end_byte if scope is not None else reader.root.end_byte
    reads = list(
        reader.named_nodes(reader.text(target), start, end, _is_js_name, limit=MAX_READS + 1)
    )
    if len(reads) > MAX_READS:
        return False
    return all(
        read.start_byte == target.start_byte or _js_keeps_keys(reader, read) for read in reads
    )


def _is_js_name(node: Node) -> bool:
    return node.type in ("identifier", "shorthand_property_identifier")


_JS_KEYED = frozenset({"pair", "shorthand_property_identifier", "comment"})
_JS_WRAPPERS = frozenset({"parenthesized_expression", "await_expression", "as_expression"})


def _js_keeps_keys(reader: Any, read: Node) -> bool:
    node, parent = read, read.parent
    if parent is None:
        return False
    if parent.type in ("member_expression", "subscript_expression") and is_field(node, "object"):
        holder = parent.parent  # a key read, unless the key is assigned or deleted
        return holder is None or not (
            (
                holder.type in ("assignment_expression", "augmented_assignment_expression")
                and is_field(parent, "left")
            )
            or holder.type == "unary_expression"
        )
    if (parent.type == "pair" and is_field(node, "value")) or parent.type == "object":
        # ``{method: "POST", body}`` / ``data: body``: the options object of the call itself.
        obj = parent.parent if parent.type == "pair" else parent
        node, parent = obj, obj.parent if obj is not None else None
        if parent is None:
            return False
    if parent.type == "arguments":
        call = parent.parent
        if call is None or call.type != "call_expression":
            return False
        if reader.text(child(call, "function")) == "JSON.stringify":
            return _js_keeps_keys(reader, call)
        return reader.http(call) is not None
    return False
