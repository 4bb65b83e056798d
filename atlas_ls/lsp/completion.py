"""textDocument/completion: endpoint templates inside string literals that start like a REST path.

``"/rest/2.0/as`` offers ``/rest/2.0/assets`` and ``/rest/2.0/assets/{assetId}``, one item per
path with its methods as detail and their summaries as documentation. The prefix is kept as typed:
a user who writes ``/rest/2.0`` gets it, one who writes ``/assets`` (after a base URL variable)
does not.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.recognize.registry import MAX_LINE_WINDOW
from atlas_core.recognize.text_scan import string_at
from atlas_core.types import Candidate
from atlas_ls.lsp import handlers
from atlas_ls.lsp.cursor import code_point_position
from atlas_ls.lsp.documents import Snapshot, column_to_client

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_ls.lsp.server import AtlasLanguageServer

MAX_ITEMS = 100
REST_PREFIX = "/rest/2.0"
_BASE = re.compile(
    r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://[^/\s\"'`]*|(?:\$\{[^{}]*\}|\{[^{}]*\}|\$[A-Za-z_]\w*)+)"
)
_TYPED_PATH = re.compile(r"/[A-Za-z0-9_.~\-/{}$<>:]*")


def path_prefix(text_before_cursor: str) -> str | None:
    """The REST path typed so far in a string, after any base URL; None if it is not one."""
    m = _BASE.match(text_before_cursor)
    rest = text_before_cursor[m.end() :] if m else text_before_cursor
    if not _TYPED_PATH.fullmatch(rest):
        return None
    if len(rest) < 2 and not m:
        return None  # a lone "/" is every string that starts a path; wait for one more character
    return rest


def _documentation(cands: list[Candidate]) -> str:
    parts = []
    for c in cands:
        summary = " ".join(c.summary.split())
        if len(summary) > 400:
            summary = summary[:399] + "…"
        parts.append(f"**{c.method or c.kind}** `{c.path or c.name}` — {summary}".rstrip(" —"))
    return "\n\n".join(parts)


def completion_items(
    engine: Engine,
    snapshot: Snapshot,
    line: int,
    column: int,
    encoding: str,
    *,
    deprecated_tag: bool = False,
) -> types.CompletionList | None:
    if line >= len(snapshot.lines):
        return None
    text = snapshot.lines[line]
    # The string scanner walks the line from its start: on a 5 MB minified line it looks at the
    # stretch before the cursor only, as the recognisers do.
    offset = max(0, column - MAX_LINE_WINDOW) if len(text) > 2 * MAX_LINE_WINDOW else 0
    span = string_at(text[offset : column + MAX_LINE_WINDOW], column - offset, snapshot.language_id)
    if span is None or not span.start <= column - offset <= span.end:
        return None
    typed = text[offset + span.start : column]
    prefix = path_prefix(typed)
    if prefix is None:
        return None
    candidates = engine.endpoints(prefix, limit=MAX_ITEMS)
    if not candidates:
        return None
    keep_prefix = prefix.startswith(REST_PREFIX) or REST_PREFIX.startswith(prefix.rstrip("/"))
    if prefix.startswith("/rest/") and not prefix.startswith(REST_PREFIX):
        keep_prefix = False
    by_path: dict[str, list[Candidate]] = {}
    for cand in candidates:
        template = cand.path or cand.name.partition(" ")[2] or cand.name
        group = by_path.setdefault(template, [])
        # Several pages may document one endpoint; the first (the engine's best) speaks for it.
        if all(c.method != cand.method for c in group):
            group.append(cand)
    start_col = column - len(prefix)
    edit_range = types.Range(
        start=types.Position(line, column_to_client(text, start_col, encoding)),
        end=types.Position(line, column_to_client(text, column, encoding)),
    )
    items = []
    for index, (template, cands) in enumerate(by_path.items()):
        insert = (REST_PREFIX + template) if keep_prefix else template
        methods = ", ".join(c.method for c in cands if c.method)
        items.append(
            types.CompletionItem(
                label=insert,
                kind=types.CompletionItemKind.Reference,
                detail=methods or None,
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value=_documentation(cands)
                ),
                filter_text=insert,
                sort_text=f"{index:04d}",
                text_edit=types.TextEdit(range=edit_range, new_text=insert),
                tags=(
                    [types.CompletionItemTag.Deprecated]
                    if deprecated_tag and all(c.deprecated for c in cands)
                    else None
                ),
            )
        )
    return types.CompletionList(is_incomplete=len(candidates) >= MAX_ITEMS, items=items)


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(
        server,
        types.TEXT_DOCUMENT_COMPLETION,
        "completion",
        types.CompletionOptions(trigger_characters=["/", '"', "'", "`"]),
    )
    async def on_completion(
        ls: AtlasLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        engine = await ls.engine()
        snap = await ls.snapshot(params.text_document.uri) if engine is not None else None
        if engine is None or snap is None:
            return None
        encoding = ls.position_encoding
        where = code_point_position(snap, params.position, encoding)
        if where is None:
            return None
        caps = ls.client_capabilities.text_document
        item_caps = caps.completion.completion_item if caps and caps.completion else None
        tag_support = bool(item_caps and item_caps.tag_support)
        return completion_items(
            engine, snap, where[0], where[1], encoding, deprecated_tag=tag_support
        )
