"""An aiohttp server on 127.0.0.1 running on its own thread and event loop.

Test servers (the docs site for the crawler, the release server for downloads) subclass it and add
their routes in `routes`; both in-process code and subprocesses can then reach them.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Self

from aiohttp import web


class ThreadedServer:
    client_max_size = 1024**2

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    def start(self) -> Self:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _start(self) -> None:
        app = web.Application(client_max_size=self.client_max_size)
        self.routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
