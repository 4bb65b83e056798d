"""Body keys of a Go request whose JSON body is a struct of the document's own: its fields' json
tags (``Name string `json:"name"` ``) are the keys, read where the type declares them.

The struct is found through what ``json.Marshal`` is given: a composite literal
(``json.Marshal(AddAssetRequest{...})``, ``&AddAssetRequest{...}``), a name assigned one, or a
parameter of the enclosing function declared with the struct's type. The key set is complete only
when every field is tagged (an untagged or embedded field's JSON name is not written there)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atlas_core.recognize.calls.go import _GoReader

_LITERAL = re.compile(r"&?([A-Za-z_]\w*)\s*\{")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_TAG = re.compile(r'`[^`]*?\bjson:"([^",`]*)[^`]*`')
_FIELD = re.compile(r"^\s*([A-Za-z_]\w*)(\s+[^\s`/]+)?")
_MAX_FIELDS = 200


def struct_of(reader: _GoReader, start: int, end: int) -> str | None:
    """The name of the struct type the expression at `start:end` makes or holds, or None."""
    text = reader.text
    literal = _LITERAL.match(text, start, end)
    if literal is not None and reader.closing(literal.end() - 1) == end - 1:
        return None if literal.group(1) in ("map", "struct") else literal.group(1)
    if not _IDENT.fullmatch(text, start, end):
        return None
    name = text[start:end]
    found = reader.definition(name, start)
    if found is not None:
        value_start, value_end = found
        while value_start < value_end and text[value_start].isspace():
            value_start += 1
        while value_end > value_start and text[value_end - 1].isspace():
            value_end -= 1
        literal = _LITERAL.match(text, value_start, value_end)
        if literal is None or reader.closing(literal.end() - 1) != value_end - 1:
            return None
        return None if literal.group(1) in ("map", "struct") else literal.group(1)
    return _parameter_type(text, name, start)


def _parameter_type(text: str, name: str, at: int) -> str | None:
    """The type a parameter `name` of the function around `at` is declared with (a struct's name
    or a pointer to one), or None."""
    func = text.rfind("\nfunc ", 0, at)
    if func < 0:
        func = 0 if text.startswith("func ") else -1
    if func < 0:
        return None
    header_end = text.find("{", func)
    if header_end < 0 or header_end > at:
        return None
    declared = re.search(
        rf"[(,]\s*{re.escape(name)}\s+\*?([A-Za-z_]\w*)\s*[,)]", text[func:header_end]
    )
    return declared.group(1) if declared is not None else None


def struct_keys(text: str, name: str) -> tuple[list[tuple[str, int]], bool]:
    """The JSON keys a struct type `name` declares with their offsets (in its tags), and whether
    they are all of its keys."""
    declared = re.search(rf"^type\s+{re.escape(name)}\s+struct\s*\{{", text, re.M)
    if declared is None:
        return [], False
    keys: list[tuple[str, int]] = []
    complete = True
    at = declared.end()
    for _ in range(_MAX_FIELDS):
        line_end = text.find("\n", at)
        if line_end < 0:
            return [], False
        line = text[at:line_end]
        code = line.split("//", 1)[0]
        if code.strip().startswith("}"):
            return keys, complete and bool(keys)
        field = _FIELD.match(code)
        if field is not None:
            tag = _TAG.search(code)
            if tag is None or field.group(2) is None:
                complete = False  # untagged (its Go name) or embedded: not written here
            elif tag.group(1) != "-":
                keys.append((tag.group(1) or field.group(1), at + tag.start(1)))
        at = line_end + 1
    return [], False
