"""JSON and JSON with comments, read with the position of every object member so that an edit
touches only the text of one entry: the user's comments, order and spacing stay as they were.

Claude Desktop, Claude Code and Cursor read strict JSON; VS Code, Zed and opencode accept `//` and
`/* */` comments and trailing commas. Re-serialising those files would throw the comments away,
so the edit splices new text into the old instead.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from atlas_core.errors import ConfigError

_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}


@dataclass(frozen=True, slots=True)
class Member:
    key: str
    key_start: int
    value: Node


@dataclass(frozen=True, slots=True)
class Node:
    """A value and where its text starts and ends; `members` only for objects."""

    start: int
    end: int
    value: Any
    members: tuple[Member, ...] = ()

    def member(self, key: str) -> Member | None:
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None  # the last duplicate wins, as in every JSON reader


class JsoncSyntaxError(ValueError):
    def __init__(self, message: str, text: str, pos: int) -> None:
        self.line = text.count("\n", 0, pos) + 1
        self.column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        super().__init__(f"{message} at line {self.line}, column {self.column}")


class _Parser:
    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.comments = comments

    def fail(self, message: str, pos: int) -> JsoncSyntaxError:
        return JsoncSyntaxError(message, self.text, pos)

    def skip(self, i: int) -> int:
        text = self.text
        while i < len(text):
            if text[i] in " \t\r\n\ufeff":
                i += 1
            elif self.comments and text.startswith("//", i):
                end = text.find("\n", i)
                i = len(text) if end < 0 else end + 1
            elif self.comments and text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment", i)
                i = end + 2
            else:
                break
        return i

    def value(self, i: int) -> Node:
        text = self.text
        i = self.skip(i)
        if i >= len(text):
            raise self.fail("expected a value, found the end of the file", i)
        char = text[i]
        if char == "{":
            return self.object(i)
        if char == "[":
            return self.array(i)
        if char == '"':
            string, end = self.string(i)
            return Node(i, end, string)
        for word, literal in _LITERALS.items():
            if text.startswith(word, i):
                return Node(i, i + len(word), literal)
        match = _NUMBER.match(text, i)
        if match:
            number = json.loads(match.group())
            return Node(i, match.end(), number)
        raise self.fail(f"unexpected {char!r}", i)

    def string(self, i: int) -> tuple[str, int]:
        match = _STRING.match(self.text, i)
        if match is None:
            raise self.fail("unterminated string or a control character in it", i)
        try:
            return json.loads(match.group()), match.end()
        except json.JSONDecodeError as exc:
            raise self.fail(exc.msg, i + exc.pos) from None

    def object(self, start: int) -> Node:
        members: list[Member] = []
        i = self.skip(start + 1)
        while True:
            if i < len(self.text) and self.text[i] == "}":
                break
            if i >= len(self.text) or self.text[i] != '"':
                raise self.fail("expected a quoted key or '}'", i)
            key_start = i
            key, i = self.string(i)
            i = self.skip(i)
            if i >= len(self.text) or self.text[i] != ":":
                raise self.fail("expected ':' after a key", i)
            node = self.value(i + 1)
            members.append(Member(key, key_start, node))
            i = self.skip(node.end)
            if i < len(self.text) and self.text[i] == ",":
                i = self.skip(i + 1)
                if i < len(self.text) and self.text[i] == "}" and not self.comments:
                    raise self.fail("trailing comma", i)
            elif i >= len(self.text) or self.text[i] != "}":
                raise self.fail("expected ',' or '}'", i)
        value = {m.key: m.value.value for m in members}
        return Node(start, i + 1, value, tuple(members))

    def array(self, start: int) -> Node:
        items: list[Any] = []
        i = self.skip(start + 1)
        while True:
            if i < len(self.text) and self.text[i] == "]":
                break
            node = self.value(i)
            items.append(node.value)
            i = self.skip(node.end)
            if i < len(self.text) and self.text[i] == ",":
                i = self.skip(i + 1)
            elif i >= len(self.text) or self.text[i] != "]":
                raise self.fail("expected ',' or ']'", i)
        return Node(start, i + 1, items)


def parse(text: str, *, comments: bool) -> Node:
    """The document's root value with positions; raises JsoncSyntaxError naming line and column."""
    parser = _Parser(text, comments)
    root = parser.value(0)
    rest = parser.skip(root.end)
    if rest < len(text):
        raise parser.fail("unexpected text after the end of the document", rest)
    return root


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    match = re.match(r"[ \t]*", text[start:])
    return match.group() if match else ""


