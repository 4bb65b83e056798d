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
from atlas_ls.cli.clients import limits

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_BLANK = re.compile(r"[ \t\r\n\ufeff]*")
_INDENT = re.compile(r"[ \t]*")
_INDENTED_LINE = re.compile(r"^([ \t]+)[^ \t\r\n]", re.MULTILINE)
_LITERALS = {"true": True, "false": False, "null": None}


class _NotJson(ValueError):
    """NaN or Infinity: Python's reader takes them, JSON and the clients do not."""


def _constant(name: str) -> Any:
    raise _NotJson(name)


def _integer(digits: str) -> int:
    if len(digits) - digits.startswith("-") > limits.MAX_DIGITS:
        raise limits.number_too_long(len(digits) - digits.startswith("-"))
    return int(digits)


# The C reader, for every value whose position within the text nobody needs: a 10 MB config is
# read at C speed and without one Python object per character.
_DECODER = json.JSONDecoder(parse_constant=_constant, parse_int=_integer)


@dataclass(frozen=True, slots=True)
class Member:
    key: str
    key_start: int
    value: Node


@dataclass(frozen=True, slots=True)
class Node:
    """A value and where its text starts and ends; `members` only for the objects read with
    positions (the root and the objects on the path asked for)."""

    start: int
    end: int
    value: Any
    members: tuple[Member, ...] = ()

    def member(self, key: str) -> Member | None:
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None  # the last duplicate wins, as in every JSON reader


class JsoncSyntaxError(ValueError):
    def __init__(self, message: str, text: str, pos: int) -> None:
        self.line = _line(text, pos)
        self.column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        super().__init__(f"{message} at line {self.line}, column {self.column}")


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


class _Parser:
    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.comments = comments

    def fail(self, message: str, pos: int) -> JsoncSyntaxError:
        return JsoncSyntaxError(message, self.text, pos)

    def skip(self, i: int) -> int:
        text = self.text
        while True:
            match = _BLANK.match(text, i)
            i = match.end() if match else i
            if self.comments and text.startswith("//", i):
                end = text.find("\n", i)
                i = len(text) if end < 0 else end + 1
            elif self.comments and text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment", i)
                i = end + 2
            else:
                return i

    def value(self, i: int, depth: int, path: tuple[str, ...] | None) -> Node:
        """The value at `i`, inside `depth` containers. `path`: the keys below this value whose
        objects need member positions (None: no positions needed at all)."""
        text = self.text
        i = self.skip(i)
        if i >= len(text):
            raise self.fail("expected a value, found the end of the file", i)
        char = text[i]
        if char in "{[":
            if depth >= limits.MAX_DEPTH:
                raise limits.too_deep(_line(text, i))
            if path is None:
                try:
                    value, end = _DECODER.raw_decode(text, i)
                    return Node(i, end, value)
                except (json.JSONDecodeError, _NotJson):
                    pass  # a comment or a trailing comma inside: read it below, piece by piece
                except RecursionError:
                    raise limits.too_deep(_line(text, i)) from None
            if char == "{":
                return self.object(i, depth + 1, path)
            return self.array(i, depth + 1)
        if char == '"':
            string, end = self.string(i)
            return Node(i, end, string)
        for word, literal in _LITERALS.items():
            if text.startswith(word, i):
                return Node(i, i + len(word), literal)
        match = _NUMBER.match(text, i)
        if match:
            token = match.group()
            if "." in token or "e" in token or "E" in token:
                return Node(i, match.end(), float(token))
            try:
                return Node(i, match.end(), _integer(token))
            except limits.LimitError as exc:
                exc.line = _line(text, i)
                raise
        raise self.fail(f"unexpected {char!r}", i)

    def string(self, i: int) -> tuple[str, int]:
        try:
            string, end = _DECODER.raw_decode(self.text, i)  # at a quote it reads one string
            return string, end
        except json.JSONDecodeError as exc:  # "Unterminated string starting at", ...
            message = exc.msg.removesuffix(" at").removesuffix(" starting").lower()
            where = "" if "string" in message else " in a string"
            raise self.fail(message + where, exc.pos) from None

    def object(self, start: int, depth: int, path: tuple[str, ...] | None) -> Node:
        text = self.text
        members: list[Member] = []
        i = self.skip(start + 1)
        while True:
            if i < len(text) and text[i] == "}":
                break
            if i >= len(text) or text[i] != '"':
                raise self.fail("expected a quoted key or '}'", i)
            key_start = i
            key, i = self.string(i)
            i = self.skip(i)
            if i >= len(text) or text[i] != ":":
                raise self.fail("expected ':' after a key", i)
            below = path[1:] if path and path[0] == key else None
            node = self.value(i + 1, depth, below)
            members.append(Member(key, key_start, node))
            i = self.skip(node.end)
            if i < len(text) and text[i] == ",":
                i = self.skip(i + 1)
                if i < len(text) and text[i] == "}" and not self.comments:
                    raise self.fail("trailing comma", i)
            elif i >= len(text) or text[i] != "}":
                raise self.fail("expected ',' or '}'", i)
        value = {m.key: m.value.value for m in members}
        return Node(start, i + 1, value, tuple(members) if path is not None else ())

    def array(self, start: int, depth: int) -> Node:
        text = self.text
        items: list[Any] = []
        i = self.skip(start + 1)
        while True:
            if i < len(text) and text[i] == "]":
                break
            node = self.value(i, depth, None)
            items.append(node.value)
            i = self.skip(node.end)
            if i < len(text) and text[i] == ",":
                i = self.skip(i + 1)
            elif i >= len(text) or text[i] != "]":
                raise self.fail("expected ',' or ']'", i)
        return Node(start, i + 1, items)


