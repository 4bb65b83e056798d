"""A GitHub-like release server on 127.0.0.1 for download and publish tests.

It answers the REST calls Atlas makes (latest release, release by tag, create release, upload
asset) and serves asset bytes with HTTP Range support. Faults are scripted per test: a dropped
connection mid-stream, a truncated body, a rate limit, a wrong checksum, a body far longer than the
size the release declares, a redirect to another server, a hand-edited release answer. Every
request is recorded (path and headers) so a test can check what a host was sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.threaded_server import ThreadedServer


@dataclass
class ReleaseSpec:
    tag: str
    assets: dict[str, bytes] = field(default_factory=dict)
    uploaded: dict[str, bytes] = field(default_factory=dict)
    body: str = ""


class ReleaseServer(ThreadedServer):
    client_max_size = 1024**3

    def __init__(self) -> None:
        super().__init__()
        self.releases: dict[str, ReleaseSpec] = {}
        self.latest: str | None = None
        self.drop_after: dict[str, int] = {}  # asset -> drop the connection after N bytes, once
        self.truncate_to: dict[str, int] = {}  # asset -> always send only N bytes
        self.rate_limited = False
        self.rate_limit_status = 403  # GitHub's primary limit; 429 + Retry-After is the secondary
        self.range_requests: list[str] = []
        self.auth_headers: list[str] = []
        self.download_delay = 0.0
        self.seen: list[tuple[str, dict[str, str]]] = []  # (path?query, headers) of every request
        self.redirects: dict[str, str] = {}  # request path -> base URL it is 302-redirected to
        self.overflow: dict[str, int] = {}  # asset -> stream this many bytes, data then zeros
        self.overflow_length = False  # send Content-Length with an overflowing body
        self.mutate: Callable[[dict[str, Any]], Any] | None = None  # edits every release answer

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def add_release(self, tag: str, assets: dict[str, bytes], *, latest: bool = True) -> None:
        self.releases[tag] = ReleaseSpec(tag, dict(assets))
        if latest:
            self.latest = tag

    def routes(self, app: web.Application) -> None:
        app.middlewares.append(self._record_and_redirect)
        app.router.add_get("/api/repos/{owner}/{name}/releases/latest", self._latest)
        app.router.add_get("/api/repos/{owner}/{name}/releases/tags/{tag}", self._by_tag)
        app.router.add_post("/api/repos/{owner}/{name}/releases", self._create)
        app.router.add_post("/uploads/{tag}", self._upload)
        app.router.add_get("/download/{tag}/{asset}", self._download)

    @web.middleware
    async def _record_and_redirect(
        self,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        self.seen.append((request.path_qs, dict(request.headers)))
        if request.path in self.redirects:
            # A raw header: aiohttp's HTTPFound would refuse the malformed targets tests send.
            location = self.redirects[request.path] + request.path_qs
            return web.Response(status=302, headers={"Location": location})
        return await handler(request)

    def _answer(self, spec: ReleaseSpec, status: int = 200) -> web.Response:
        data: Any = self._release_json(spec)
        if self.mutate is not None:
            data = self.mutate(data)
        return web.json_response(data, status=status)

    def _release_json(self, spec: ReleaseSpec) -> dict[str, object]:
        base = f"http://127.0.0.1:{self.port}"
        return {
            "tag_name": spec.tag,
            "name": spec.tag,
            "html_url": f"{base}/releases/{spec.tag}",
            "upload_url": f"{base}/uploads/{spec.tag}{{?name,label}}",
            "assets": [
                {
                    "name": name,
                    "size": len(data),
                    "url": f"{base}/api/assets/{name}",
                    "browser_download_url": f"{base}/download/{spec.tag}/{name}",
                }
                for name, data in spec.assets.items()
            ],
        }

    def _limited(self) -> web.Response | None:
        if not self.rate_limited:
            return None
        reset = str(int(time.time()) + 600)
        headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
        if self.rate_limit_status == 429:
            headers = {"Retry-After": "60"}
        return web.json_response(
            {"message": "API rate limit exceeded"}, status=self.rate_limit_status, headers=headers
        )

    async def _latest(self, request: web.Request) -> web.Response:
        self.auth_headers.append(request.headers.get("Authorization", ""))
        if (limited := self._limited()) is not None:
            return limited
        if self.latest is None:
            return web.json_response({"message": "Not Found"}, status=404)
        return self._answer(self.releases[self.latest])

    async def _by_tag(self, request: web.Request) -> web.Response:
        self.auth_headers.append(request.headers.get("Authorization", ""))
        if (limited := self._limited()) is not None:
            return limited
        spec = self.releases.get(request.match_info["tag"])
        if spec is None:
            return web.json_response({"message": "Not Found"}, status=404)
        return self._answer(spec)

    async def _create(self, request: web.Request) -> web.Response:
        if not request.headers.get("Authorization", "").startswith("Bearer "):
            return web.json_response({"message": "Requires authentication"}, status=401)
        body = await request.json()
        spec = ReleaseSpec(body["tag_name"], body=body.get("body", ""))
        self.releases[spec.tag] = spec
        self.latest = spec.tag
        return web.json_response(self._release_json(spec), status=201)

    async def _upload(self, request: web.Request) -> web.Response:
        spec = self.releases[request.match_info["tag"]]
        name = request.query["name"]
        data = await request.read()
        spec.assets[name] = data
        spec.uploaded[name] = data
        return web.json_response({"name": name, "size": len(data)}, status=201)

    async def _download(self, request: web.Request) -> web.StreamResponse:
        spec = self.releases.get(request.match_info["tag"])
        name = request.match_info["asset"]
        if spec is None or name not in spec.assets:
            return web.Response(status=404)
        data = spec.assets[name]
        if name in self.overflow:
            return await self._overflowing(request, data, self.overflow[name])
        if name in self.truncate_to:
            data = data[: self.truncate_to[name]]
        start = 0
        status = 200
        headers: dict[str, str] = {}
        range_header = request.headers.get("Range")
        if range_header:
            self.range_requests.append(range_header)
            start = int(range_header.removeprefix("bytes=").split("-")[0])
            if start >= len(data):
                return web.Response(status=416)
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        body = data[start:]
        resp = web.StreamResponse(status=status, headers=headers)
        resp.content_length = len(body)
        resp.content_type = "application/octet-stream"
        await resp.prepare(request)
        drop = self.drop_after.pop(name, None)
        if drop is not None:
            await resp.write(body[:drop])
            await asyncio.sleep(0.05)
            assert request.transport is not None
            request.transport.close()  # the connection drops mid-stream
            return resp
        for i in range(0, len(body), 64 * 1024):
            await resp.write(body[i : i + 64 * 1024])
            if self.download_delay:
                await asyncio.sleep(self.download_delay)
        await resp.write_eof()
        return resp

    async def _overflowing(
        self, request: web.Request, data: bytes, total: int
    ) -> web.StreamResponse:
        """Send `total` bytes (the asset, then zeros) whatever size the release declared."""
        resp = web.StreamResponse()
        resp.content_type = "application/octet-stream"
        if self.overflow_length:
            resp.content_length = total
        else:
            resp.enable_chunked_encoding()
        await resp.prepare(request)
        sent = 0
        block = 64 * 1024
        padding = bytes(block)
        while sent < total:
            piece = data[sent : sent + block] if sent < len(data) else padding
            piece = piece[: total - sent]
            try:
                await resp.write(piece)
            except (ConnectionResetError, RuntimeError):
                return resp  # the client stopped reading, as it should
            sent += len(piece)
        await resp.write_eof()
        return resp
