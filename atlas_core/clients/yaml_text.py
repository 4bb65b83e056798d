"""Continue's `config.yaml`: the `mcpServers` list is edited as text at the positions PyYAML
reports, so comments and the rest of the file stay as they were. Scalars are written as JSON
strings and lists, which YAML reads as they are."""

from __future__ import annotations

import json
from typing import Any

import yaml

from atlas_core.errors import ConfigError

NEW_FILE_HEADER = "name: Local Config\nversion: 1.0.0\nschema: v1\n"


def read(text: str, *, where: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"{where} is not valid YAML: {problem}{line}",
            hint="fix the file by hand (Continue cannot read it either), then run atlas setup again",
            path=where,
        ) from None


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
    data = read(text, where=where)
    if data is None:
        prefix = text if text.endswith("\n") or not text else text + "\n"
        return prefix + NEW_FILE_HEADER + f"{list_key}:\n" + _item(entry, 2) + "\n"
    root = yaml.compose(text, Loader=yaml.SafeLoader)
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
