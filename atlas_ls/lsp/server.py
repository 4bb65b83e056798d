"""The Atlas language server: one `LanguageServer` subclass holding one `EngineHolder`.

Handlers are thin: they read ``server.holder.engine`` once, call the engine through the feature
modules, and turn typed values into protocol types. Nothing else keeps a reference to the engine,
so a bundle swap (a changed setting, ``atlas.reload``, a hot reload) is one assignment.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
import threading
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from atlas_core import __version__
from atlas_core.errors import AtlasError
from atlas_core.recognize.registry import RecognizerSet
from atlas_core.serving.holder import EngineHolder
from atlas_core.serving.loader import BundleLoader, LoadResult, open_engine
from atlas_core.serving.reloader import BundleReloader
from atlas_ls.lsp import diagnostics
from atlas_ls.lsp.documents import DocumentCache, Snapshot, column_from_client, column_to_client
from atlas_ls.lsp.protocol import AtlasProtocol, FrameReader, StdinFrames, StreamFrames, serve
from atlas_ls.lsp.resolve import Resolution, resolve_at
from atlas_ls.lsp.settings import SECTION, Settings, parse_settings

logger = logging.getLogger(__name__)

VERSION = __version__

NAME = "atlas-ls"
ENGINE_WAIT_S = 20.0  # how long a request waits for the first bundle to open
OPEN_DIAGNOSTICS_DELAY_MS = 100
RELOAD = "atlas.reload"
DEBUG_INFO = "atlas.debugInfo"
_WATCHED_MODULES = ("onnxruntime", "tokenizers", "torch", "mlx", "numpy", "pyarrow", "rapidfuzz")
MAX_SHOWN_MESSAGES = 100  # distinct failures remembered as shown; forgotten on a bundle (re)load
MAX_FAILURE_CHARS = 400


def encoding_of(server: LanguageServer) -> str:
    try:
        value = server.workspace.position_encoding
    except RuntimeError:
        return "utf-16"
    return str(getattr(value, "value", value) or "utf-16")


class AtlasLanguageServer(LanguageServer):
    def __init__(
        self,
        *,
        cli_bundles: Sequence[str] = (),
        holder: EngineHolder[Any] | None = None,
        loader: BundleLoader | None = None,
        recognizers: RecognizerSet | None = None,
    ) -> None:
        super().__init__(NAME, VERSION, protocol_cls=AtlasProtocol, max_workers=2)
        self.holder: EngineHolder[Any] = holder or EngineHolder()
        self.loader = loader or BundleLoader(self.holder)
        self.loader.listeners.append(self._on_load_threadsafe)
        self.loader.on_demo_build = self._on_demo_build_threadsafe
        self.cli_bundles = tuple(cli_bundles)
        self.recognizers = recognizers or RecognizerSet.default()
        self.documents = DocumentCache()
        self.init_settings = Settings()
        self.settings = Settings()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.initialized = False
        self._progress: dict[int, str] = {}  # load seq -> work-done token
        self._progress_ended: dict[int, str] = {}  # ended before their token was created
        self._matcher: tuple[Any, diagnostics.DeprecationMatcher] | None = None
        self._diag_tasks: dict[str, asyncio.Task[None]] = {}
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.init_problems = ""
        self._announced = 0  # the last load seq the client was told about
        self._demo_requested = False
        self._tasks: set[asyncio.Future[Any]] = set()
        self.reloader: BundleReloader | None = None
        self._shown: set[str] = set()  # failure messages shown while this engine generation served
        self._shown_generation = -1
        self.exit_code = 0

    # -- transport ------------------------------------------------------------------------------

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve on stdio with Atlas's framing (atlas_ls.lsp.protocol) instead of pygls's."""
        from pygls.io_ import StdoutWriter

        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        self._serve(self._run(StdinFrames(stdin or sys.stdin.buffer)))

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time on host:port, with the same framing as stdio."""

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await self._run(StreamFrames(reader))
            self.shutdown()

        async def listen() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        self._serve(listen())

    def _serve(self, main: Coroutine[Any, Any, None]) -> None:
        self._stop_event = threading.Event()
        try:
            asyncio.run(main)
        except SystemExit as exc:  # `exit`: 0 after shutdown, 1 without (pygls decides)
            self.exit_code = exc.code if isinstance(exc.code, int) else 1
        except (KeyboardInterrupt, asyncio.CancelledError):
            pass
        except BrokenPipeError:
            logger.error("the connection to the client is lost; stopping")
        finally:
            self.shutdown()

    async def _run(self, reader: FrameReader) -> None:
        assert self._stop_event is not None
        broken = await serve(reader, self.protocol, self._stop_event)  # type: ignore[arg-type]
        if broken:
            # Where the next message starts is unknown; guessing would answer the wrong request.
            logger.error(
                "atlas-ls: stopping: the client's messages are not LSP framing: %s", broken
            )
            self.exit_code = 1

    # -- engine ---------------------------------------------------------------------------------

    def bundle_request(self) -> tuple[str, ...]:
        """The bundle paths the settings ask for: editor setting, then --bundle, then default."""
        return self.settings.bundle or self.cli_bundles

    def load(self, *, force: bool = False, allow_demo: bool = False) -> None:
        future = self.loader.request(self.bundle_request(), force=force, allow_demo=allow_demo)
        if future is not None and not future.done() and self.initialized:
            self._begin_progress(self.loader.seq)

    async def engine(self) -> Any | None:
        """The engine to answer one request with; waits for the first load when none is in yet."""
        engine = self.holder.engine
        if engine is not None:
            return engine
        pending = self.loader.pending
        if pending is not None and not pending.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.wrap_future(pending), ENGINE_WAIT_S)
        return self.holder.engine

    def _on_load_threadsafe(self, result: LoadResult) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._on_load, result)

    def _on_demo_build_threadsafe(self) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(
                self.show, types.MessageType.Info,
                "Atlas: no bundle is configured; building the embedded demo bundle (first use). "
                "Set atlas.bundle or run `atlas download` for the Collibra docs.",
            )  # fmt: skip

    def _on_load(self, result: LoadResult) -> None:
        if result.superseded or result.seq <= self._announced:
            return
        if result.unconfigured:
            if not self.initialized:
                return  # the client may still name a bundle in its settings
            if self.holder.engine is None and not self._demo_requested:
                # Nothing configured anywhere: serve the embedded demo rather than nothing.
                self._demo_requested = True
                self.load(force=True, allow_demo=True)
                return
        self._announced = result.seq
        if result.ok:
            info = _bundle_summary(result.engine)
            self.log(types.MessageType.Info, f"Atlas: loaded {info} in {result.ms:.0f} ms")
            self._end_progress(result.seq, f"Loaded {info}")
            self._refresh_all_diagnostics()
            self.watch(result.paths)
        else:
            serving = self.holder.engine is not None
            tail = (
                "still serving the previous bundle"
                if serving
                else "hover, go-to-doc and symbols are off until this is fixed"
            )
            self.show(
                types.MessageType.Error,
                f"Atlas: cannot open the docs bundle: {result.error}; {tail}",
            )
            self._end_progress(result.seq, "Failed to load the bundle")

    # -- hot reload ------------------------------------------------------------------------------

    def watch(self, paths: Sequence[str]) -> None:
        """Hot-reload `paths`: a new bundle there (an install's flip, a rebuild) is swapped in."""
        wanted = [Path(p) for p in paths]
        if self.reloader is not None:
            if self.reloader.paths == wanted:
                return
            self.reloader.stop()
        self.reloader = BundleReloader(  # warmed on identifiers only: never the embedding model
            self.holder,
            wanted,
            open_engine,
            on_event=self.on_reload_event,
            warm_up=("lookup", "symbols"),
        )
        self.reloader.start()

    def stop_watching(self) -> None:
        if self.reloader is not None:
            self.reloader.stop()
            self.reloader = None

    def on_reload_event(self, event: Any) -> None:
        """Report a hot reload to the client; thread-safe, for a watcher on another thread.

        `event` is an ``atlas_core.serving.reloader.ReloadEvent`` (``kind``: loading, loaded or failed;
        ``message``; ``generation``). The watcher swaps ``self.holder`` itself; here the client
        sees $/progress while the new bundle loads, the outcome in its log, a message on failure,
        and the open documents' diagnostics recomputed against the new bundle.
        """
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._reload_event, event)

    def _reload_event(self, event: Any) -> None:
        key = -1_000_000 - int(getattr(event, "generation", 0))  # apart from BundleLoader seqs
        kind = getattr(event, "kind", "")
        message = f"Atlas: {getattr(event, 'message', '')}"
        if kind == "loading":
            if self.initialized:
                self._begin_progress(key, token=f"atlas-reload-{-key}")
            return
        self._end_progress(key, "Loaded" if kind == "loaded" else "Failed to load the bundle")
        if kind == "loaded":
            self.log(types.MessageType.Info, message)
            self._refresh_all_diagnostics()
        elif kind == "failed":
            self.show(types.MessageType.Error, message)

    def _begin_progress(self, seq: int, token: str | None = None) -> None:
        caps = self.client_capabilities.window
        if not (caps and caps.work_done_progress) or seq in self._progress:
            return
        token = token or f"atlas-load-{seq}"
        self._progress[seq] = token

        async def run() -> None:
            try:
                await self.work_done_progress.create_async(token)
            except Exception:
                self._progress.pop(seq, None)
                self._progress_ended.pop(seq, None)
                return
            self.work_done_progress.begin(
                token,
                types.WorkDoneProgressBegin(
                    title="Atlas", message="Loading the Collibra docs bundle…", cancellable=False
                ),
            )
            ended = self._progress_ended.pop(seq, None)
            if ended is not None:  # the load finished while the token was being created
                self._end_progress(seq, ended)

        self._spawn(run())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)  # the loop only keeps weak references to tasks
        task.add_done_callback(self._tasks.discard)

    def _end_progress(self, seq: int, message: str) -> None:
        token = self._progress.get(seq)
        if token is None:
            return
        if token not in self.work_done_progress.tokens:
            self._progress_ended[seq] = message  # `begin` has not gone out yet
            return
        self._progress.pop(seq, None)
        self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    # -- messages -------------------------------------------------------------------------------

    def show(self, kind: types.MessageType, message: str) -> None:
        if kind <= types.MessageType.Warning:
            logger.warning("%s", message)
        else:
            logger.info("%s", message)
        self._notify(kind, message)

    def _notify(self, kind: types.MessageType, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def show_once(self, kind: types.MessageType, message: str) -> bool:
        """`show`, unless the same message was shown since the bundle last (re)loaded: a failure
        repeats on every keystroke, the user needs to read it once. True when it was shown."""
        if self._was_shown(message):
            return False
        self._remember(message)
        self.show(kind, message)
        return True

    def _was_shown(self, message: str) -> bool:
        # Keyed to the engine generation rather than cleared by the load event: a request can
        # fail on a new engine before its load event has run on the loop.
        if self._shown_generation != self.holder.generation:
            self._shown_generation = self.holder.generation
            self._shown.clear()
        return message in self._shown

    def _remember(self, message: str) -> None:
        if len(self._shown) >= MAX_SHOWN_MESSAGES:
            self._shown.clear()
        self._shown.add(message)

    def report_failure(self, what: str, exc: BaseException) -> None:
        """Tell the user, once, why `what` (a request, diagnostics) failed.

        An AtlasError (a damaged bundle found at query time, say) carries its own reason and
        hint. Anything else is a bug: logged at ERROR with its traceback, and shown, so that it is
        never mistaken for "nothing documented here".
        """
        if isinstance(exc, AtlasError):
            self.show_once(types.MessageType.Error, _clip(f"Atlas: {what}: {exc.one_line()}"))
            return
        message = _clip(f"Atlas: {what} failed: {type(exc).__name__}: {exc}")
        if self._was_shown(message):
            logger.error("%s (again)", message)
            return
        self._remember(message)
        logger.error("%s", message, exc_info=exc)
        self._notify(types.MessageType.Error, message + " (details in the language server's log)")

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls shows "Error in server: ..." for every failed notification handler (each
        # didChange of a document it cannot apply would pop one up); once per message here.
        if source is FeatureRequestError:
            return  # the failed request's own error response says it
        self.show_once(types.MessageType.Error, _clip(f"Atlas: internal error: {error}"))

    def log(self, kind: types.MessageType, message: str) -> None:
        logger.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # -- settings -------------------------------------------------------------------------------

    def apply_settings(self, raw: Any, *, base: Settings | None = None) -> None:
        parsed = parse_settings(raw, base or self.init_settings)
        if parsed.problems:
            self.show(types.MessageType.Warning, parsed.message())
        self._install(parsed.settings)

    def _install(self, settings: Settings) -> None:
        old, self.settings = self.settings, settings
        enabled = settings.recognizers_enabled
        if enabled is not None:
            unknown = sorted(enabled - set(self.recognizers.names))
            if unknown:
                self.show(
                    types.MessageType.Warning,
                    f"Atlas: unknown recognisers in atlas.recognizers.enabled: {', '.join(unknown)}"
                    f"; known: {', '.join(self.recognizers.names)}",
                )
        self.recognizers.enabled = enabled
        if old.bundle != settings.bundle:
            self.load()
        if old.diagnostics_enabled != settings.diagnostics_enabled:
            self._refresh_all_diagnostics()

    async def pull_configuration(self) -> None:
        caps = self.client_capabilities.workspace
        if not (caps and caps.configuration):
            return
        try:
            result = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
                ),
                10,
            )
        except Exception as exc:
            logger.info("workspace/configuration failed: %s", exc)
            return
        value = result[0] if isinstance(result, list | tuple) and result else None
        if value is not None:
            self.apply_settings({SECTION: value})

    # -- documents ------------------------------------------------------------------------------

    async def snapshot(self, uri: str) -> Snapshot | None:
        return await self.documents.snapshot(self.workspace, uri)

    def position(self, snap: Snapshot, pos: types.Position) -> tuple[int, int] | None:
        """(line, code-point column) for a client position; None when it is past the text."""
        if not (0 <= pos.line < len(snap.lines)) or pos.character < 0:
            return None
        text = snap.lines[pos.line]
        encoding = encoding_of(self)
        if pos.character > column_to_client(text, len(text), encoding):
            return None
        return pos.line, column_from_client(text, pos.character, encoding)

    def client_range(self, snap: Snapshot, line: int, start: int, end: int) -> types.Range:
        text = snap.lines[line]
        encoding = encoding_of(self)
        return types.Range(
            start=types.Position(line, column_to_client(text, start, encoding)),
            end=types.Position(line, column_to_client(text, end, encoding)),
        )

    async def resolve(
        self, uri: str, pos: types.Position
    ) -> tuple[Any, Snapshot, int, Resolution] | None:
        engine = await self.engine()
        if engine is None:
            return None
        snap = await self.snapshot(uri)
        if snap is None:
            return None
        where = self.position(snap, pos)
        if where is None:
            return None
        line, column = where
        resolution = resolve_at(engine, snap, line, column, self.recognizers)
        if resolution is None:
            return None
        return engine, snap, line, resolution

    # -- diagnostics ----------------------------------------------------------------------------

    def matcher(self, engine: Any) -> diagnostics.DeprecationMatcher:
        cached = self._matcher
        if cached is not None and cached[0] is engine:
            return cached[1]
        matcher = diagnostics.DeprecationMatcher(engine.deprecations())
        self._matcher = (engine, matcher)
        return matcher

    def schedule_diagnostics(self, uri: str, *, delay_ms: int | None = None) -> None:
        task = self._diag_tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        delay = self.settings.diagnostics_debounce_ms if delay_ms is None else delay_ms
        self._diag_tasks[uri] = asyncio.ensure_future(self._diagnose(uri, delay / 1000))

    async def _diagnose(self, uri: str, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            if not self.settings.diagnostics_enabled:
                self._publish(uri, [], None)
                return
            engine = await self.engine()
            if engine is None or not self.documents.is_open(self.workspace, uri):
                return
            snap = await self.snapshot(uri)
            if snap is None:  # too big to diagnose
                if self.published.get(uri):
                    self._publish(uri, [], None)
                return
            encoding = encoding_of(self)
            found = await asyncio.to_thread(
                lambda: diagnostics.diagnostics_for(snap, self.matcher(engine), encoding)
            )
            if not self.documents.is_current(self.workspace, snap):
                return  # the document changed meanwhile; its own task will publish
            self._publish(uri, found, snap.version)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.report_failure("diagnostics", exc)
        finally:
            if self._diag_tasks.get(uri) is asyncio.current_task():
                self._diag_tasks.pop(uri, None)

    def _publish(self, uri: str, found: list[types.Diagnostic], version: int | None) -> None:
        self.published[uri] = found
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        )

    def _refresh_all_diagnostics(self) -> None:
        if self.loop is None:
            return
        try:
            uris = list(self.workspace.text_documents)
        except RuntimeError:
            return
        for uri in uris:
            self.schedule_diagnostics(uri, delay_ms=0)

    def forget(self, uri: str) -> None:
        task = self._diag_tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        self.documents.forget(uri)
        if self.published.pop(uri, None):
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    async def show_document(self, params: types.ShowDocumentParams) -> dict[str, Any]:
        """Ask the client to open a document (or a URL); a dict the command returns to it."""
        caps = self.client_capabilities.window
        if not (caps and caps.show_document and caps.show_document.support):
            # The client cannot open documents for us; give the user the link to open by hand.
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Info, message=f"Atlas docs: {params.uri}"
                )
            )
            return {
                "success": False,
                "uri": params.uri,
                "reason": "client has no window/showDocument",
            }
        try:
            result = await asyncio.wait_for(self.window_show_document_async(params), 30)
        except Exception as exc:
            return {"success": False, "uri": params.uri, "reason": str(exc)}
        return {"success": bool(result and result.success), "uri": params.uri}

    # -- introspection --------------------------------------------------------------------------

    def debug_info(self) -> dict[str, Any]:
        engine = self.holder.engine
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
            except Exception as exc:
                info = {"error": str(exc)}
        return {
            "pid": os.getpid(),
            "version": VERSION,
            "python": sys.version.split()[0],
            "modules": {name: name in sys.modules for name in _WATCHED_MODULES},
            # The collector is off during startup (see __main__); it must be back on after it.
            "gc": {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()},
            "bundle": info,
            "bundle_paths": list(self.loader.paths),
            "generation": self.holder.generation,
            "last_error": self.holder.last_error,
            "loading": self.loader.loading(),
            "position_encoding": encoding_of(self),
            "settings": {
                "bundle": list(self.settings.bundle),
                "maxResults": self.settings.max_symbol_results,
                "recognizers": sorted(self.settings.recognizers_enabled)
                if self.settings.recognizers_enabled is not None
                else None,
                "diagnostics": self.settings.diagnostics_enabled,
            },
            "recognizers": [r.name for r in self.recognizers.active()],
            "plugins": [
                {"name": p.name, "value": p.value, "loaded": p.loaded, "error": p.error}
                for p in self.recognizers.plugins
            ],
        }


def _clip(message: str) -> str:
    if len(message) <= MAX_FAILURE_CHARS:
        return message
    return message[: MAX_FAILURE_CHARS - 1] + "…"


def _bundle_summary(engine: Any) -> str:
    try:
        info = engine.info()
        return f"{info.name or info.path} ({info.identifiers} identifiers)"
    except Exception:
        return "the bundle"
