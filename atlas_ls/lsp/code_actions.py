"""textDocument/codeAction: open the docs of the identifier under the cursor, fix deprecations.

The "open" actions carry a command rather than an edit: the server runs it and asks the client to
show the document through window/showDocument, with the section's line selected, so every client
that supports showDocument opens the local markdown mirror at the right place.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from atlas_ls.lsp import diagnostics, handlers
from atlas_ls.lsp.cursor import cursor_at
from atlas_ls.lsp.resolve import file_uri, mirror_file

# At run time, not only for the type checker: pygls reads a command handler's annotations to
# convert its arguments, and they name the server class.
from atlas_ls.lsp.server import AtlasLanguageServer

if TYPE_CHECKING:
    from atlas_core.engine import Engine, Resolution

OPEN_DOCS = "atlas.openDocs"
OPEN_WEB = "atlas.openWeb"
SHOW_DOCUMENT_TIMEOUT_S = 30
MAX_LINE = 2**31  # 1-based; a position's line is an LSP uinteger, 2**31 - 1 at most


def doc_actions(
    engine: Engine, resolution: Resolution, subject: str = ""
) -> list[types.CodeAction]:
    """Open the best page of `resolution`; `subject` names it in the titles (the operation a
    call calls, ``DELETE /domains/bulk``) instead of the page's own name."""
    cand = resolution.best
    subject = subject or cand.name
    actions = []
    if cand.file:
        uri = file_uri(mirror_file(engine, cand.bundle, cand.file))
        title = f"Open Collibra docs for {subject}"
        actions.append(
            types.CodeAction(
                title=title,
                command=types.Command(
                    title=title, command=OPEN_DOCS, arguments=[uri, max(cand.line, 1)]
                ),
            )
        )
    if cand.url:
        title = f"Open {subject} on the web"
        actions.append(
            types.CodeAction(
                title=title,
                command=types.Command(title=title, command=OPEN_WEB, arguments=[cand.url]),
            )
        )
    return actions


def wanted(only: list[str] | None, kind: str) -> bool:
    """Whether a client's `context.only` filter admits an action of `kind` ("" for none)."""
    if not only:
        return True
    return any(kind == k or kind.startswith(k + ".") or k == "" for k in only)


def show_document_params(uri: str, line: int) -> types.ShowDocumentParams:
    position = types.Position(line=max(int(line), 1) - 1, character=0)
    return types.ShowDocumentParams(
        uri=uri,
        take_focus=True,
        selection=types.Range(start=position, end=position),
    )


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(
        server,
        types.TEXT_DOCUMENT_CODE_ACTION,
        "code actions",
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False
        ),
    )
    async def on_code_action(
        ls: AtlasLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        only = [str(getattr(k, "value", k)) for k in (params.context.only or [])] or None
        actions: list[types.CodeAction] = []
        if wanted(only, types.CodeActionKind.QuickFix.value):
            # The client's diagnostics for the range, and ours that it did not send back.
            diags = list(params.context.diagnostics or [])
            seen = {(_range_key(d.range), d.message) for d in diags}
            for diag in ls.diagnostics.published(uri):
                if (
                    _overlaps(diag.range, params.range)
                    and (_range_key(diag.range), diag.message) not in seen
                ):
                    diags.append(diag)
            actions.extend(diagnostics.quick_fixes(uri, diags))
        if wanted(only, ""):
            cursor = await cursor_at(ls, uri, params.range.start)
            if cursor is not None:
                # An HTTP call is named by its method and path; a client method by its name.
                target = cursor.target
                subject = target.endpoint if target is not None and target.site.url else ""
                actions.extend(doc_actions(cursor.engine, cursor.resolution, subject))
        return actions or None

    @handlers.command(server, OPEN_DOCS, "open docs")
    async def open_docs(ls: AtlasLanguageServer, uri: str, line: int = 1) -> dict[str, Any]:
        if line > MAX_LINE:
            raise JsonRpcInvalidParams(
                f"{OPEN_DOCS}: line {line} is past the last line a client can have"
            )
        return await show_document(ls, show_document_params(uri, line))

    @handlers.command(server, OPEN_WEB, "open on the web")
    async def open_web(ls: AtlasLanguageServer, url: str) -> dict[str, Any]:
        return await show_document(ls, types.ShowDocumentParams(uri=url, external=True))


async def show_document(
    ls: AtlasLanguageServer, params: types.ShowDocumentParams
) -> dict[str, Any]:
    """Ask the client to open a document (or a URL); a dict the command returns to it."""
    caps = ls.client_capabilities.window
    if not (caps and caps.show_document and caps.show_document.support):
        # The client cannot open documents for us; give the user the link to open by hand.
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info, message=f"Atlas docs: {params.uri}"
            )
        )
        return {"success": False, "uri": params.uri, "reason": "client has no window/showDocument"}
    try:
        result = await asyncio.wait_for(
            ls.window_show_document_async(params), SHOW_DOCUMENT_TIMEOUT_S
        )
    except (TimeoutError, JsonRpcException) as exc:  # no answer, or an error for one
        return {"success": False, "uri": params.uri, "reason": str(exc)}
    return {"success": bool(result and result.success), "uri": params.uri}


def _range_key(r: types.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)
