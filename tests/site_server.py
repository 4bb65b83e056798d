"""A docs site on 127.0.0.1 for crawler tests: pages and faults the tests script themselves.

The server runs in its own thread with its own event loop, so both in-process crawls and `atlas
crawl` subprocesses can use it. Each route is a `Page`; `hits` counts requests per path and
`user_agents` records what clients sent.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
from dataclasses import dataclass, field

from aiohttp import web

from tests.threaded_server import ThreadedServer


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


class SiteServer(ThreadedServer):
    def __init__(self) -> None:
        super().__init__()
        self.pages: dict[str, Page] = {}
        self.hits: collections.Counter[str] = collections.Counter()
        self.user_agents: set[str] = set()
        self.conditional_hits: collections.Counter[str] = collections.Counter()

    # pages --------------------------------------------------------------------------------------

    def add(self, path: str, text: str | bytes = "", **kwargs: object) -> None:
        body = text.encode() if isinstance(text, str) else text
        self.pages[path] = Page(body=body, **kwargs)  # type: ignore[arg-type]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def routes(self, app: web.Application) -> None:
        app.router.add_route("GET", "/{tail:.*}", self._handle)

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
