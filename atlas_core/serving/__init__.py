"""Serving a bundle to a long-running front end: which bundles to serve (`resolve_bundle_paths`),
the one reference a server holds (`EngineHolder`), opening engines in the background with
superseded loads and warm-up (`BundleLoader`), and hot reload (`BundleReloader`). Both the language
server and the MCP server use these; neither holds an engine any other way."""

from __future__ import annotations

from atlas_core.serving.holder import EngineHolder
from atlas_core.serving.loader import BundleLoader, LoadResult
from atlas_core.serving.locator import resolve_bundle_paths
from atlas_core.serving.reloader import BundleReloader, ReloadEvent

__all__ = [
    "BundleLoader",
    "BundleReloader",
    "EngineHolder",
    "LoadResult",
    "ReloadEvent",
    "resolve_bundle_paths",
]
