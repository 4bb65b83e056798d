"""The Atlas language server: one `LanguageServer` subclass holding one `EngineHolder`.

The class keeps the server's state and wires its parts together; the work is elsewhere:
`bundles` (loading, hot reload, and what the client hears of them), `scheduler` (when
diagnostics run), `messages` (what the user is told), and one module per feature whose
``register(server)`` adds its handlers (see `features.create_server`). Handlers read the engine
once through `engine()`; nothing else keeps a reference to it, so a bundle swap (a changed
setting, ``atlas.reload``, a hot reload) is one assignment in the holder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from atlas_core import __version__
from atlas_core.recognize import RecognizerSet
from atlas_core.serving import BundleLoader, EngineHolder
from atlas_ls.lsp.bundles import ServedBundles
from atlas_ls.lsp.calls import CallTrees
from atlas_ls.lsp.documents import DocumentCache, Snapshot
from atlas_ls.lsp.messages import Messages, clip
from atlas_ls.lsp.protocol import AtlasProtocol, FrameReader, StdinFrames, StreamFrames, serve
from atlas_ls.lsp.scheduler import DiagnosticsScheduler
from atlas_ls.lsp.settings import Settings

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_ls.lsp.typed_call import TypedCalls

logger = logging.getLogger(__name__)

VERSION = __version__

NAME = "atlas-ls"
ENGINE_WAIT_S = 20.0  # how long a request waits for the first bundle to open


class AtlasLanguageServer(LanguageServer):
    def __init__(
        self,
        *,
        cli_bundles: Sequence[str] = (),
        holder: EngineHolder[Engine] | None = None,
        loader: BundleLoader | None = None,
        recognizers: RecognizerSet | None = None,
    ) -> None:
        super().__init__(NAME, VERSION, protocol_cls=AtlasProtocol, max_workers=2)
        self.holder: EngineHolder[Engine] = holder or EngineHolder()
        self.loader = loader or BundleLoader(self.holder)
        self.cli_bundles = tuple(cli_bundles)
        self.recognizers = recognizers or RecognizerSet.default()
        self.documents = DocumentCache()
        self.calls = CallTrees(self)
        self._typed_calls: TypedCalls | None = None
        self.init_settings = Settings()  # from initializationOptions; the base of later settings
        self.init_problems = ""  # what was wrong with them, shown once the client can see it
        self.settings = Settings()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.initialized = False
        self.exit_code = 0
        self.messages = Messages(self)
        self.diagnostics = DiagnosticsScheduler(self)
        self.bundles = ServedBundles(self)

    @property
    def typed_calls(self) -> TypedCalls:
        """The call being typed, for completion and signature help: one probe reader for both,
        so the one that follows the other re-parses its probe incrementally. Made on the first
        completion, so a server that only hovers never imports it."""
        if self._typed_calls is None:
            from atlas_ls.lsp.typed_call import TypedCalls

            self._typed_calls = TypedCalls(self)
        return self._typed_calls

    # -- transport ------------------------------------------------------------------------------

    @property
    def atlas_protocol(self) -> AtlasProtocol:
        """The protocol object, as the class it is built from (pygls types it as its base)."""
        protocol = self.protocol
        assert isinstance(protocol, AtlasProtocol)
        return protocol

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
        broken = await serve(reader, self.atlas_protocol, self._stop_event)
        if broken:
            # Where the next message starts is unknown; guessing would answer the wrong request.
            logger.error(
                "atlas-ls: stopping: the client's messages are not LSP framing: %s", broken
            )
            self.exit_code = 1

    def attach_loop(self) -> None:
        """Remember the event loop (from a handler), for work handed over from other threads."""
        with contextlib.suppress(RuntimeError):
            self.loop = asyncio.get_running_loop()

    def call_soon(self, what: str, callback: Callable[..., None], *args: Any) -> None:
        """Run `callback(*args)` on the event loop, from any thread; a failure is reported as
        `what` failing, like a handler's. Nothing happens once the loop is gone."""

        def run() -> None:
            try:
                callback(*args)
            except Exception as exc:
                self.messages.report_failure(what, exc)

        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(run)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls shows "Error in server: ..." for every failed notification handler (each
        # didChange of a document it cannot apply would pop one up); once per message here.
        if source is FeatureRequestError:
            return  # the failed request's own error response says it
        self.messages.show_once(types.MessageType.Error, clip(f"Atlas: internal error: {error}"))

    # -- engine and documents -------------------------------------------------------------------

    async def engine(self) -> Engine | None:
        """The engine to answer one request with; waits for the first load when none is in yet."""
        engine = self.holder.engine
        if engine is not None:
            return engine
        pending = self.loader.pending
        if pending is not None and not pending.done():
            # A load that fails reports itself (BundleLoader catches its errors); one that takes
            # longer leaves this request without a bundle.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.wrap_future(pending), ENGINE_WAIT_S)
        return self.holder.engine

    @property
    def position_encoding(self) -> str:
        """The position encoding agreed with the client: "utf-16" unless it offered another."""
        try:
            value = self.workspace.position_encoding
        except RuntimeError:  # before initialize
            return "utf-16"
        return str(getattr(value, "value", value) or "utf-16")

    async def snapshot(self, uri: str) -> Snapshot | None:
        return await self.documents.snapshot(self.workspace, uri)

    def is_open(self, uri: str) -> bool:
        return self.documents.is_open(self.workspace, uri)

    def is_current(self, snap: Snapshot) -> bool:
        """Whether `snap` still holds the text of its open document."""
        return self.documents.is_current(self.workspace, snap)

    def open_uris(self) -> list[str]:
        """The documents the client has open; none before initialize."""
        try:
            return list(self.workspace.text_documents)
        except RuntimeError:
            return []
