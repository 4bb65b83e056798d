"""A bounded set of live streamable-HTTP sessions.

The SDK keeps every session until it is deleted or idle for its timeout, so a client that only
ever initializes grows memory without bound. `SessionLimit` sits in front of the SDK's app, learns
each session from the response that opens it, and ends the least recently used one (with no
request in flight, when there is one) each time a new one takes the count past the limit.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
SESSION_HEADER = b"mcp-session-id"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass
class _Session:
    in_flight: int = 0


class SessionLimit:
    """Keep at most ``limit`` live sessions: each new one past it ends the least recently used
    (one with no request in flight if there is any) with a DELETE to the SDK's session manager, the
    MCP way to end a session. Sessions the SDK ended itself (idle, DELETE) are forgotten when their
    id next gets 404, or when they reach the old end of the queue."""

    def __init__(self, app: App, terminate: App, *, limit: int, host_header: str) -> None:
        self.app = app
        self._terminate = terminate
        self._limit = limit
        self._host = host_header.encode("ascii")
        self._sessions: OrderedDict[str, _Session] = OrderedDict()  # least recently used first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != MCP_PATH:
            await self.app(scope, receive, send)
            return
        session_id = header_value(scope, SESSION_HEADER)
        session = self._sessions.get(session_id) if session_id else None
        if not session_id or session is None:
            await self._open(scope, receive, send)
            return
        self._sessions.move_to_end(session_id)
        session.in_flight += 1
        status = 0

        async def watch(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            session.in_flight -= 1
            ended = status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300)
            if ended:
                self._sessions.pop(session_id, None)
            elif session_id in self._sessions:
                self._sessions.move_to_end(session_id)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request with no (or an unknown) session id: it opens a session if it succeeds."""
        opened: str | None = None

        async def watch(message: MutableMapping[str, Any]) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                found = dict(message.get("headers") or []).get(SESSION_HEADER)
                if found and (new_id := found.decode("latin-1")) not in self._sessions:
                    opened = new_id
                    self._sessions[new_id] = _Session(in_flight=1)
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if opened is not None and opened in self._sessions:
                self._sessions[opened].in_flight -= 1
                self._sessions.move_to_end(opened)
        if opened is not None:
            await self._make_room(keep=opened)

    async def _make_room(self, keep: str) -> None:
        while len(self._sessions) > self._limit:
            others = [sid for sid in self._sessions if sid != keep]
            victim = next((sid for sid in others if not self._sessions[sid].in_flight), others[0])
            self._sessions.pop(victim)
            log.info("ending session %s: more than %d sessions are open", victim[:8], self._limit)
            await self._end(victim)

    async def _end(self, session_id: str) -> None:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": "http",
            "path": MCP_PATH,
            "raw_path": MCP_PATH.encode("ascii"),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", self._host), (SESSION_HEADER, session_id.encode("latin-1"))],
            "client": None,
            "server": None,
        }
        sent = False

        async def receive() -> MutableMapping[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return {"type": "http.disconnect"}

        async def discard(message: MutableMapping[str, Any]) -> None:
            pass

        try:
            await self._terminate(scope, receive, discard)
        except Exception:  # the session may be gone already; the cap must hold regardless
            log.exception("ending session %s failed", session_id[:8])


def header_value(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None
