"""When diagnostics run: debounced per document, superseded runs cancelled, all open documents
again when the bundle changes, the matching on a worker thread.

Typing sends a didChange per keystroke; a run starts only once the document has been still for
``atlas.diagnostics.debounceMs``, and a newer change cancels the run waiting or under way for
the same document. The matching (`diagnostics.diagnostics_for`) runs on a worker thread, so a
multi-megabyte document never holds up a hover; its result is published only when the document
has not changed meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_ls.lsp import diagnostics

if TYPE_CHECKING:
    from atlas_ls.lsp.server import AtlasLanguageServer


class DiagnosticsScheduler:
    def __init__(self, server: AtlasLanguageServer) -> None:
        self._server = server
        self._runs: dict[str, asyncio.Task[None]] = {}  # uri -> the run waiting or under way
        self._published: dict[str, list[types.Diagnostic]] = {}

    def published(self, uri: str) -> list[types.Diagnostic]:
        """What the client was last sent for `uri`."""
        return self._published.get(uri, [])

    def schedule(self, uri: str, *, delay_ms: int | None = None) -> None:
        """Diagnose `uri` after `delay_ms` (the debounce setting when None), cancelling the run
        already waiting or under way for it."""
        self._cancel(uri)
        delay = self._server.settings.diagnostics_debounce_ms if delay_ms is None else delay_ms
        self._runs[uri] = asyncio.ensure_future(self._run(uri, delay / 1000))

    def refresh_all(self) -> None:
        """Diagnose every open document again now (a new bundle, diagnostics turned on or off)."""
        if self._server.loop is None:
            return  # before initialize: nothing is open
        for uri in self._server.open_uris():
            self.schedule(uri, delay_ms=0)

    def forget(self, uri: str) -> None:
        """A closed document: no more runs, and its diagnostics cleared in the client."""
        self._cancel(uri)
        if self._published.pop(uri, None):
            self._server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    def _cancel(self, uri: str) -> None:
        run = self._runs.pop(uri, None)
        if run is not None:
            run.cancel()

    async def _run(self, uri: str, delay: float) -> None:
        ls = self._server
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            if not ls.settings.diagnostics_enabled:
                self._publish(uri, [], None)
                return
            engine = await ls.engine()
            if engine is None or not ls.is_open(uri):
                return
            snap = await ls.snapshot(uri)
            if snap is None:  # too big to diagnose
                if self._published.get(uri):
                    self._publish(uri, [], None)
                return
            encoding = ls.position_encoding
            settings = ls.settings

            def diagnose() -> list[types.Diagnostic]:
                # The matcher too: building it reads the bundle's whole deprecation list.
                matcher = engine.deprecated_terms()
                sites = ls.calls.scan(snap) if settings.api_checks_enabled else None
                api = ls.calls.check(engine, snap, sites) if sites is not None else []
                return diagnostics.diagnostics_for(snap, matcher, encoding, api, settings, sites)

            found = await asyncio.to_thread(diagnose)
            if not ls.is_current(snap):
                return  # the document changed meanwhile; its own run will publish
            self._publish(uri, found, snap.version)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            ls.messages.report_failure("diagnostics", exc)
        finally:
            if self._runs.get(uri) is asyncio.current_task():
                self._runs.pop(uri, None)

    def _publish(self, uri: str, found: list[types.Diagnostic], version: int | None) -> None:
        self._published[uri] = found
        self._server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        )
