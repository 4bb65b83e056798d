"""Who may talk to the HTTP transport.

On the loopback interface the machine's own user is the only caller, so no token is needed (one
is still enforced when ATLAS_MCP_TOKEN is set). Any other address exposes the docs tools to the
network: that takes an explicit ``--allow-remote`` and a bearer token on every request, and the
server refuses to start without one rather than serve openly.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import MutableMapping
from typing import Any

from atlas_core.errors import ConfigError

ENV_TOKEN = "ATLAS_MCP_TOKEN"  # the variable of the `mcp_token` setting
MIN_TOKEN_CHARS = 16
_TOKEN_HINT = "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def required_token(host: str, allow_remote: bool, token: str | None) -> str | None:
    """The bearer token requests must carry, None for none; ConfigError when unsafe to start.
    `token`: the `mcp_token` setting (``$ATLAS_MCP_TOKEN``)."""
    token = (token or "").strip() or None
    if is_loopback(host):
        return token
    if not allow_remote:
        raise ConfigError(
            f"refusing to listen on {host}: only 127.0.0.1 is allowed without --allow-remote",
            hint=f"bind 127.0.0.1, or pass --allow-remote and set {ENV_TOKEN}",
        )
    if token is None:
        raise ConfigError(
            f"--allow-remote needs a bearer token: {ENV_TOKEN} is not set",
            hint=f"set {ENV_TOKEN} to a secret of {MIN_TOKEN_CHARS}+ characters; {_TOKEN_HINT}",
        )
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"{ENV_TOKEN} is {len(token)} characters; a remote bind needs {MIN_TOKEN_CHARS} or more",
            hint=_TOKEN_HINT,
        )
    return token


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>``, else 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self._authorized(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "error": "invalid_token",
                "error_description": f"missing or wrong bearer token (the server's {ENV_TOKEN})",
            }
        ).encode("utf-8")
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode("ascii")),
                    (b"www-authenticate", b'Bearer realm="atlas-mcp", error="invalid_token"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorized(self, scope: MutableMapping[str, Any]) -> bool:
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(
                    credentials.strip(), self._token
                )
        return False
