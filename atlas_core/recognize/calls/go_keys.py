"""Query and body keys of a Go ``net/http`` request, read as text.

Query keys come from a ``url.Values`` whose ``Encode()`` ends up in the request's URL: written in
the URL expression (``base + "/assets?" + q.Encode()``) or assigned after the request is made
(``req.URL.RawQuery = q.Encode()``). The values are a literal (``url.Values{"name": {n}}``) or
an empty one (``url.Values{}``, ``req.URL.Query()``) filled with ``q.Set("name", n)`` /
``q.Add(..)`` before the encoding.

Body keys come from a map literal (or a struct of the document's own: `go_structs`) marshalled
to JSON and sent as the request's body:
``b, _ := json.Marshal(map[string]interface{}{"name": n})`` and
``http.NewRequest("POST", u, bytes.NewBuffer(b))`` (or the map in a variable of its own). The key
set is complete only when every key is a literal and the map is not touched in between.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.go_structs import struct_keys, struct_of
from atlas_core.recognize.calls.site import BODY, QUERY, CallSite
from atlas_core.recognize.calls.text_calls import key_site

if TYPE_CHECKING:
    from atlas_core.recognize.calls.go import _GoReader

_IDENT = re.compile(r"[A-Za-z_]\w*")
_VALUES = re.compile(r"url\.Values\s*\{")
_EMPTY_VALUES = re.compile(
    r"(?:url\.Values\s*\{\s*\}|(?:make\(\s*url\.Values\s*\))|[\w.]+\.Query\(\))$"
)
_MAP = re.compile(r"map\[string\]\s*(?:interface\{\}|any|string|[\w.*\[\]]+)\s*\{")
_KEY = re.compile(r'"((?:[^"\\\n]){1,200})"\s*:')
_WRAPPERS = re.compile(
    r"(?:bytes\.NewBuffer|bytes\.NewReader|strings\.NewReader|bytes\.NewBufferString|string)\s*\("
)
_MARSHAL = re.compile(r"json\.Marshal(?:Indent)?\s*\(")
_MAX_LINES = 400  # how far after a request its ``RawQuery`` is looked for


def request_keys(
    reader: _GoReader, request: re.Match[str], method: str, url: str, body: tuple[int, int] | None
) -> Iterator[tuple[int, CallSite]]:
    """The query keys (`reader.encoded`, and a ``RawQuery`` set after the request) and the body
    keys (`body`, the body argument's span) of the request `request` matched."""
    lines = reader.lines
    names = list(reader.encoded)
    names += _raw_query(reader, request)
    for name, at in names[:8]:
        found = _values_keys(reader, name, at)
        keys = tuple(k for k, _ in found)
        for key, offset in found:
            yield key_site(lines, method, url, QUERY, key, offset, keys, "go")
    if body is not None and method in ("POST", "PUT", "PATCH"):
        found, complete = _body_keys(reader, *body)
        keys = tuple(k for k, _ in found)
        for key, offset in found:
            yield key_site(lines, method, url, BODY, key, offset, keys, "go", complete=complete)


def _body_keys(reader: _GoReader, start: int, end: int) -> tuple[list[tuple[str, int]], bool]:
    """The keys of the JSON a body argument marshals (a map literal's, or a struct type's tags),
    and whether they are all of its keys."""
    found = _marshalled_map(reader, start, end)
    if isinstance(found, str):
        return struct_keys(reader.text, found)
    return _map_keys(reader, *found) if found is not None else ([], False)


def _raw_query(reader: _GoReader, request: re.Match[str]) -> list[tuple[str, int]]:
    """``req.URL.RawQuery = q.Encode()`` after ``req, err := http.NewRequest(..)``."""
    text = reader.text
    line_start = text.rfind("\n", 0, request.start()) + 1
    held = re.match(r"\s*([A-Za-z_]\w*)\s*(?:,\s*\w+\s*)?:?=", text[line_start : request.start()])
    if held is None:
        return []
    pattern = re.compile(
        rf"\b{re.escape(held.group(1))}\.URL\.RawQuery\s*=\s*([A-Za-z_]\w*)\.Encode\(\)"
    )
    line, _ = reader.lines.position(request.start())
    end = (
        reader.lines.offset(line + _MAX_LINES)
        if line + _MAX_LINES < len(reader.lines.starts)
        else len(text)
    )
    func = re.compile(r"^func\b", re.M).search(text, request.end(), end)
    m = pattern.search(text, request.end(), func.start() if func is not None else end)
    return [(m.group(1), m.start(1))] if m is not None else []


def _values_keys(reader: _GoReader, name: str, at: int) -> list[tuple[str, int]]:
    """The keys a ``url.Values`` named `name` holds where it is encoded at `at`: its literal's
    keys and those set after it; nothing when its value is not seen."""
    found = reader.definition(name, at)
    if found is None:
        return []
    start, end = found
    value = reader.text[start:end].strip()
    keys: list[tuple[str, int]] = []
    if _VALUES.match(value):
        brace = reader.text.index("{", start)
        keys += _literal_keys(reader, brace)
    elif not _EMPTY_VALUES.search(value):
        return []
    setter = re.compile(rf"\b{re.escape(name)}\.(?:Set|Add)\(\s*\"([^\"\\\n]{{1,200}})\"")
    keys += [(m.group(1), m.start(1)) for m in setter.finditer(reader.text, end, at)]
    return keys


def _literal_keys(reader: _GoReader, brace: int) -> list[tuple[str, int]]:
    """The top-level string keys of the composite literal whose ``{`` is at `brace`."""
    close = reader.closing(brace)
    if close < 0:
        return []
    out = []
    for piece_start, piece_end in reader.split(brace + 1, close, ","):
        m = _KEY.match(reader.text, _skip_space(reader.text, piece_start), piece_end)
        if m is not None:
            out.append((m.group(1), m.start(1)))
    return out


def _marshalled_map(reader: _GoReader, start: int, end: int) -> tuple[int, int] | str | None:
    """The span of the map literal a body argument marshals, through ``bytes.NewBuffer(..)``,
    a name holding ``json.Marshal(..)`` and a name holding the map; or the name of the struct
    type ``json.Marshal`` is given (`go_structs`)."""
    marshalled = False
    text = reader.text
    for _ in range(6):
        start = _skip_space(text, start)
        while end > start and text[end - 1].isspace():
            end -= 1
        wrapper = _WRAPPERS.match(text, start, end) or _MARSHAL.match(text, start, end)
        if wrapper is not None and reader.closing(wrapper.end() - 1) == end - 1:
            args = reader.arguments(wrapper.end() - 1) or []
            if not args:
                return None
            marshalled = marshalled or _MARSHAL.match(text, start, end) is not None
            start, end = args[0]
            continue
        if _MAP.match(text, start, end):
            return start, end
        struct = struct_of(reader, start, end) if marshalled else None
        if struct is not None:
            return struct
        if _IDENT.fullmatch(text, start, end):
            found = reader.definition(text[start:end], start)
            if found is None:
                return None
            start, end = found
            continue
        return None
    return None


def _map_keys(reader: _GoReader, start: int, end: int) -> tuple[list[tuple[str, int]], bool]:
    """A map literal's keys, and whether they are all its keys (each one a literal)."""
    brace = _MAP.match(reader.text, start, end)
    if brace is None:
        return [], False
    open_at = brace.end() - 1
    close = reader.closing(open_at)
    pieces = reader.split(open_at + 1, close, ",") if close > 0 else []
    keys = _literal_keys(reader, open_at)
    written = [p for p in pieces if reader.text[p[0] : p[1]].strip()]
    # A map assigned to a name may get more keys later (`payload["x"] = ..`): not complete then.
    holder = re.match(
        r"\s*([A-Za-z_]\w*)\s*:?=", reader.text[reader.text.rfind("\n", 0, start) + 1 : start]
    )
    later = holder is not None and re.search(
        rf"\b{re.escape(holder.group(1))}\s*\[", reader.text[close : close + 4000]
    )
    return keys, bool(keys) and len(keys) == len(written) and not later


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at
