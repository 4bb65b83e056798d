"""PowerShell functions that run a web cmdlet with their parameters, read at their calls::

    function Get-Dgc([string]$Path, [string]$Method = 'GET') {
        Invoke-RestMethod -Method $Method -Uri "$Base/rest/2.0/$Path" -Headers $Headers
    }
    $tags = Get-Dgc "tags/asset/$assetId"        # GET {}/rest/2.0/tags/asset/{}
    Get-Dgc -Path "assets/$id" -Method Delete     # DELETE {}/rest/2.0/assets/{}

Each call of such a function is read as its cmdlet with the parameters bound to the call's
arguments (by name, or by position; a default where the call gives none), and what it finds is
reported where the call writes it: a path given at the call is the call's endpoint.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.site import ENDPOINT, CallSite
from atlas_core.recognize.calls.text_calls import Part

if TYPE_CHECKING:
    from atlas_core.recognize.calls.powershell import Reader

_DEFINITION = re.compile(r"^[ \t]*function\s+([\w-]+)[ \t]*(?:\(([^)]*)\))?", re.I | re.M)
_PARAM_BLOCK = re.compile(r"\s*(?:\[[^\]]*\]\s*)*param\s*\(", re.I)
_PARAMETER = re.compile(r"\$([A-Za-z_]\w*)(?:\s*=\s*('[^']*'|\"[^\"]*\"|[\w.]+))?")
_COMMAND = re.compile(r"(?<![\w$-])(?:Invoke-RestMethod|Invoke-WebRequest|irm|iwr)(?![\w-])", re.I)
_BARE_WORD = re.compile(r"[\w./?=&-]+")
_MAX_WRAPPERS = 32
_MAX_BODY = 20_000  # characters of one function looked through
_MAX_CALLS = 64  # calls of one wrapper read


@dataclass(frozen=True, slots=True)
class _Wrapper:
    name: str
    params: tuple[tuple[str, tuple[int, int] | None], ...]  # lowercased name, default's span
    command: int  # where its cmdlet's arguments start
    body: tuple[int, int]


def wrapper_calls(
    reader: Reader, deadline: float, start: int, end: int
) -> Iterator[tuple[int, CallSite]]:
    """The sites of the calls, written between offsets `start` and `end`, of the document's
    functions that run a web cmdlet."""
    text = reader.text
    if "function" not in reader.lower:
        return
    for wrapper in _wrappers(reader):
        own = {(site.method, site.url) for _, site in reader.call(wrapper.command)}
        pattern = re.compile(rf"(?<![\w$.-]){re.escape(wrapper.name)}(?![\w-])", re.I)
        for count, m in enumerate(pattern.finditer(text, start, end)):
            if count >= _MAX_CALLS or time.monotonic() > deadline:
                break
            if wrapper.body[0] <= m.start() < wrapper.body[1] or reader.in_comment(m.start()):
                continue
            if text[m.end() : m.end() + 1] not in (" ", "\t", "\r", "\n", ")", ""):
                continue
            yield from _call(reader, wrapper, m.start(), m.end(), own)


def _call(
    reader: Reader, wrapper: _Wrapper, at: int, after: int, own: set[tuple[str, str]]
) -> Iterator[tuple[int, CallSite]]:
    """The sites of one call of `wrapper`; its endpoint only where the call's arguments change
    the request the function's body reads by itself (`own`): a fixed one is the body's call."""
    arguments = reader.arguments(after)
    if not arguments:
        return
    text = reader.text
    bound: dict[str, tuple[int, int]] = {}
    names = [name for name, _ in wrapper.params]
    i = 0
    while i < len(arguments):
        first, last = arguments[i]
        token = text[first:last]
        if token.startswith("-") and len(token) > 1 and token[1].isalpha():
            name = token[1:].rstrip(":").lower()
            match = next((n for n in names if n == name), None) or next(
                (n for n in names if n.startswith(name)), None
            )
            if match is None or i + 1 >= len(arguments):
                return  # a switch or a parameter the function does not declare: unknown
            bound[match] = arguments[i + 1]
            i += 2
            continue
        # A positional argument takes the first parameter, in declaration order, that no
        # argument has bound yet (by name or by an earlier position).
        free = [n for n in names if n not in bound]
        if not free:
            return
        bound[free[0]] = (first, last)
        i += 1
    reader.bound = {name: _argument(reader, *span) for name, span in bound.items()}
    for name, default in wrapper.params:
        if name not in reader.bound:
            reader.bound[name] = _argument(reader, *default) if default else []
    try:
        found = list(reader.call(wrapper.command))
    finally:
        reader.bound = {}
    lo, hi = at, arguments[-1][1]
    spans = [bound[n] for n in names if n in bound]
    for line, site in found:
        offset = reader.lines.offset(line) + site.start
        if lo <= offset <= hi:
            yield line, site
        elif site.role == ENDPOINT and spans and (site.method, site.url) not in own:
            # the path is the function's: the call's endpoint is where it is called
            first = reader.lines.position(spans[0][0])
            start, end = spans[0]
            width = end - start if reader.lines.position(end)[0] == first[0] else 0
            site = CallSite(
                site.method, site.url, site.role, site.name, first[1], first[1] + width,
                site.client, site.language,
            )  # fmt: skip
            yield first[0], site


def _argument(reader: Reader, start: int, end: int) -> list[Part]:
    """A call's argument as a value: a bare word (``assets``) is a string in PowerShell."""
    token = reader.text[start:end]
    if _BARE_WORD.fullmatch(token) and not token.startswith("-"):
        return [Part(token, (start, end))]
    return reader.value(start, end, 1)


def _wrappers(reader: Reader) -> list[_Wrapper]:
    text = reader.text
    found: list[_Wrapper] = []
    for m in _DEFINITION.finditer(text):
        if len(found) >= _MAX_WRAPPERS:
            break
        open_at = text.find("{", m.end(), m.end() + 2000)
        if open_at < 0:
            continue
        close = _closing(text, open_at)
        command = _COMMAND.search(text, open_at, close)
        if command is None or reader.in_comment(command.start()):
            continue
        declared = m.group(2)
        offset = m.start(2)
        block = _PARAM_BLOCK.match(text, open_at + 1, close)
        if declared is None and block is not None:
            params_end = _closing(text, block.end() - 1, "(", ")")
            declared, offset = text[block.end() : params_end], block.end()
        params = tuple(
            (
                p.group(1).lower(),
                (offset + p.start(2), offset + p.end(2)) if p.group(2) else None,
            )
            for p in _PARAMETER.finditer(declared or "")
        )
        if params:
            found.append(_Wrapper(m.group(1), params, command.end(), (m.start(), close)))
    return found


def _closing(text: str, open_at: int, opener: str = "{", closer: str = "}") -> int:
    """The offset just past the bracket that closes the one at `open_at` (quotes skipped)."""
    depth, quote = 0, ""
    limit = min(len(text), open_at + _MAX_BODY)
    for i in range(open_at, limit):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i + 1
    return limit
