"""Serving a bundle to a long-running front end: which bundles to serve (`resolve_bundle_paths`),
the one reference a server holds (`EngineHolder`), opening engines in the background with
superseded loads and warm-up (`BundleLoader`), and hot reload (`BundleReloader`). Both the language
server and the MCP server use these; neither holds an engine any other way.

The names are imported on first use: a language server's first hover needs the loader, not the
hot reload that starts after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.serving.holder import EngineHolder
    from atlas_core.serving.loader import BundleLoader, LoadResult, open_engine
    from atlas_core.serving.locator import resolve_bundle_paths
    from atlas_core.serving.reloader import BundleReloader, ReloadEvent

__all__ = [
    "BundleLoader",
    "BundleReloader",
    "EngineHolder",
    "LoadResult",
    "ReloadEvent",
    "open_engine",
    "resolve_bundle_paths",
]
__getattr__ = lazy_exports(
    __name__,
    {
        "open_engine": "loader",
        "BundleLoader": "loader",
        "BundleReloader": "reloader",
        "EngineHolder": "holder",
        "LoadResult": "loader",
        "ReloadEvent": "reloader",
        "resolve_bundle_paths": "locator",
    },
)
