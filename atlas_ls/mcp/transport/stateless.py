"""Stateless streamable HTTP: each JSON-RPC request answered in the task that received it.

With ``stateless_http`` the SDK gives every POST a transport of its own: memory streams, a task
group, a dispatcher and a server task, all to carry one request to the handlers and one answer
back. That costs more than the search behind a keyword query. `StatelessRequests` answers a plain
request itself, through the SDK's single-request entry (`_sdk.answer_one`: the same handlers,
validation, errors and serialization), and hands everything else to the SDK's stateless app
unchanged: notifications and responses (202), GET and DELETE, a missing or wrong Accept or
Content-Type, a protocol version the handshake-era transport does not own.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any

from atlas_ls.mcp._sdk import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    MCPServer,
    answer_one,
    check_accept_headers,
)
from atlas_ls.mcp.context import AppSlot
from atlas_ls.mcp.transport.sessions import MCP_PATH, App, Receive, Scope, Send, header_value

JSON_TYPE = "application/json"


class StatelessRequests:
    """Answer POSTed JSON-RPC requests to `MCP_PATH` here; pass the rest to the SDK's app. Sits
    behind `MessageCheck`, so the body it reads is one message the SDK can read."""

    def __init__(self, app: App, server: MCPServer[Any], slot: AppSlot) -> None:
        self.app = app
        self._server = server
        self._slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        version = header_value(scope, b"mcp-protocol-version") if scope["type"] == "http" else None
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or scope["path"] != MCP_PATH
            or self._slot.app is None
            or (version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS)
            or not _is_json(header_value(scope, b"content-type"))
        ):
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request

        request = Request(scope, receive)
        if not check_accept_headers(request)[0]:
            await self.app(scope, receive, send)  # the SDK answers 406
            return
        body = await request.body()
        message = json.loads(body)
        if not (isinstance(message, dict) and "id" in message and "method" in message):
            await self.app(scope, _replay(body, receive), send)
            return
        answer = await answer_one(
            self._server,
            self._slot.app,
            message["id"],
            message["method"],
            message.get("params"),
            version,
            request,
        )
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", JSON_TYPE.encode("ascii")),
                    (b"content-length", str(len(answer)).encode("ascii")),
                ],
            }
        )
        await send({"type": "http.response.body", "body": answer})


def _is_json(content_type: str | None) -> bool:
    """The SDK transport's Content-Type rule: some part before ``;`` is application/json."""
    parts = (content_type or "").split(";")[0].split(",")
    return any(part.strip() == JSON_TYPE for part in parts)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> MutableMapping[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
