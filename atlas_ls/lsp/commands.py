"""The commands a user runs when something looks wrong: ``atlas.reload`` opens the bundle again,
``atlas.debugInfo`` says what the server is serving and how it is set up."""

from __future__ import annotations

import gc
import os
import sys
from typing import Any

from lsprotocol import types

from atlas_core.errors import AtlasError
from atlas_ls.lsp import handlers

# At run time, not only for the type checker: pygls reads a command handler's annotations to
# convert its arguments, and they name the server class.
from atlas_ls.lsp.server import VERSION, AtlasLanguageServer

RELOAD = "atlas.reload"
DEBUG_INFO = "atlas.debugInfo"
# Modules the language server has no use for: the model runtimes, the array libraries, what only
# the MCP server (mcp, uvicorn, starlette) or a build (yaml front matter, the chunker, the crawler,
# the code indexer) imports. debugInfo says which of them a server has loaded after all.
_WATCHED_MODULES = (
    "onnxruntime",
    "tokenizers",
    "torch",
    "mlx",
    "numpy",
    "pyarrow",
    "rapidfuzz",
    "mcp",
    "uvicorn",
    "starlette",
    "yaml",
    "atlas_core.build",
    "atlas_core.crawl",
    "atlas_core.embed",
    "atlas_core.markdown.chunker",
    "atlas_core.sources.code_chunks",
    "importlib.metadata",  # and the email, zipfile and csv modules it imports
    "email",
    "zipfile",
    "importlib.resources",  # a tree-sitter grammar package's __init__ imports it, and tempfile
    "tempfile",
    "atlas_core.identifiers.extract.mention_scan",  # the bundle build's page scanner
    "atlas_ls.lsp.typed_call",  # completion's and signature help's reader, made on first use
    "atlas_core.recognize.typed",  # where the cursor is in a call being typed, with it
    "atlas_core.pages.grep",  # the MCP file tools' text search
    "argparse",  # editors' command lines are read without it (lsp.__main__.parse_args)
    "shutil",  # with bz2 and lzma: only builds and installs copy or remove trees
    "hashlib",  # only builds, downloads and `atlas index` hash
)


def register(server: AtlasLanguageServer) -> None:
    @handlers.command(server, RELOAD, "reload")
    def reload(ls: AtlasLanguageServer, *args: Any) -> dict[str, Any]:
        ls.bundles.request(force=True)
        return {"reloading": True, "bundle": list(ls.bundles.requested_paths())}

    @handlers.command(server, DEBUG_INFO, "debug info")
    def debug(ls: AtlasLanguageServer, *args: Any) -> dict[str, Any]:
        info = debug_info(ls)
        # Also in the client's log, for editors that do not show a command's result.
        bundle = info["bundle"] or {}
        ls.messages.log(
            types.MessageType.Info,
            f"Atlas {info['version']}: bundle {bundle.get('name') or '-'} "
            f"({', '.join(info['bundle_paths']) or 'none'}), generation {info['generation']}, "
            f"last error: {info['last_error'] or 'none'}, recognisers: "
            f"{', '.join(info['recognizers'])}",
        )
        return info


def debug_info(ls: AtlasLanguageServer) -> dict[str, Any]:
    engine = ls.holder.engine
    info: dict[str, Any] | None = None
    if engine is not None:
        try:
            raw = engine.info()
            info = {
                "name": raw.name,
                "path": raw.path,
                "identifiers": raw.identifiers,
                "backend": raw.backend,
            }
        except AtlasError as exc:
            info = {"error": str(exc)}
    settings = ls.settings
    return {
        "pid": os.getpid(),
        "version": VERSION,
        "python": sys.version.split()[0],
        "modules": {name: name in sys.modules for name in _WATCHED_MODULES},
        # The collector is off during startup (see __main__); it must be back on after it.
        "gc": {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()},
        "bundle": info,
        "bundle_paths": list(ls.loader.paths),
        "generation": ls.holder.generation,
        "last_error": ls.holder.last_error,
        "loading": ls.loader.loading(),
        "position_encoding": ls.position_encoding,
        "settings": {
            "bundle": list(settings.bundle),
            "maxResults": settings.max_symbol_results,
            "recognizers": sorted(settings.recognizers_enabled)
            if settings.recognizers_enabled is not None
            else None,
            "diagnostics": settings.diagnostics_enabled,
        },
        "recognizers": [r.name for r in ls.recognizers.active()],
        "plugins": [
            {"name": p.name, "value": p.value, "loaded": p.loaded, "error": p.error}
            for p in ls.recognizers.plugins
        ],
    }
