"""Continue's `config.yaml`: the `mcpServers` list is edited as text at the positions PyYAML
reports, so comments and the rest of the file stay as they were. Scalars are written as JSON
strings and lists, which YAML reads as they are."""

from __future__ import annotations

import json
from typing import Any

import yaml

from atlas_core.errors import ConfigError
from atlas_ls.cli.clients import limits

NEW_FILE_HEADER = "name: Local Config\nversion: 1.0.0\nschema: v1\n"
_COLLECTIONS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing collections nested past limits.MAX_DEPTH (its composer
    recurses once per level) and whole numbers too long for int()."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        nested = not self.check_event(yaml.AliasEvent) and isinstance(
            self.peek_event(), _COLLECTIONS
        )
        if not nested:
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > limits.MAX_DEPTH:
                raise limits.too_deep(self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        # Sexagesimal (1:2:3) and binary forms are not bounded by int()'s own limit either.
        digits = sum(char.isalnum() for char in node.value)
        if digits > limits.MAX_DIGITS:
            raise limits.number_too_long(digits, node.start_mark.line + 1)
        return super().construct_yaml_int(node)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_aliases(root: yaml.Node) -> None:
    """Refuse a document whose aliases repeat more than limits.MAX_ALIAS_NODES nodes, or that
    contains itself: a few hundred bytes of anchors can stand for billions of values, which every
    later comparison would walk. Counted on the composed graph, each shared node once."""
    cap = 10**12  # past any real count; keeps the sums small for a bomb of a million levels
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # the nodes being counted: the current node's ancestors
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, counted = stack.pop()
        key = id(node)
        if counted:
            open_nodes.discard(key)
            sizes[key] = min(cap, 1 + sum(sizes[id(child)] for child in _children(node)))
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise limits.alias_bomb(node.start_mark.line + 1)
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    if sizes[id(root)] - len(sizes) > limits.MAX_ALIAS_NODES:
        raise limits.alias_bomb()


def _load(text: str, where: str) -> tuple[yaml.Node | None, Any]:
    """The composed document (for positions) and its value; raises LimitError past the limits."""
    loader: _Loader | None = None
    try:
        loader = _Loader(text)  # its reader refuses a control character here already
        node = loader.get_single_node()
        if node is None:
            return None, None
        _check_aliases(node)
        return node, loader.construct_document(node)
    except RecursionError:  # the constructor's own recursion, past what the composer allows
        raise limits.too_deep() from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"{where} is not valid YAML: {problem}{line}",
            hint="fix the file by hand (Continue cannot read it either), then run atlas setup again",
            path=where,
        ) from None
    finally:
        if loader is not None:
            loader.dispose()


def read(text: str, *, where: str) -> Any:
    return _load(text, where)[1]


def _item(entry: dict[str, Any], dash_column: int) -> str:
    """A block-sequence item: `- name: ...` at `dash_column`, its other keys below."""
    lines = [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in entry.items()]
    pad = " " * (dash_column + 2)
    return " " * dash_column + "- " + ("\n" + pad).join(lines)


def _mapping(entry: dict[str, Any], column: int) -> str:
    lines = [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in entry.items()]
    return ("\n" + " " * column).join(lines)


def set_entry(text: str, list_key: str, entry: dict[str, Any], *, where: str) -> str:
    """`text` with the item of `list_key` named like `entry` replaced by it, or `entry` appended."""
    root, data = _load(text, where)
    if data is None:
        prefix = text if text.endswith("\n") or not text else text + "\n"
        return prefix + NEW_FILE_HEADER + f"{list_key}:\n" + _item(entry, 2) + "\n"
    assert isinstance(root, yaml.MappingNode)  # the caller checked the type of `data`
    found = [
        (k, v) for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == list_key
    ]
    if not found:
        if root.flow_style:
            raise _by_hand(where, list_key, entry)
        body = text if text.endswith("\n") else text + "\n"
        return body + f"{list_key}:\n" + _item(entry, 2) + "\n"
    key_node, node = found[-1]
    if isinstance(node, yaml.ScalarNode):  # `mcpServers:` with nothing after it
        start, end = node.start_mark.index, node.end_mark.index
        column = key_node.start_mark.column + 2
        return text[:start].rstrip(" \t") + "\n" + _item(entry, column) + text[end:]
    assert isinstance(node, yaml.SequenceNode)
    items = data[list_key]
    index = next(
        (
            i
            for i, item in enumerate(items)
            if isinstance(item, dict) and item.get("name") == entry["name"]
        ),
        None,
    )
    if node.flow_style:
        new = [*items]
        if index is None:
            new.append(entry)
        else:
            new[index] = entry
        start, end = node.start_mark.index, node.end_mark.index
        return text[:start] + json.dumps(new, ensure_ascii=False) + text[end:]
    if index is not None:
        item = node.value[index]
        start, end = item.start_mark.index, item.end_mark.index
        old = text[start:end]
        trailing = old[len(old.rstrip()) :]
        return text[:start] + _mapping(entry, item.start_mark.column) + trailing + text[end:]
    last = node.value[-1]
    end = last.end_mark.index
    while end > last.start_mark.index and text[end - 1] in " \t\r\n":
        end -= 1
    return text[:end] + "\n" + _item(entry, node.start_mark.column) + text[end:]


def _by_hand(where: str, list_key: str, entry: dict[str, Any]) -> ConfigError:
    return ConfigError(
        f"{where} is written in YAML's flow style, which atlas setup does not edit",
        hint=f"add this item to {list_key} by hand: {json.dumps(entry, ensure_ascii=False)}",
        path=where,
    )
