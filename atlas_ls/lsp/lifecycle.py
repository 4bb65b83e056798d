"""initialize and initialized: the server takes the client's settings and starts serving a bundle.

The first bundle usually started opening in ``main`` before the client connected; `initialize`
asks for it again (a no-op then) unless the settings name another, and `initialized` shows the
client the load still under way, or tells it about the one that finished before it could hear.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_ls.lsp import handlers, settings

if TYPE_CHECKING:
    from atlas_ls.lsp.server import AtlasLanguageServer


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(server, types.INITIALIZE, "initialize")
    def on_initialize(ls: AtlasLanguageServer, params: types.InitializeParams) -> None:
        ls.attach_loop()
        settings.initialize(ls, params.initialization_options)
        if not ls.settings.bundle:
            ls.bundles.request()  # one the settings name was requested as they were installed

    @handlers.notification(server, types.INITIALIZED, "initialized")
    async def on_initialized(ls: AtlasLanguageServer, params: types.InitializedParams) -> None:
        ls.attach_loop()
        ls.initialized = True
        if ls.init_problems:
            ls.messages.show(types.MessageType.Warning, ls.init_problems)
        await settings.pull(ls)
        ls.bundles.client_ready()
