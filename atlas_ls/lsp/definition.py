"""textDocument/definition (go-to-doc): where the identifier under the cursor is documented."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.types import Candidate
from atlas_ls.lsp import handlers
from atlas_ls.lsp.cursor import cursor_at
from atlas_ls.lsp.resolve import file_uri, mirror_file

if TYPE_CHECKING:
    from atlas_core.engine import Engine, Resolution
    from atlas_ls.lsp.server import AtlasLanguageServer


def doc_location(engine: Engine, cand: Candidate) -> types.Location | None:
    """The mirror file and line a candidate points to; None when it names no file."""
    if not cand.file:
        return None
    line = max(cand.line, 1) - 1
    position = types.Position(line=line, character=0)
    return types.Location(
        uri=file_uri(mirror_file(engine, cand.bundle, cand.file)),
        range=types.Range(start=position, end=position),
    )


def definition_result(engine: Engine, resolution: Resolution) -> types.Location | None:
    # One location, the best one: several make Neovim and VS Code open a picker for what is
    # almost always the same section (GET and DELETE of one path documented together).
    for cand in resolution.candidates:
        location = doc_location(engine, cand)
        if location is not None:
            return location
    return None


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(server, types.TEXT_DOCUMENT_DEFINITION, "go to definition")
    async def on_definition(
        ls: AtlasLanguageServer, params: types.DefinitionParams
    ) -> types.Location | None:
        cursor = await cursor_at(ls, params.text_document.uri, params.position)
        if cursor is None:
            return None
        return definition_result(cursor.engine, cursor.resolution)
