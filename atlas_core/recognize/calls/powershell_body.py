"""The body of a PowerShell web call: the keys of the hashtable it is made from, written in the
call (``-Body @{..}``, ``-Body (ConvertTo-Json @{..})``) or assigned above it
(``$body = @{..} | ConvertTo-Json``), and whether they are all its keys."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.tree_reader import MAX_DEPTH

if TYPE_CHECKING:
    from atlas_core.recognize.calls.powershell import Reader

_KEY = re.compile(r"""\s*(?:(["'])([^"'\n]+)\1|([A-Za-z_][\w-]*))\s*=(?!=)""")


@dataclass(slots=True)
class Body:
    keys: list[tuple[str, int]]  # (key, offset)
    complete: bool
    json: bool


def read_body(reader: Reader, start: int, end: int) -> Body | None:
    """The body a ``-Body`` value (at `start`..`end`) sends, or None when it is not seen."""
    return body(reader, start, end, 0)


def body(reader: Reader, start: int, end: int, depth: int) -> Body | None:
    start, end = reader.strip(start, end)
    if depth > MAX_DEPTH or start >= end:
        return None
    text = reader.text
    if text[start] == "(" and reader.word_end(start, end) == end:
        return body(reader, start + 1, end - 1, depth + 1)
    if text.startswith("@{", start):
        keys = [(k, at) for k, at, _ in entries(reader, start)]
        return Body(keys, complete=bool(keys), json=False)
    piped = reader.split(start, end, "|")
    if len(piped) == 2 and re.match(r"\s*ConvertTo-Json\b", text[slice(*piped[1])], re.I):
        inner = body(reader, *piped[0], depth + 1)
        return Body(inner.keys, inner.complete, json=True) if inner is not None else None
    converted = re.match(r"ConvertTo-Json\s+(?:-InputObject\s+)?", text[start:end], re.I)
    if converted is not None:
        inner = body(reader, start + converted.end(), end, depth + 1)
        return Body(inner.keys, inner.complete, json=True) if inner is not None else None
    name = re.fullmatch(r"\$((?:script:|global:)?[A-Za-z_]\w*)", text[start:end])
    if name is not None:
        found = reader.definition(name.group(1), start)
        inner = body(reader, *found, depth + 1) if found is not None else None
        if inner is not None and _touched(reader, name.group(1), found, start):
            inner.complete = False  # keys added after the literal
        return inner
    return None


def _touched(reader: Reader, name: str, found: tuple[int, int] | None, use: int) -> bool:
    if found is None:
        return True
    between = reader.text[found[1] : use]
    return re.search(rf"\${re.escape(name)}(?:\.\w+\s*=|\.Add\(|\[)", between, re.I) is not None


def entries(reader: Reader, at: int) -> list[tuple[str, int, tuple[int, int]]]:
    """(key, offset, value bounds) of the hashtable literal ``@{...}`` at `at`; nested
    hashtables stay inside their values."""
    close = reader.word_end(at + 1, len(reader.text))
    out: list[tuple[str, int, tuple[int, int]]] = []
    i = at + 2
    while i < close:
        m = _KEY.match(reader.text, i, close)
        if m is None:
            i = reader.text.find("\n", i, close)
            if i < 0:
                break
            i += 1
            continue
        key_at = m.start(2) if m.group(2) else m.start(3)
        value_end = reader.expression_end(m.end())
        value_end = min(value_end, close)
        out.append((m.group(2) or m.group(3), key_at, (m.end(), value_end)))
        i = value_end + 1
    return out
