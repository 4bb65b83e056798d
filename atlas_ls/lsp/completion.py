"""textDocument/completion: what the API takes, where the code is writing a request.

- A key of a call's params or body (``params={"na``, ``json={`` then a new line): the query
  parameters or request-body properties of the operation the call's method and URL name, required
  ones first, those already written left out.
- A value of an enum parameter or property (``"nameMatchMode": "``): its values.
- A string that starts like a REST path: endpoint templates (``"/rest/2.0/as`` offers
  ``/rest/2.0/assets`` and ``/rest/2.0/assets/{assetId}``), one item per path with its methods as
  detail and their summaries as documentation; inside a call whose method is known, only the
  paths that take it. The prefix is kept as typed: a user who writes ``/rest/2.0`` gets it, one
  who writes ``/assets`` (after a base URL variable) does not.

Where the call is half-typed, `typed_call` reads it; where no operation fits, there is no item.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.recognize import MAX_LINE_WINDOW, QUERY, string_at
from atlas_core.search import MAX_LIMIT
from atlas_core.types import Candidate, Param
from atlas_ls.lsp import handlers
from atlas_ls.lsp.cursor import client_range, code_point_position
from atlas_ls.lsp.documents import Snapshot, column_to_client

if TYPE_CHECKING:
    from atlas_core.apicheck import Operation
    from atlas_core.engine import Engine
    from atlas_core.recognize import CallSite
    from atlas_ls.lsp.server import AtlasLanguageServer
    from atlas_ls.lsp.typed_call import TypedCall

MAX_ITEMS = 100
MAX_ENUM_SHOWN = 30
MAX_DESCRIPTION_CHARS = 1500
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
# `fetch(url)` sends GET, but while its URL is typed the options that may change that are not
# written yet: its method is trusted only once an option names one.
_FETCH_OPEN = re.compile(r"\bfetch\s*\(\s*$")
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


def typed_path(snapshot: Snapshot, line: int, column: int) -> str | None:
    """The REST path typed so far in the string literal the cursor is in, or None."""
    if line >= len(snapshot.lines):
        return None
    text = snapshot.lines[line]
    # The string scanner walks the line from its start: on a 5 MB minified line it looks at the
    # stretch before the cursor only, as the recognisers do.
    offset = max(0, column - MAX_LINE_WINDOW) if len(text) > 2 * MAX_LINE_WINDOW else 0
    span = string_at(text[offset : column + MAX_LINE_WINDOW], column - offset, snapshot.language_id)
    if span is None or not span.start <= column - offset <= span.end:
        return None
    return path_prefix(text[offset + span.start : column])


def completion_items(
    engine: Engine,
    snapshot: Snapshot,
    line: int,
    column: int,
    encoding: str,
    *,
    deprecated_tag: bool = False,
    method: str = "",
) -> types.CompletionList | None:
    """Endpoint templates for the REST path typed at the cursor; with `method`, only the paths
    that take it."""
    prefix = typed_path(snapshot, line, column)
    if prefix is None:
        return None
    text = snapshot.lines[line]
    limit = MAX_LIMIT if method else MAX_ITEMS
    found = engine.endpoints(prefix, limit=limit)
    candidates = [c for c in found if c.method == method] if method else found
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
    for index, (template, cands) in enumerate(list(by_path.items())[:MAX_ITEMS]):
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
    incomplete = len(found) >= limit or len(by_path) > MAX_ITEMS
    return types.CompletionList(is_incomplete=incomplete, items=items)


# --- keys and values of a call's params and body ------------------------------------------------


def operation_keys(op: Operation, site: CallSite) -> tuple[Param, ...]:
    """The keys the call's params (query parameters) or body (top-level properties) may have."""
    if site.role == QUERY:
        return op.query_params()
    return op.body or ()


def type_label(param: Param) -> str:
    return param.type or "any"


def param_markdown(param: Param) -> str:
    """A parameter's documentation: description, values, default, deprecation."""
    parts = []
    description = param.description.strip()
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 1] + "…"
    if description:
        parts.append(description)
    fmt = param.format if param.format and param.format not in param.type else ""
    facts = [f"Type: `{type_label(param)}`" + (f" ({fmt})" if fmt else "")]
    facts[0] += " · required" if param.required else " · optional"
    if param.enum:
        shown = ", ".join(f"`{v}`" for v in param.enum[:MAX_ENUM_SHOWN])
        more = len(param.enum) - MAX_ENUM_SHOWN
        facts.append("Values: " + shown + (f" and {more} more" if more > 0 else ""))
    if param.default:
        facts.append(f"Default: `{param.default}`")
    if param.deprecated:
        facts.append("**Deprecated.**")
    parts.append("\n\n".join(facts))
    return "\n\n".join(parts)


