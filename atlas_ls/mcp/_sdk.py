"""The one module that imports the MCP Python SDK (mcp 2.x); the rest of the server imports it here.

Keeping every SDK name in one place means an SDK upgrade is one file to read, and it is where the
two SDK behaviours this server needs to bend are handled: the logging capability is deprecated in
the newest protocol revision but still how handshake-era clients receive server logs, and a
connection's long-lived channel is only reachable through the per-request session.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    ListResourcesResult,
    Resource,
    TextContent,
    ToolAnnotations,
)

__all__ = [
    "INVALID_PARAMS",
    "CallToolResult",
    "Context",
    "ListResourcesResult",
    "MCPError",
    "MCPServer",
    "Resource",
    "ResourceError",
    "ResourceNotFoundError",
    "TextContent",
    "Tool",
    "ToolAnnotations",
    "ToolError",
    "TransportSecuritySettings",
    "connection_key",
    "report_progress",
    "send_log",
    "text_result",
]

log = logging.getLogger(__name__)

# Every tool only reads the docs: clients may call them freely and retry them.
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def text_result(text: str, structured: dict[str, Any]) -> CallToolResult:
    """A tool result with a readable text for the model and the same facts as structured output."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


async def send_log(session: Any, level: str, message: str, *, request_id: Any = None) -> None:
    """A `notifications/message` to the client; a failure to deliver never fails the caller."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await session.send_log_message(
                level=level, data=message, logger="atlas", related_request_id=request_id
            )
    except Exception as exc:  # a closed connection, a client that left
        log.debug("log notification not delivered: %s", exc)


async def report_progress(ctx: Context, progress: float, total: float, message: str) -> None:
    """Progress for the current request (a no-op when the client sent no progress token)."""
    try:
        await ctx.report_progress(progress, total, message)
    except Exception as exc:
        log.debug("progress notification not delivered: %s", exc)


def connection_key(session: Any) -> int:
    """Identity of the connection a per-request session belongs to (one entry per client)."""
    return id(getattr(session, "_connection", session))
