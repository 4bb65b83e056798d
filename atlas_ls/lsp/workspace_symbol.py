"""workspace/symbol: fuzzy search over the bundle's identifier table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.types import Symbol
from atlas_ls.lsp import handlers
from atlas_ls.lsp.resolve import file_uri, mirror_file

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_ls.lsp.server import AtlasLanguageServer

SYMBOL_KINDS: dict[str, types.SymbolKind] = {
    "endpoint": types.SymbolKind.Method,
    "operation": types.SymbolKind.Function,
    "schema": types.SymbolKind.Struct,
    "type": types.SymbolKind.Class,
    "json_key": types.SymbolKind.Field,
    "cli": types.SymbolKind.Module,
    "graphql": types.SymbolKind.Property,
    "heading": types.SymbolKind.String,  # as markdown servers show headings
    # Definitions in the project's own code (atlas.workspaceSymbols.project).
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "class": types.SymbolKind.Class,
}


def symbol_kind(kind: str) -> types.SymbolKind:
    return SYMBOL_KINDS.get(kind, types.SymbolKind.Key)


def to_symbol_information(engine: Engine, symbol: Symbol) -> types.SymbolInformation:
    line = max(symbol.line, 1) - 1
    position = types.Position(line=line, character=0)
    # A project's definition opens the file in the repository, not the bundle's copy of it.
    source = engine.project_file(symbol.bundle, symbol.file)
    return types.SymbolInformation(
        name=symbol.name,
        kind=symbol_kind(symbol.kind),
        location=types.Location(
            uri=file_uri(source or mirror_file(engine, symbol.bundle, symbol.file)),
            range=types.Range(start=position, end=position),
        ),
        container_name=symbol.container or None,
    )


def workspace_symbols(
    engine: Engine, query: str, limit: int, *, project: bool = False
) -> list[types.SymbolInformation]:
    symbols = engine.symbols(query, limit=limit, project=project)
    return [to_symbol_information(engine, s) for s in symbols[:limit] if s.file]


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(server, types.WORKSPACE_SYMBOL, "workspace symbols")
    async def on_workspace_symbol(
        ls: AtlasLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation] | None:
        engine = await ls.engine()
        if engine is None:
            return []
        settings = ls.settings
        return workspace_symbols(
            engine, params.query, settings.max_symbol_results, project=settings.project_symbols
        )
