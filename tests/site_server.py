"""A docs site on 127.0.0.1 for crawler tests: pages and faults the tests script themselves.

The server runs in its own thread with its own event loop, so both in-process crawls and `atlas
crawl` subprocesses can use it. Each route is a `Page`; `hits` counts requests per path and
`user_agents` records what clients sent.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web


@dataclass
class Page:
    body: bytes = b""
    content_type: str = "text/markdown"
    charset: str | None = "utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    fail_first: int = 0  # answer `fail_status` this many times before the real answer
    fail_status: int = 500
    fail_headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    stream_bytes: int = 0  # stream this many bytes of filler instead of `body`
    etag: bool = False  # send an ETag and honour If-None-Match


class SiteServer:
    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.hits: collections.Counter[str] = collections.Counter()
        self.user_agents: set[str] = set()
        self.conditional_hits: collections.Counter[str] = collections.Counter()
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0

    # pages --------------------------------------------------------------------------------------

    def add(self, path: str, text: str | bytes = "", **kwargs: object) -> None:
        body = text.encode() if isinstance(text, str) else text
        self.pages[path] = Page(body=body, **kwargs)  # type: ignore[arg-type]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    # lifecycle ----------------------------------------------------------------------------------

    def start(self) -> SiteServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits[path] += 1
        self.user_agents.add(request.headers.get("User-Agent", ""))
        page = self.pages.get(path)
        if page is None:
            return web.Response(status=404, text="not found")
        if page.delay:
            await asyncio.sleep(page.delay)
        if self.hits[path] <= page.fail_first:
            return web.Response(status=page.fail_status, headers=page.fail_headers, text="busy")
        headers = dict(page.headers)
        if page.etag:
            tag = '"' + hashlib.sha1(page.body).hexdigest()[:12] + '"'
            headers["ETag"] = tag
            if request.headers.get("If-None-Match") == tag:
                self.conditional_hits[path] += 1
                return web.Response(status=304, headers=headers)
        if page.stream_bytes:
            resp = web.StreamResponse(status=200, headers=headers)
            resp.content_type = page.content_type
            await resp.prepare(request)
            block = b"x" * (1024 * 1024)
            sent = 0
            try:
                while sent < page.stream_bytes:
                    await resp.write(block)
                    sent += len(block)
            except (ConnectionResetError, RuntimeError):
                return resp
            return resp
        return web.Response(
            status=page.status,
            body=page.body,
            content_type=page.content_type,
            charset=page.charset,
            headers=headers,
        )


def run_site(setup: Callable[[SiteServer], None]) -> SiteServer:
    server = SiteServer().start()
    setup(server)
    return server
