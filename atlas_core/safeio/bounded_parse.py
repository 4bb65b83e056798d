"""YAML and JSON parsing whose cost is bounded by the size of the input.

`yaml.safe_load` is safe from code execution but not from cost: aliases let 500 bytes stand for
billions of nodes ("billion laughs"), which every later walk over the value pays for, an alias
inside its own anchor makes a cycle that no walk ends, and deep nesting recurses in the composer
until Python's stack runs out. The loader here counts nodes as the aliases expand them and refuses a
document that expands past a cap, refuses recursive aliases, nesting past a depth and numbers
thousands of digits long, and turns a value Python cannot build (`2001-13-45`) into a YAML error
with its line. Plain anchors and aliases within the cap keep working: OpenAPI specs use them for
shared responses. JSON gets the same depth and number bounds.
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent
from yaml.nodes import Node

from atlas_core.safeio.bounded_read import deeper_than

# Deeper than any real front matter or OpenAPI spec (those stay under ~40 levels), shallow enough
# that the recursive composer and the JSON decoder stay far from Python's recursion limit.
MAX_DEPTH = 100
# Python's int() refuses longer decimal strings (sys.get_int_max_str_digits); no real value nears it.
MAX_NUMBER_CHARS = 4000


class LimitExceeded(yaml.MarkedYAMLError):
    """A YAML document over a bound: too many values once aliases expand, a cycle, too deep, a
    number too long."""


class TooLarge(ValueError):
    """A JSON document over a bound: nested deeper than MAX_DEPTH, or a number too long."""


class _BoundedLoader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.max_nodes = 0
        self._depth = 0
        # Expanded node count of each finished node (by id), and of the nodes being composed.
        self._sizes: dict[int, int] = {}
        self._open: list[int] = [0]

    # `Node | None` as in the signature it overrides, though PyYAML's composer always returns a
    # node or raises.
    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            node = super().compose_node(parent, index)
            size = self._sizes.get(id(node))
            if size is None:
                raise LimitExceeded(
                    None, None, f"alias *{event.anchor} refers to itself", event.start_mark
                )
            self._count(size, event)
            return node
        event = self.peek_event()
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise LimitExceeded(
                None, None, f"nested more than {MAX_DEPTH} levels deep", event.start_mark
            )
        self._open.append(0)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        size = 1 + self._open.pop()
        self._sizes[id(node)] = size
        self._count(size, event)
        return node

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:
            # A scalar that resolves to a type but is no valid value of it (`date: 2001-13-45`)
            # raises a bare ValueError; report it like any other YAML error, with its line.
            raise ConstructorError(
                None, None, f"cannot read {str(node.value)[:40]!r}: {exc}", node.start_mark
            ) from None

    def construct_number(self, node: yaml.ScalarNode) -> Any:
        # int() refuses (ValueError, not a YAML error) more than 4,300 digits, and YAML 1.1's
        # base-60 numbers (1:2:3:...) cost quadratic big-integer arithmetic.
        if len(node.value) > MAX_NUMBER_CHARS:
            raise LimitExceeded(
                None, None, f"a number written with {len(node.value):,} characters", node.start_mark
            )
        if node.tag.endswith(":int"):
            return self.construct_yaml_int(node)
        return self.construct_yaml_float(node)

    def _count(self, size: int, event: Any) -> None:
        self._open[-1] += size
        if self._open[-1] > self.max_nodes:
            raise LimitExceeded(
                None,
                None,
                f"expands to more than {self.max_nodes:,} values (through aliases)",
                event.start_mark,
            )


_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_number)
_BoundedLoader.add_constructor("tag:yaml.org,2002:float", _BoundedLoader.construct_number)


def load_yaml(text: str, *, max_nodes: int) -> Any:
    """`yaml.safe_load` with the bounds above; over a bound raises LimitExceeded (a YAMLError)."""
    loader = _BoundedLoader(text)
    loader.max_nodes = max_nodes
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def parse_json(text: str) -> Any:
    """`json.loads` with the bounds: TooLarge past one, json.JSONDecodeError for bad syntax."""
    try:
        value = json.loads(text, parse_int=_json_int)
    except RecursionError:
        # The C decoder gives up near the recursion limit, far past MAX_DEPTH.
        raise TooLarge(f"nested more than {MAX_DEPTH} levels deep") from None
    if deeper_than(value, MAX_DEPTH):
        raise TooLarge(f"nested more than {MAX_DEPTH} levels deep")
    return value


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        # Else int() raises a bare ValueError from inside the decoder.
        raise TooLarge(f"a number written with {len(text):,} characters")
    return int(text)
