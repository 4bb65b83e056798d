"""The one module that imports the MCP Python SDK (mcp 2.x); the rest of the server imports it here.

Keeping every SDK name in one place means an SDK upgrade is one file to read, and it is where the
SDK behaviours this server needs to bend are handled: the logging capability is deprecated in the
newest protocol revision but still how handshake-era clients receive server logs, a connection's
long-lived channel is only reachable through the per-request session, and a server runs over
streams of its own (each stdio line parsed once, here, and lines the SDK would drop unanswered
answered first; see `transport.wire` and `transport.stdio`) only through the low-level server inside
`MCPServer`.
"""

from __future__ import annotations

import logging
import warnings
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.connection import Connection
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import ResourceSecurity
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.server.runner import serve_one
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from mcp.shared._context_streams import create_context_streams
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError, NoBackChannelError
from mcp.shared.jsonrpc_dispatcher import (
    handler_exception_to_error_data,
    progress_token_from_params,
)
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp.shared.transport_context import TransportContext
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCResponse,
    ListResourcesResult,
    Resource,
    TextContent,
    ToolAnnotations,
    jsonrpc_message_adapter,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

__all__ = [
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "MAX_MESSAGE_BYTES",
    "PARSE_ERROR",
    "CallToolResult",
    "Context",
    "ListResourcesResult",
    "MCPError",
    "MCPServer",
    "Resource",
    "ResourceError",
    "ResourceNotFoundError",
    "ResourceSecurity",
    "SessionMessage",
    "TextContent",
    "Tool",
    "ToolAnnotations",
    "ToolError",
    "TransportSecurityMiddleware",
    "TransportSecuritySettings",
    "answer_one",
    "check_accept_headers",
    "check_arguments",
    "connection_key",
    "create_context_streams",
    "error_message",
    "parse_message",
    "report_progress",
    "send_log",
    "serve_connection",
    "text_result",
    "validated_once",
]

# The SDK refuses larger HTTP bodies; stdio lines get the same limit.
MAX_MESSAGE_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE

log = logging.getLogger(__name__)

# Every tool only reads the docs, on this machine: clients may call them freely and retry them.
# The destructive and idempotent hints mean something only for a tool that writes (MCP spec), so
# they are not sent: tools/list is paid for in tokens.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


# The arguments of the current request's tool call as `check_arguments` validated them:
# (metadata, arguments, validated). Set in the request's own task, so no other request sees it.
_CHECKED: ContextVar[tuple[FuncMetadata, dict[str, Any], dict[str, Any]] | None] = ContextVar(
    "atlas_checked_arguments", default=None
)


class _ValidatedOnce(FuncMetadata):
    """A tool's metadata that validates each call once: it takes the arguments `check_arguments`
    validated for this request, and the results our tools build with `text_result` from a dump
    of their own output model (the SDK would validate both a second time)."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        checked = _CHECKED.get()
        if checked is not None and checked[0] is self and checked[1] == arguments_to_validate:
            return checked[2]
        return super().validate_arguments(arguments_to_validate)

    def convert_result(self, result: Any) -> Any:
        if isinstance(result, CallToolResult):
            return result
        return super().convert_result(result)


def validated_once(tool: Tool) -> Tool:
    """`tool` with its call validated once (see `_ValidatedOnce`)."""
    meta = tool.fn_metadata
    tool.fn_metadata = _ValidatedOnce(
        arg_model=meta.arg_model,
        output_schema=meta.output_schema,
        output_model=meta.output_model,
        wrap_output=meta.wrap_output,
    )
    return tool


def check_arguments(tool: Tool, arguments: dict[str, Any]) -> None:
    """Validate a call's arguments (pydantic's ValidationError if they do not fit), once: the
    tool's own validation then takes this result."""
    validated = tool.fn_metadata.validate_arguments(arguments)
    _CHECKED.set((tool.fn_metadata, arguments, validated))


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


def parse_message(raw: bytes | str) -> tuple[JSONRPCMessage, bool]:
    """``raw`` read exactly as the SDK's transports read it (pydantic's ValidationError if they
    cannot), and whether it is a notification."""
    message = jsonrpc_message_adapter.validate_json(raw, by_name=False)
    return message, isinstance(message, JSONRPCNotification)


def error_message(error: dict[str, Any]) -> SessionMessage:
    """A JSON-RPC error response (a dict with jsonrpc, id, error) ready for a write stream."""
    return SessionMessage(JSONRPCError.model_validate(error))


async def serve_connection(server: MCPServer[Any], read_stream: Any, write_stream: Any) -> None:
    """Serve one connection over the given streams: `MCPServer.run_stdio_async` with streams of
    our own. Only the low-level server runs on given streams, and MCPServer keeps it private."""
    lowlevel = server._lowlevel_server
    await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


@dataclass
class _OneExchange:
    """The dispatch context of one stateless HTTP request answered with JSON: nothing but the answer
    reaches the client, so notifications and progress are dropped (as the SDK's JSON mode drops
    them) and a request to the client is refused (there is no channel back)."""

    transport: TransportContext
    request_id: Any
    message_metadata: ServerMessageMetadata
    progress_token: Any = None
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)
    can_send_request: bool = False

    async def send_raw_request(self, method: str, params: Any, opts: Any = None) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Any, opts: Any = None) -> None:
        pass

    async def progress(
        self, progress: float, total: float | None = None, message: Any = None
    ) -> None:
        pass


async def answer_one(
    server: MCPServer[Any],
    lifespan_state: Any,
    request_id: str | int,
    method: str,
    params: dict[str, Any] | None,
    protocol_version: str | None,
    http_request: Any,
) -> bytes:
    """The JSON body answering one JSON-RPC request, handled as the SDK's stateless streamable-HTTP
    transport handles it (a born-ready connection at ``protocol_version``, the same handlers, the
    same exception-to-error mapping and serialization), without its per-request streams and tasks."""
    connection = Connection.from_envelope(
        protocol_version or DEFAULT_NEGOTIATED_VERSION, None, None
    )
    dctx = _OneExchange(
        transport=TransportContext(
            kind="streamable-http", can_send_request=False, headers=http_request.headers
        ),
        request_id=request_id,
        message_metadata=ServerMessageMetadata(request_context=http_request),
        progress_token=progress_token_from_params(params),
    )
    message: JSONRPCResponse | JSONRPCError
    try:
        result = await serve_one(
            server._lowlevel_server,
            dctx,  # pyright: ignore[reportArgumentType]
            method,
            params,
            connection=connection,
            lifespan_state=lifespan_state,
        )
        message = JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result)
    except Exception as exc:
        error = handler_exception_to_error_data(exc)
        if error is None:
            log.exception("handler for %r raised", method)
            error = ErrorData(code=0, message=str(exc))  # what the SDK's dispatcher answers
        message = JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