def parse(text: str, *, comments: bool, path: tuple[str, ...] | None = None) -> Node:
    """The document's root value with positions: the root's members, and the members of each
    object along `path` (keys from the root down), when `path` is given. Raises JsoncSyntaxError
    naming line and column, or limits.LimitError."""
    parser = _Parser(text, comments)
    root = parser.value(0, 0, path)
    rest = parser.skip(root.end)
    if rest < len(text):
        raise parser.fail("unexpected text after the end of the document", rest)
    return root


def _line_indent(text: str, pos: int) -> str:
    match = _INDENT.match(text, text.rfind("\n", 0, pos) + 1)
    return match.group() if match else ""


def indent_unit(text: str) -> str:
    """The file's own indentation step (two spaces for a new or one-line file)."""
    match = _INDENTED_LINE.search(text)
    return match.group(1) if match else "  "


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
    """Parse a client's config file; a syntax error is a ConfigError naming the file and line
    (limits.LimitError for a file beyond what atlas setup reads)."""
    if not text.strip():
        text = "{}"
    try:
        if not comments:  # the strict reader's verdict and its messages: these clients use one
            try:
                return Node(0, len(text), _DECODER.decode(text))
            except RecursionError:
                raise limits.too_deep() from None
            except _NotJson as exc:
                raise ConfigError(
                    f"{where} is not valid JSON: {exc} is not a JSON value",
                    hint="fix the file by hand (the client cannot read it either), then run "
                    "atlas setup again",
                    path=where,
                ) from None
        return parse(text, comments=comments)
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


def set_entry(
    text: str, container: str, name: str, entry: dict[str, Any], *, comments: bool
) -> str:
    """`text` with `root[container][name] = entry`, everything else byte for byte as it was."""
    if not text.strip():
        return json.dumps({container: {name: entry}}, indent=2, ensure_ascii=False) + "\n"
    root = parse(text, comments=comments, path=(container,))
    unit = indent_unit(text)
    holder = root.member(container)
    if holder is None:
        return insert_member(text, root, container, {name: entry}, unit)
    current = holder.value.member(name)
    if current is None:
        return insert_member(text, holder.value, name, entry, unit)
    return replace_value(text, current, entry, unit)
