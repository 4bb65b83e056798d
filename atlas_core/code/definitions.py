"""Which syntax nodes are definitions, per language, and what each one is called.

`definition(node, language, scope, source)` answers for one node: a `Definition` (its kind, its own name,
the node that is the definition proper without `export`/decorator wrappers, the block its body is
split at) or None; `top_level_nodes` and `opened_body` find the nodes a file and a definition
are chunked into. Everything else about chunking is the same for every language.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a node stands: inside a class body, and/or among the file's top-level nodes."""

    in_class: bool = False
    top: bool = False


@dataclass(frozen=True, slots=True)
class Definition:
    kind: str  # function | method | class | interface | enum | type | key
    symbol: str
    core: Node  # the definition itself, inside any export/decorator/declaration wrapper
    body: Node | None  # where a long definition is split, and where a class keeps its members
    members_apart: bool = False  # a class: each method gets a piece of its own
    parent: str | None = None  # an enclosing name the syntax states (a Go method's receiver)


# Nodes between the root and the top-level definitions that are no definition themselves: a YAML
# stream holds documents holding one mapping; a JSON document holds one object.
TRANSPARENT: dict[str, frozenset[str]] = {
    "yaml": frozenset({"stream", "document", "block_node", "block_mapping"}),
    "json": frozenset({"document", "object"}),
}

# Nodes inside a class body that hold members without being one (Java puts an enum's methods in
# one `enum_body_declarations` node after the constants).
MEMBER_GROUPS = frozenset({"enum_body_declarations"})

COMMENTS = frozenset({"comment", "line_comment", "block_comment", "decorator"})

_JS_FUNCTIONS = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_JS_CLASSES = frozenset({"class", "class_expression"})


def definition(node: Node, language: str, scope: Scope, source: bytes) -> Definition | None:
    """The definition `node` is (in a file whose UTF-8 text is `source`), or None."""
    reader = _READERS.get(language)
    return reader(node, scope, source) if reader is not None else None


def top_level_nodes(root: Node, language: str) -> list[Node]:
    """The file's top-level nodes, looking through the nodes that only hold them."""
    transparent = TRANSPARENT.get(language, frozenset())
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node is root or node.type in transparent:
            stack.extend(node.children[::-1])
        else:
            found.append(node)
    return found


def opened_body(top: Node, body: Node) -> list[Node]:
    """The nodes of `top` with `body` opened: on the way down from `top` to `body`, the children
    before the way, then `body`'s children, then the children after the way."""
    path = [body]
    while path[-1].id != top.id and path[-1].parent is not None:
        path.append(path[-1].parent)
    path.reverse()
    before: list[Node] = []
    after: list[Node] = []
    for outer, inner in pairwise(path):
        children = outer.children
        at = next(i for i, child in enumerate(children) if child.id == inner.id)
        before.extend(children[:at])
        after[:0] = children[at + 1 :]
    return [*before, *body.children, *after]


def _text(node: Node | None, source: bytes) -> str:
    # Sliced from the file: far cheaper than `Node.text`, which a tree parsed from a reader
    # callback has to fetch again.
    if node is None:
        return ""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _named(kind: str, node: Node, source: bytes, *, apart: bool = False) -> Definition:
    name = _text(node.child_by_field_name("name"), source)
    return Definition(kind, name, node, _body(node), apart)


def _body(node: Node) -> Node | None:
    return node.child_by_field_name("body")


def _python(node: Node, scope: Scope, source: bytes) -> Definition | None:
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return _python(inner, scope, source) if inner is not None else None
    if node.type == "function_definition":
        return _named("method" if scope.in_class else "function", node, source)
    if node.type == "class_definition":
        return _named("class", node, source, apart=True)
    return None


def _javascript(node: Node, scope: Scope, source: bytes) -> Definition | None:
    kind = node.type
    if kind == "export_statement":
        inner = node.child_by_field_name("declaration") or node.child_by_field_name("value")
        return _javascript(inner, scope, source) if inner is not None else None
    if kind in ("function_declaration", "generator_function_declaration"):
        return _named("function", node, source)
    if kind in ("class_declaration", "abstract_class_declaration", "class"):
        found = _named("class", node, source, apart=True)
        return found if found.symbol else None
    if kind == "method_definition":
        return _named("method", node, source)
    if kind in ("field_definition", "public_field_definition"):
        value = node.child_by_field_name("value")
        name = node.child_by_field_name("property") or node.child_by_field_name("name")
        if value is not None and value.type in _JS_FUNCTIONS:
            return Definition("method", _text(name, source), value, _body(value))
        return None
    if kind == "interface_declaration":
        return _named("interface", node, source)
    if kind == "type_alias_declaration":
        return Definition("type", _text(node.child_by_field_name("name"), source), node, None)
    if kind == "enum_declaration":
        return _named("enum", node, source)
    if kind in ("lexical_declaration", "variable_declaration"):
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(declarators) != 1:
            return None
        name = _text(declarators[0].child_by_field_name("name"), source)
        value = declarators[0].child_by_field_name("value")
        if value is None:
            return None
        if value.type in _JS_FUNCTIONS:
            return Definition("function", name, value, _body(value))
        if value.type in _JS_CLASSES:
            return Definition("class", name, value, _body(value), True)
        return None
    if kind == "expression_statement":
        # `module.exports.handler = function (...) {...}`, `exports.run = async () => ...`
        assignment = node.named_children[0] if node.named_child_count else None
        if assignment is None or assignment.type != "assignment_expression":
            return None
        right = assignment.child_by_field_name("right")
        if right is None or right.type not in _JS_FUNCTIONS:
            return None
        left = _text(assignment.child_by_field_name("left"), source)
        return Definition("function", left.rsplit(".", 1)[-1], right, _body(right))
    return None


