"""textDocument/definition (go-to-doc): where the identifier under the cursor is documented, the
page and line its hover links (`atlas_ls.lsp.answer`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_ls.lsp import handlers
from atlas_ls.lsp.answer import Place, answer_at
from atlas_ls.lsp.resolve import file_uri, mirror_file

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_ls.lsp.server import AtlasLanguageServer


def doc_location(engine: Engine, place: Place) -> types.Location:
    """The mirror file and line of a place."""
    position = types.Position(line=place.line - 1, character=0)
    return types.Location(
        uri=file_uri(mirror_file(engine, place.bundle, place.file)),
        range=types.Range(start=position, end=position),
    )


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(server, types.TEXT_DOCUMENT_DEFINITION, "go to definition")
    async def on_definition(
        ls: AtlasLanguageServer, params: types.DefinitionParams
    ) -> types.Location | None:
        # One location, the one the hover links: several make Neovim and VS Code open a picker
        # for what is almost always the same section (GET and DELETE of one path together).
        answer = await answer_at(ls, params.text_document.uri, params.position)
        if answer is None or answer.place is None:
            return None
        return doc_location(answer.engine, answer.place)