def indent_unit(text: str) -> str:
    """The file's own indentation step (two spaces for a new or one-line file)."""
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            return line[: len(line) - len(stripped)]
    return "  "


def dumps(value: Any, indent: str, unit: str) -> str:
    """`value` as JSON laid out for a member whose key starts after `indent`."""
    text = json.dumps(value, indent=unit, ensure_ascii=False)
    return text.replace("\n", "\n" + indent)


def insert_member(text: str, obj: Node, key: str, value: Any, unit: str) -> str:
    """Add `"key": value` as the last member of `obj`, in the style of its neighbours."""
    if obj.members:
        first, last = obj.members[0], obj.members[-1]
        same_line = "\n" not in text[obj.start : first.key_start]
        indent = (
            _line_indent(text, obj.start) + unit
            if same_line
            else _line_indent(text, first.key_start)
        )
        member = f"{json.dumps(key, ensure_ascii=False)}: {dumps(value, indent, unit)}"
        end = last.value.end
        cut = end
        while cut < len(text) and text[cut] in " \t":
            cut += 1
        trailing_comma = cut < len(text) and text[cut] == ","
        if trailing_comma:
            cut += 1
        after = cut
        while after < len(text) and text[after] in " \t":
            after += 1
        if text.startswith("//", after):  # keep a comment on the last member's line with it
            newline = text.find("\n", after)
            cut = len(text) if newline < 0 else newline
        if trailing_comma:
            return text[:cut] + "\n" + indent + member + "," + text[cut:]
        return text[:end] + "," + text[end:cut] + "\n" + indent + member + text[cut:]
    outer = _line_indent(text, obj.start)
    indent = outer + unit
    member = f"{json.dumps(key, ensure_ascii=False)}: {dumps(value, indent, unit)}"
    inside = text[obj.start + 1 : obj.end - 1]
    if inside.strip() == "":
        return text[: obj.start + 1] + "\n" + indent + member + "\n" + outer + text[obj.end - 1 :]
    return text[: obj.start + 1] + "\n" + indent + member + text[obj.start + 1 :]


def replace_value(text: str, member: Member, value: Any, unit: str) -> str:
    indent = _line_indent(text, member.key_start)
    return text[: member.value.start] + dumps(value, indent, unit) + text[member.value.end :]


def read(text: str, *, comments: bool, where: str) -> Node:
    """Parse a client's config file; a syntax error is a ConfigError naming the file and line."""
    if not text.strip():
        text = "{}"
    try:
        if not comments:
            json.loads(text)  # the strict reader's verdict: these clients use one
        root = parse(text, comments=comments)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{where} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
            hint="fix the file by hand (the client cannot read it either), then run atlas setup again",
            path=where,
        ) from None
    except JsoncSyntaxError as exc:
        raise ConfigError(
            f"{where} is not valid JSON with comments: {exc}",
            hint="fix the file by hand (the client cannot read it either), then run atlas setup again",
            path=where,
        ) from None
    return root


def set_entry(
    text: str, container: str, name: str, entry: dict[str, Any], *, comments: bool
) -> str:
    """`text` with `root[container][name] = entry`, everything else byte for byte as it was."""
    if not text.strip():
        return json.dumps({container: {name: entry}}, indent=2, ensure_ascii=False) + "\n"
    root = parse(text, comments=comments)
    unit = indent_unit(text)
    holder = root.member(container)
    if holder is None:
        return insert_member(text, root, container, {name: entry}, unit)
    current = holder.value.member(name)
    if current is None:
        return insert_member(text, holder.value, name, entry, unit)
    return replace_value(text, current, entry, unit)
