"""Liveness and readiness on the MCP port, answered before the token, Host or message checks.

An orchestrator or load balancer probes them without credentials: ``GET /healthz`` is 200 while
the process serves; ``GET /readyz`` is 200 with the bundle served (name, build, demo flag, path)
once a valid bundle is loaded, and 503 with the reason while there is none (loading, or it failed
to load). Both read state the server already holds; neither queries the engine.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from atlas_ls.mcp.transport.sessions import App, Receive, Scope, Send

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
WORKER_HEADER = b"x-atlas-worker"  # the pid of the process that answered

Readiness = Callable[[], tuple[bool, dict[str, Any]]]


class Health:
    """Answer the two probe paths here; pass everything else on. Every response this server sends
    names its process in ``X-Atlas-Worker``, which tells the workers behind one port apart."""

    def __init__(self, app: App, readiness: Readiness) -> None:
        self.app = app
        self._readiness = readiness

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path == HEALTH_PATH:
            await self._answer(send, 200, {"status": "ok", "pid": os.getpid()}, scope)
            return
        if path == READY_PATH:
            ready, detail = self._readiness()
            body = {"status": "ready" if ready else "not ready", "pid": os.getpid(), **detail}
            await self._answer(send, 200 if ready else 503, body, scope)
            return
        pid = str(os.getpid()).encode("ascii")

        async def named(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), (WORKER_HEADER, pid)]
            await send(message)

        await self.app(scope, receive, named)

    async def _answer(self, send: Send, status: int, payload: dict[str, Any], scope: Scope) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            status, payload = 405, {"status": "use GET"}
        body = json.dumps(payload).encode("utf-8")
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode("ascii")),
                    (b"cache-control", b"no-store"),
                    (WORKER_HEADER, str(os.getpid()).encode("ascii")),
                ],
            }
        )
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )
