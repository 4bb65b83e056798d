"""Streamable HTTP: the SDK's app under uvicorn, with the limits the SDK leaves to its host.

From the outside in, a request meets:

- the bearer token (`auth.BearerAuth`) when one is required;
- on a loopback bind, a Host check (the bound ``host:port``, or the ``localhost``, ``127.0.0.1``
  and ``[::1]`` forms of the port) and an Origin check (absent, or a loopback origin): a web page
  whose DNS name is rebound to 127.0.0.x cannot reach the tools, whatever loopback address is bound;
  ``--allowed-host`` adds the public name of a proxy that passes the client's Host on (and turns
  the same check on for a non-loopback bind);
- a check of each POSTed message (`wire`): what the SDK cannot read gets one JSON-RPC error;
- a cap on live sessions: when a new session takes the count past ``max_sessions``, the least
  recently used one is ended (idle ones first); the SDK ends sessions idle for longer than
  ``session_idle_s``; either way the session's id then gets 404, and the client re-initializes;
- deadlines on reading: a request's headers must arrive within ``header_timeout_s`` and its body
  within ``body_timeout_s``, else the connection is closed (uvicorn bounds neither).
"""

from __future__ import annotations

import json
import logging
import socket
import sys
from collections.abc import Callable, MutableMapping
from typing import Any

import anyio

from atlas_core.errors import ConfigError
from atlas_ls.mcp._sdk import MCPServer, TransportSecurityMiddleware, TransportSecuritySettings
from atlas_ls.mcp.auth import BearerAuth, is_loopback
from atlas_ls.mcp.context import AppSlot
from atlas_ls.mcp.options import ServerOptions
from atlas_ls.mcp.transport.deadlines import timed_protocol
from atlas_ls.mcp.transport.health import Health
from atlas_ls.mcp.transport.sessions import (
    MCP_PATH,
    App,
    Receive,
    Scope,
    Send,
    SessionLimit,
    header_value,
)
from atlas_ls.mcp.transport.stateless import StatelessRequests
from atlas_ls.mcp.transport.wire import MAX_MESSAGE_BYTES, check_message, oversized

log = logging.getLogger(__name__)

BACKLOG = 256


def serve_http(
    build: Callable[[ServerOptions, AppSlot], MCPServer[Any]],
    options: ServerOptions,
    token: str | None,
) -> None:
    """Bind the port, then serve it from this process, or from ``options.workers`` processes
    forked after the imports they share (`workers.supervise`), until stopped."""
    sock = _bind(options.host, options.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    # Tests and scripts read this line to learn the port when --port 0 picked one.
    print(
        f"atlas-mcp: serving MCP over streamable HTTP at http://{shown}:{port}{MCP_PATH}"
        + (" (stateless)" if options.stateless else "")
        + (f" with {options.workers} workers" if options.workers > 1 else "")
        + (" (bearer token required)" if token else ""),
        file=sys.stderr,
        flush=True,
    )

    def serve() -> None:
        slot = AppSlot()
        anyio.run(_serve, build(options, slot), slot, options, token, sock)

    if options.workers > 1:
        from atlas_ls.mcp.context import preload_for_workers, release_preloaded
        from atlas_ls.mcp.transport.workers import preload, supervise

        preload()
        preload_for_workers(options)
        supervise(options.workers, serve, started=release_preloaded)
    else:
        serve()


async def _serve(
    server: MCPServer[Any],
    slot: AppSlot,
    options: ServerOptions,
    token: str | None,
    sock: socket.socket,
) -> None:
    """Build the guarded app for the bound address and serve it until stopped."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    security = host_security(
        shown, port, loopback=is_loopback(options.host), extra=options.allowed_hosts
    )
    starlette_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=options.host,
        transport_security=security
        or TransportSecuritySettings(enable_dns_rebinding_protection=False),
        stateless_http=options.stateless,
        # A stateless request is answered in one JSON body: nothing streams, any process answers.
        json_response=options.stateless,
        session_idle_timeout=options.session_idle_s,
        # A backstop only: SessionLimit keeps the count at max_sessions, but sessions being
        # opened concurrently are counted once they exist.
        max_sessions=options.max_sessions + BACKLOG,
    )
    app: App = starlette_app
    if options.stateless:
        app = StatelessRequests(starlette_app, server, slot)
        # The SDK logs each stateless request's end at INFO ("Terminating session: None").
        quiet = logging.getLogger("mcp.server.streamable_http")
        quiet.setLevel(max(quiet.getEffectiveLevel(), logging.WARNING))
    else:
        app = SessionLimit(
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
    app = Health(app, slot.readiness)
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


def host_security(
    bound_host: str, port: int, *, loopback: bool, extra: tuple[str, ...] = ()
) -> TransportSecuritySettings | None:
    """The Host and Origin rules for this bind, None for no check: a loopback bind accepts its
    loopback names and ``extra`` (`--allowed-host`, the public name of a proxy that keeps the
    client's Host); another bind checks only when ``extra`` names the hosts to accept."""
    if loopback:
        return loopback_security(bound_host, port, extra)
    if not extra:
        return None
    hosts, origins = _allowed(extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def loopback_security(
    bound_host: str, port: int, extra: tuple[str, ...] = ()
) -> TransportSecuritySettings:
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
    extra_hosts, extra_origins = _allowed(extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts + extra_hosts,
        allowed_origins=origins + extra_origins,
    )


def _allowed(names: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Host and Origin values for `--allowed-host` names: one without a port stands for any port
    (a proxy's `$host` has none; a client's Origin may have one)."""
    hosts: list[str] = []
    origins: list[str] = []
    for name in names:
        has_port = not name.endswith("]") and ":" in name.rsplit("]", 1)[-1]
        forms = [name] if has_port else [name, f"{name}:*"]
        hosts += forms
        origins += [f"{scheme}://{form}" for scheme in ("http", "https") for form in forms]
    return hosts, origins


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
        declared = header_value(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self._limit:
            # Refused on its declared length: none of the body is kept.
            await _drain(receive)
            await _json(send, 413, oversized(self._limit).error(), close=True)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its body arrived: nothing to answer
            body += message.get("body", b"")
            if len(body) > self._limit:
                body.clear()
                if message.get("more_body", False):
                    await _drain(receive)
                await _json(send, 413, oversized(self._limit).error(), close=True)
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


# What of a refused body is read and thrown away before the 413 goes out. A server that closes
# the connection while the client is still sending resets it, and the reset discards the 413 the
# client has not read yet: the client sees a broken connection instead of the refusal (nginx's
# lingering close drains the same way). Bounded, so a client that never stops costs little.
DRAIN_BYTES = 2 * MAX_MESSAGE_BYTES
DRAIN_S = 1.0


async def _drain(receive: Receive) -> None:
    """Discard what is left of a request's body: at most `DRAIN_BYTES`, for at most `DRAIN_S`."""
    seen = 0
    with anyio.move_on_after(DRAIN_S):
        while seen <= DRAIN_BYTES:
            message = await receive()
            if message["type"] != "http.request":
                return
            seen += len(message.get("body", b""))
            if not message.get("more_body", False):
                return


async def _json(send: Send, status: int, payload: dict[str, Any], *, close: bool = False) -> None:
    body = json.dumps(payload).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
