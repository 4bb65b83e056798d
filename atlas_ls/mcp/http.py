"""Streamable HTTP: the SDK's app under uvicorn, with the limits the SDK leaves to its host.

From the outside in, a request meets:

- the bearer token (`auth.BearerAuth`) when one is required;
- on a loopback bind, a Host check (the bound ``host:port``, or the ``localhost``, ``127.0.0.1``
  and ``[::1]`` forms of the port) and an Origin check (absent, or a loopback origin): a web page
  whose DNS name is rebound to 127.0.0.x cannot reach the tools, whatever loopback address is bound;
- a check of each POSTed message (`wire`): what the SDK cannot read gets one JSON-RPC error;
- a cap on live sessions: when a new session takes the count past ``max_sessions``, the least
  recently used one is ended (idle ones first); the SDK ends sessions idle for longer than
  ``session_idle_s``; either way the session's id then gets 404, and the client re-initializes;
- deadlines on reading: a request's headers must arrive within ``header_timeout_s`` and its body
  within ``body_timeout_s``, else the connection is closed (uvicorn bounds neither).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from atlas_core.errors import ConfigError
from atlas_ls.mcp._sdk import MCPServer, TransportSecurityMiddleware, TransportSecuritySettings
from atlas_ls.mcp.auth import BearerAuth, is_loopback
from atlas_ls.mcp.options import ServerOptions
from atlas_ls.mcp.wire import MAX_MESSAGE_BYTES, check_message, oversized

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
SESSION_HEADER = b"mcp-session-id"
BACKLOG = 256

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


async def serve_http(server: MCPServer[Any], options: ServerOptions, token: str | None) -> None:
    """Bind, build the guarded app for the bound address, and serve until stopped."""
    import uvicorn

    sock = _bind(options.host, options.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    security = loopback_security(shown, port) if is_loopback(options.host) else None
    starlette_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=options.host,
        transport_security=security
        or TransportSecuritySettings(enable_dns_rebinding_protection=False),
        session_idle_timeout=options.session_idle_s,
        # A backstop only: SessionLimit keeps the count at max_sessions, but sessions being
        # opened concurrently are counted once they exist.
        max_sessions=options.max_sessions + BACKLOG,
    )
    app: App = SessionLimit(
        starlette_app,
        server.session_manager.handle_request,
        limit=options.max_sessions,
        host_header=f"{shown}:{port}",
    )
    app = MessageCheck(app)
    if security is not None:
        app = OriginCheck(app, security)
    if token is not None:
        app = BearerAuth(app, token)
    # Tests and scripts read this line to learn the port when --port 0 picked one.
    print(
        f"atlas-mcp: serving MCP over streamable HTTP at http://{shown}:{port}{MCP_PATH}"
        + (" (bearer token required)" if token else ""),
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn.Config(
        app,
        http=timed_protocol(options.header_timeout_s, options.body_timeout_s),
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}",
            hint="pick another --port (0 picks a free one)",
        ) from None
    sock.listen(BACKLOG)
    return sock


# --- who may call: Host and Origin on loopback ---------------------------------------------------


def loopback_security(bound_host: str, port: int) -> TransportSecuritySettings:
    """Host and Origin rules for a server bound to a loopback address (bound_host as in a URL)."""
    names = dict.fromkeys([bound_host, "localhost", "127.0.0.1", "[::1]"])
    hosts = [f"{name}:{port}" for name in names]
    origins = [
        f"{scheme}://{name}{port_part}"
        for scheme in ("http", "https")
        for name in names
        for port_part in ("", ":*")
    ]
    if port == 80:
        hosts += list(names)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


class OriginCheck:
    """Refuse a request whose Host or Origin is not this loopback server's (421 / 403), before
    anything else sees it: a refused request never opens a session or evicts one."""

    def __init__(self, app: App, settings: TransportSecuritySettings) -> None:
        self.app = app
        self._check = TransportSecurityMiddleware(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            from starlette.requests import Request

            refusal = await self._check.validate_request(Request(scope), is_post=False)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


# --- what is sent: one readable JSON-RPC message per POST -----------------------------------------


class MessageCheck:
    """Read each POSTed body (at most `MAX_MESSAGE_BYTES`) and answer one the SDK cannot read
    with a JSON-RPC error (HTTP 400); pass the others on unchanged."""

    def __init__(self, app: App, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.app = app
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != MCP_PATH:
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its body arrived: nothing to answer
            body += message.get("body", b"")
            if len(body) > self._limit:
                await _json(send, 413, oversized(self._limit).error())
                return
            if not message.get("more_body", False):
                break
        rejection = check_message(bytes(body))
        if rejection is not None:
            log.warning("refused an HTTP message: %s", rejection.message)
            await _json(send, 400, rejection.error())
            return
        replayed = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _json(send: Send, status: int, payload: dict[str, Any]) -> None:
    import json

    body = json.dumps(payload).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


# --- how many: a bounded set of live sessions ------------------------------------------------------


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
        session_id = _header(scope, SESSION_HEADER)
        session = self._sessions.get(session_id) if session_id else None
        if session is None:
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
                if found and found.decode("latin-1") not in self._sessions:
                    opened = found.decode("latin-1")
                    self._sessions[opened] = _Session(in_flight=1)
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


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


# --- how slow: deadlines on reading a request -------------------------------------------------------


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with read deadlines: a request's headers must arrive within
    ``header_timeout`` of the connection opening (or of the previous response), and its body within
    ``body_timeout`` of its headers; otherwise the connection is closed. The deadline of a phase is
    fixed when it starts, so sending a byte now and then does not extend it."""

    header_timeout = 10.0
    body_timeout = 30.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._phase: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._set_phase(None)
        super().connection_lost(exc)

    def _watch(self) -> None:
        if self.transport.is_closing():
            self._set_phase(None)
            return
        state = self.conn.their_state
        self._set_phase(
            "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        )

    def _set_phase(self, phase: str | None) -> None:
        if phase == self._phase:
            return
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._phase = phase
        if phase is not None:
            limit = self.header_timeout if phase == "headers" else self.body_timeout
            self._deadline = self.loop.call_later(limit, self._expired, phase, limit)

    def _expired(self, phase: str, limit: float) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        partial = bool(self.conn.trailing_data[0])
        if phase == "body" or partial:
            client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
            log.info(
                "closed the connection of %s: its request %s took over %g s", client, phase, limit
            )
        if phase == "headers" and partial:
            # Nothing of a response has been sent yet, so the client can still be told why.
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
            )
        self.transport.close()


def timed_protocol(header_timeout: float, body_timeout: float) -> type[asyncio.Protocol]:
    """`TimedH11Protocol` with these deadlines, as uvicorn's ``http`` option takes it."""
    return type(
        "TimedH11Protocol",
        (TimedH11Protocol,),
        {"header_timeout": header_timeout, "body_timeout": body_timeout},
    )