def _java(node: Node, scope: Scope, source: bytes) -> Definition | None:
    kind = node.type
    if kind in ("class_declaration", "record_declaration"):
        return _named("class", node, source, apart=True)
    if kind == "enum_declaration":
        return _named("enum", node, source, apart=True)
    if kind in ("interface_declaration", "annotation_type_declaration"):
        return _named("interface", node, source)
    if kind in ("method_declaration", "constructor_declaration", "compact_constructor_declaration"):
        return _named("method", node, source)
    return None


def _groovy(node: Node, scope: Scope, source: bytes) -> Definition | None:
    kind = node.type
    if kind == "class_declaration":
        return _named("class", node, source, apart=True)
    if kind == "enum_declaration":
        return _named("enum", node, source, apart=True)
    if kind == "interface_declaration":
        return _named("interface", node, source)
    if kind in ("method_declaration", "constructor_declaration"):
        return _named("method", node, source)
    if kind == "function_definition":
        return _named("method" if scope.in_class else "function", node, source)
    if kind in ("local_variable_declaration", "field_declaration", "declaration"):
        # `def transform = { row -> ... }`: a closure given a name is a function by another syntax.
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(declarators) != 1:
            return None
        value = declarators[0].child_by_field_name("value")
        if value is None or value.type != "closure":
            return None
        name = _text(declarators[0].child_by_field_name("name"), source)
        return Definition("method" if scope.in_class else "function", name, value, value)
    return None


def _go(node: Node, scope: Scope, source: bytes) -> Definition | None:
    kind = node.type
    if kind == "function_declaration":
        return _named("function", node, source)
    if kind == "method_declaration":
        found = _named("method", node, source)
        return Definition(
            found.kind, found.symbol, node, found.body, parent=_receiver(node, source)
        )
    if kind == "type_declaration":
        specs = [c for c in node.named_children if c.type in ("type_spec", "type_alias")]
        if not specs:
            return None
        shape = specs[0].child_by_field_name("type")
        is_interface = shape is not None and shape.type == "interface_type"
        name = _text(specs[0].child_by_field_name("name"), source)
        return Definition("interface" if is_interface else "type", name, node, None)
    return None


def _receiver(method: Node, source: bytes) -> str:
    """`Client` for `func (c *Client) Send()` and for `func (c Client[T]) Send()`."""
    receiver = method.child_by_field_name("receiver")
    parameter = receiver.named_children[0] if receiver and receiver.named_child_count else None
    shape = parameter.child_by_field_name("type") if parameter is not None else None
    while shape is not None and shape.type in (
        "pointer_type",
        "generic_type",
        "parenthesized_type",
    ):
        inner = shape.child_by_field_name("type") or (
            shape.named_children[0] if shape.named_child_count else None
        )
        shape = inner
    return _text(shape, source)


def _shell(node: Node, scope: Scope, source: bytes) -> Definition | None:
    if node.type == "function_definition":
        return _named("function", node, source)
    return None


def _yaml(node: Node, scope: Scope, source: bytes) -> Definition | None:
    if scope.top and node.type == "block_mapping_pair":
        key = _text(node.child_by_field_name("key"), source).strip()
        if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"":
            key = key[1:-1]
        return Definition("key", key, node, node.child_by_field_name("value"))
    return None


def _json(node: Node, scope: Scope, source: bytes) -> Definition | None:
    if scope.top and node.type == "pair":
        key = node.child_by_field_name("key")
        content = key.named_children[0] if key is not None and key.named_child_count else None
        return Definition("key", _text(content, source), node, node.child_by_field_name("value"))
    return None


_READERS = {
    "python": _python,
    "javascript": _javascript,
    "typescript": _javascript,
    "tsx": _javascript,
    "java": _java,
    "groovy": _groovy,
    "go": _go,
    "shell": _shell,
    "yaml": _yaml,
    "json": _json,
}
