"""The server with every feature registered: each module's ``register(server)`` adds its handlers.

A feature module holds one LSP feature: the handlers it registers (through `handlers`, so every
failure is reported the same way) and the adapter that turns the engine's typed values into
protocol types. Handlers call public methods of the server, the engine and the serving layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from atlas_core.serving import BundleLoader, EngineHolder
from atlas_ls.lsp import (
    code_actions,
    commands,
    completion,
    definition,
    diagnostics,
    hover,
    lifecycle,
    settings,
    signature,
    workspace_symbol,
)
from atlas_ls.lsp.server import AtlasLanguageServer

if TYPE_CHECKING:
    from atlas_core.engine import Engine

FEATURES = (
    lifecycle,
    settings,
    diagnostics,
    hover,
    definition,
    workspace_symbol,
    code_actions,
    completion,
    signature,
    commands,
)


def create_server(
    cli_bundles: Sequence[str] = (),
    *,
    loader: BundleLoader | None = None,
    holder: EngineHolder[Engine] | None = None,
) -> AtlasLanguageServer:
    """Build the server with every feature registered (tests and `main` both use this)."""
    server = AtlasLanguageServer(cli_bundles=cli_bundles, holder=holder, loader=loader)
    for feature in FEATURES:
        feature.register(server)
    return server
