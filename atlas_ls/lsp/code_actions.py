"""textDocument/codeAction: open the docs of the identifier under the cursor, fix deprecations.

The "open" actions carry a command rather than an edit: the server runs it and asks the client to
show the document through window/showDocument, with the section's line selected, so every client
that supports showDocument opens the local markdown mirror at the right place.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from atlas_ls.lsp.resolve import Resolution, file_uri, mirror_file

OPEN_DOCS = "atlas.openDocs"
OPEN_WEB = "atlas.openWeb"


def doc_actions(engine: Any, resolution: Resolution) -> list[types.CodeAction]:
    cand = resolution.best
    actions = []
    if cand.file:
        uri = file_uri(mirror_file(engine, cand.bundle, cand.file))
        title = f"Open Collibra docs for {cand.name}"
        actions.append(
            types.CodeAction(
                title=title,
                command=types.Command(
                    title=title, command=OPEN_DOCS, arguments=[uri, max(cand.line, 1)]
                ),
            )
        )
    if cand.url:
        title = f"Open {cand.name} on the web"
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