def _quoted(value: str, language: str) -> str:
    return json.dumps(value) if language == "python" or not _IDENTIFIER.fullmatch(value) else value


def key_items(
    op: Operation,
    typed: TypedCall,
    snapshot: Snapshot,
    encoding: str,
    *,
    deprecated_tag: bool,
) -> types.CompletionList | None:
    """The keys of the operation's params or body not yet written, required ones first."""
    site, typing = typed.site, typed.typing
    written = set(site.path_keys)
    keys = [(index, p) for index, p in enumerate(operation_keys(op, site)) if p.name not in written]
    if not keys:
        return None
    keys.sort(key=lambda pair: (not pair[1].required, pair[0]))
    if typing.quote:
        # Inside the quotes: the word and a closing quote, which an unclosed key gets here.
        edit_range = client_range(snapshot, typing.line, typing.start, typing.word_end, encoding)
    else:
        edit_range = client_range(snapshot, typing.line, typing.start, typing.end, encoding)
    kind = (
        types.CompletionItemKind.Field if site.role == QUERY else types.CompletionItemKind.Property
    )
    items = []
    for rank, (_index, param) in enumerate(keys):
        name, struck = param.name, param.deprecated
        new_text = name + typing.quote if typing.quote else _quoted(name, site.language)
        items.append(
            types.CompletionItem(
                label=name,
                kind=kind,
                detail=type_label(param) + (" (required)" if param.required else ""),
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value=param_markdown(param)
                ),
                filter_text=name,
                sort_text=f"{rank:04d}",
                text_edit=types.TextEdit(range=edit_range, new_text=new_text),
                tags=[types.CompletionItemTag.Deprecated] if struck and deprecated_tag else None,
                deprecated=True if struck and not deprecated_tag else None,
            )
        )
    return types.CompletionList(is_incomplete=False, items=items)


def value_items(
    op: Operation, typed: TypedCall, snapshot: Snapshot, encoding: str
) -> types.CompletionList | None:
    """The values of the enum parameter or property whose value the cursor is writing."""
    site, typing = typed.site, typed.typing
    param = next((p for p in operation_keys(op, site) if p.name == typing.key), None)
    if param is None or not param.enum:
        return None
    edit_range = client_range(
        snapshot,
        typing.line,
        typing.start,
        typing.word_end if typing.quote else typing.end,
        encoding,
    )
    documentation = types.MarkupContent(kind=types.MarkupKind.Markdown, value=param_markdown(param))
    items = []
    for rank, value in enumerate(param.enum[:MAX_ITEMS]):
        new_text = value + typing.quote if typing.quote else json.dumps(value)
        items.append(
            types.CompletionItem(
                label=value,
                kind=types.CompletionItemKind.EnumMember,
                detail=f"{param.name}" + (" (default)" if value == param.default else ""),
                documentation=documentation,
                filter_text=value,
                sort_text=f"{rank:04d}",
                text_edit=types.TextEdit(range=edit_range, new_text=new_text),
            )
        )
    return types.CompletionList(is_incomplete=False, items=items)


def trusted_method(site: CallSite, snapshot: Snapshot, line: int, column: int) -> str:
    """The method of the call whose URL the cursor is typing, when the code says it."""
    if site.language in ("javascript", "typescript"):
        text = snapshot.lines[line]
        span = string_at(text, column, site.language) if len(text) <= MAX_LINE_WINDOW else None
        if span is not None and _FETCH_OPEN.search(text[: span.quote_start]):
            rest = text[span.end :]
            if "method" not in rest:
                return ""
    return site.method


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
        line, column = where
        caps = ls.client_capabilities.text_document
        item_caps = caps.completion.completion_item if caps and caps.completion else None
        tag_support = bool(item_caps and item_caps.tag_support)
        from atlas_ls.lsp import typed_call  # with the call reader: imported on first use

        typed = await ls.typed_calls.at(snap, line, column)
        if typed is not None:
            op = engine.api_operation(typed.site.method, typed.site.url)
            if op is None:
                return None
            if typed.typing.kind == typed_call.KEY:
                return key_items(op, typed, snap, encoding, deprecated_tag=tag_support)
            return value_items(op, typed, snap, encoding)
        method = ""
        if typed_path(snap, line, column) is not None:
            site = await ls.typed_calls.endpoint(snap, line, column)
            method = trusted_method(site, snap, line, column) if site is not None else ""
        return completion_items(
            engine, snap, line, column, encoding, deprecated_tag=tag_support, method=method
        )
