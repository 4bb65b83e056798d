"""Which bundle the server serves, and what the client hears about it.

Loads go through the serving layer's `BundleLoader` (a changed ``atlas.bundle`` setting, the
``atlas.reload`` command, the first load that ``main`` starts before the client connects); hot
reloads through a `BundleReloader` watching the served paths. Both report on other threads; their
outcome is handed to the event loop, where the client sees $/progress while a bundle opens, the
outcome in its log (or a message when it failed), and diagnostics recomputed on the new bundle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.demo import DEMO_NOTE
from atlas_core.errors import AtlasError
from atlas_core.serving import LoadResult, open_engine
from atlas_ls.lsp.progress import ProgressReporter

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_core.serving import BundleReloader, ReloadEvent
    from atlas_ls.lsp.server import AtlasLanguageServer

LOAD = "load"  # progress keys: one load and one hot reload may be under way at a time
RELOAD = "reload"
# How long after the first bundle is in the watch for new ones starts (see `_watch_soon`).
WATCH_START_DELAY_S = 0.5
LOADING_MESSAGE = "Loading the Collibra docs bundle…"
FAILED_MESSAGE = "Failed to load the bundle"
DEMO_NOTICE = (
    "Atlas: no bundle is configured; building the embedded demo bundle (first use). "
    "Set atlas.bundle or run `atlas download` for the Collibra docs."
)
SERVING_DEMO = (
    f"Atlas is serving {DEMO_NOTE}. Run `atlas download` for the Collibra docs, or set "
    "atlas.bundle to a bundle."
)


class ServedBundles:
    def __init__(self, server: AtlasLanguageServer) -> None:
        self._server = server
        self.progress = ProgressReporter(server)
        self.reloader: BundleReloader | None = None
        self._watch_pending: asyncio.TimerHandle | None = None  # the first watch, until it starts
        self._announced = 0  # the last load seq the client was told about
        self._demo_requested = False
        self._demo_announced = False  # SERVING_DEMO is shown once per session
        server.loader.listeners.append(
            lambda result: server.call_soon("loading the bundle", self._on_load, result)
        )
        server.loader.on_demo_build = lambda: server.call_soon(
            "building the demo bundle", server.messages.show, types.MessageType.Info, DEMO_NOTICE
        )

    def requested_paths(self) -> tuple[str, ...]:
        """The bundle paths the settings ask for: editor setting, then --bundle, then default."""
        return self._server.settings.bundle or self._server.cli_bundles

    def request(self, *, force: bool = False, allow_demo: bool = False) -> None:
        """Open the requested bundles unless they are what is served (always, with `force`)."""
        loader = self._server.loader
        future = loader.request(self.requested_paths(), force=force, allow_demo=allow_demo)
        if future is not None and not future.done() and self._server.initialized:
            self.progress.begin(LOAD, LOADING_MESSAGE)

    def client_ready(self) -> None:
        """The client can hear about loads now: show the one under way, or announce the one that
        finished before the client could be told."""
        loader = self._server.loader
        last = loader.last
        if loader.loading():
            self.progress.begin(LOAD, LOADING_MESSAGE)
        elif last is not None:
            self._on_load(last)

    def _on_load(self, result: LoadResult) -> None:
        ls = self._server
        if result.superseded or result.seq <= self._announced:
            return  # a newer load is on its way and will end the progress
        if result.unconfigured:
            if not ls.initialized:
                return  # the client may still name a bundle in its settings
            if ls.holder.engine is None and not self._demo_requested:
                # Nothing configured anywhere: serve the embedded demo rather than nothing.
                self._demo_requested = True
                self.request(force=True, allow_demo=True)
                return
        self._announced = result.seq
        engine = result.engine if result.ok else None
        if engine is not None:
            info = _bundle_summary(engine)
            ls.messages.log(types.MessageType.Info, f"Atlas: loaded {info} in {result.ms:.0f} ms")
            self.progress.end(LOAD, f"Loaded {info}")
            self._announce_demo(engine)
            ls.diagnostics.refresh_all()
            self._watch_soon(result.paths)
        else:
            tail = (
                "still serving the previous bundle"
                if ls.holder.engine is not None
                else "hover, go-to-doc and symbols are off until this is fixed"
            )
            ls.messages.show(
                types.MessageType.Error,
                f"Atlas: cannot open the docs bundle: {result.error}; {tail}",
            )
            self.progress.end(LOAD, FAILED_MESSAGE)

    def _announce_demo(self, engine: Engine) -> None:
        if not self._demo_announced and engine.serves_demo():
            self._demo_announced = True
            self._server.messages.show(types.MessageType.Warning, SERVING_DEMO)

    # -- hot reload ------------------------------------------------------------------------------

    def _watch_soon(self, paths: Sequence[str]) -> None:
        """`watch` after the first load once WATCH_START_DELAY_S has passed, later loads at once.

        The first load is announced as the client sends its first requests; starting the watch
        then (importing watchfiles, checking the bundle) would share the interpreter with the
        first hover. Nothing is missed meanwhile: a watch starts by checking for a new bundle."""
        loop = self._server.loop
        if self.reloader is not None or loop is None:
            self.watch(paths)
            return
        if self._watch_pending is not None:
            self._watch_pending.cancel()
        self._watch_pending = loop.call_later(WATCH_START_DELAY_S, self.watch, paths)

    def watch(self, paths: Sequence[str]) -> None:
        """Hot-reload `paths`: a new bundle there (an install's flip, a rebuild) is swapped in."""
        self._watch_pending = None
        # Imported here: the watch starts after the first load, off the first hover's path.
        from atlas_core.serving import BundleReloader

        wanted = [Path(p) for p in paths]
        if self.reloader is not None:
            if self.reloader.paths == wanted:
                return
            self.reloader.stop()
        self.reloader = BundleReloader(  # warmed on identifiers only: never the embedding model
            self._server.holder,
            wanted,
            open_engine,
            on_event=lambda event: self._server.call_soon(
                "reloading the bundle", self._on_reload_event, event
            ),
            warm_up=("lookup", "symbols"),
        )
        self.reloader.start()

    def stop_watching(self) -> None:
        if self._watch_pending is not None:
            self._watch_pending.cancel()
            self._watch_pending = None
        if self.reloader is not None:
            self.reloader.stop()
            self.reloader = None

    def _on_reload_event(self, event: ReloadEvent) -> None:
        # The reloader swaps the holder's engine itself; here the client hears about it. One
        # reload is under way at a time (the reloader runs them one after another), so its
        # "loading" and its outcome share the RELOAD key; a retry of an incomplete bundle reports
        # an outcome without a new "loading", and its end finds nothing under way.
        ls = self._server
        if event.kind == "loading":
            if ls.initialized:
                self.progress.begin(RELOAD, LOADING_MESSAGE)
            return
        loaded = event.kind == "loaded"
        self.progress.end(RELOAD, "Loaded" if loaded else FAILED_MESSAGE)
        message = f"Atlas: {event.message}"
        if loaded:
            ls.messages.log(types.MessageType.Info, message)
            if ls.holder.engine is not None:
                self._announce_demo(ls.holder.engine)
            ls.diagnostics.refresh_all()
        elif event.kind == "failed":
            ls.messages.show(types.MessageType.Error, message)


def _bundle_summary(engine: Engine) -> str:
    try:
        # The first bundle's own summary: `info()` also describes the ranking, which would
        # import the ranking code into a server that never ranks hybrid results.
        info = engine.bundle_infos()[0]
    except AtlasError:  # a manifest damaged since it was opened: the load is still good
        return "the bundle"
    return f"{info.name or info.path} ({info.identifiers} identifiers)"
