"""Hovers that follow the call the cursor is in, where the name alone would mislead: a key the
call's operation does not document (never another operation's parameter of the same name), and
a literal value of a documented parameter (the parameter, with every value it takes)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_ls.lsp.resolve import file_uri, mirror_file

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_core.identifiers import CallTarget
    from atlas_ls.lsp.documents import Snapshot
    from atlas_ls.lsp.server import AtlasLanguageServer

MAX_CLOSEST = 3
WINDOW = 512  # characters of the line read on each side of the cursor for a value
MAX_LISTED = 12
_PLACES = {"query": "query parameter", "body": "request body property", "path": "path parameter"}
_PLACES["header"] = "header"
# A key and the start of its literal value, up to the cursor: ``"nameMatchMode": "EXA`` or
# ``name_match_mode="EXA`` (the value's opening quote is the last one before the cursor).
_KEY_BEFORE_VALUE = re.compile(
    r"""(["']?)([A-Za-z_$][\w$.\-]{0,199})\1\s*(?::|=>?)\s*\[?\s*(["'`])([^"'`\n]{0,200})$"""
)


def _links(engine: Engine, target: CallTarget) -> str:
    op = target.operation
    links = []
    if op.file:
        path = mirror_file(engine, op.bundle, op.file)
        links.append(f"[{op.file}:{max(op.line, 1)}]({file_uri(path)}#L{max(op.line, 1)})")
    if op.url:
        links.append(f"[Open on the web]({op.url})")
    return " · ".join(links)


def undocumented_markdown(engine: Engine, target: CallTarget) -> str:
    """`typeId` in a call of GET /attributes: not one of its query parameters, and the ones it
    has that are spelled closest."""
    site = target.site
    place = _PLACES.get(site.role, "parameter")
    op = target.operation
    call = f"**{op.method}** `{op.path}`"
    blocks = [f"`{site.name}` is not a {place} of {call}: the docs do not document it there."]
    links = _links(engine, target)  # the operation's page, first: what definition opens
    if links:
        blocks.append(links)
    closest = ", ".join(f"`{n}`" for n in target.documented[:MAX_CLOSEST])
    blocks.append(f"Closest {place} names of {op.method} {op.path}: {closest}.")
    if len(target.documented) > MAX_CLOSEST:
        listed = sorted(target.documented)[:MAX_LISTED]
        more = " …" if len(target.documented) > MAX_LISTED else ""
        blocks.append("It takes " + ", ".join(f"`{n}`" for n in listed) + more + ".")
    return "\n\n".join(blocks)


async def value_target_at(
    ls: AtlasLanguageServer, engine: Engine, snap: Snapshot, line: int, column: int
) -> tuple[CallTarget, str, int] | None:
    """The documented enum parameter whose literal value the cursor is on, the value and the
    column it starts at; None elsewhere (the key must be one the call reader sees in a call the
    docs document)."""
    text = snap.lines[line] if 0 <= line < len(snap.lines) else ""
    # A key and its value fit in this much of the line: a 5 MB minified line costs no more.
    begin = max(0, column - WINDOW)
    m = _KEY_BEFORE_VALUE.search(text, begin, column)
    if m is None:
        return None
    quote = m.group(3)
    close = text.find(quote, column, column + WINDOW)
    if close < 0:
        return None
    value = m.group(4) + text[column:close]
    site = await ls.calls.site_at(snap, line, m.start(2))
    if site is None or site.name != m.group(2):
        return None
    target = engine.resolve_call(site, define=False)
    if target is None or target.param is None or not target.param.enum:
        return None
    return target, value, m.start(4)


def value_markdown(target: CallTarget, value: str) -> str:
    """The first lines of a value's hover: whether the parameter takes it, and every value it
    takes (the parameter's own hover follows)."""
    assert target.param is not None
    param = target.param
    values = ", ".join(f"`{v}`" for v in param.enum)
    verdict = "one of the values" if value in param.enum else "**not** one of the values"
    return f"`{value}` is {verdict} of `{param.name}` ({target.label}): {values}."
