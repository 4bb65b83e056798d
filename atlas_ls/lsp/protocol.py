"""The JSON-RPC wire of the language server: message framing, and an answer to every request.

pygls 2.x leaves a client waiting forever in several places, so this module replaces them:

- Its reader drops a request whose params do not fit the LSP types (``"line": -1``,
  ``"position": null``, params ``[1, 2]``) with "Unable to deserialize": the id is lost with the
  exception. Here such a request is answered with InvalidParams (-32602), a message that is no
  request at all (a batch, a scalar, ``"jsonrpc": "1.0"``) with InvalidRequest (-32600), a body
  that is not JSON with ParseError (-32700), each with a one-line reason.
- Its header parser ignores a header it cannot read and then reads the next message's header as
  part of the body, silently losing that message too. Here a header stream that is not LSP
  framing (no or a negative Content-Length, a stray line, a message over `MAX_MESSAGE_BYTES`)
  stops the server with exit code 1 and one line on stderr: nothing after it can be trusted.
- It sends the handler's traceback to the client in ``error.data``; here it stays in the log.
- It answers nothing after ``shutdown``; here later requests get InvalidRequest, as the spec says.
  Before ``initialize`` its handlers fail on the missing workspace; here requests get
  ServerNotInitialized (-32002) and notifications are dropped, as the spec says.
- Its stdio loop swallows the SystemExit of ``exit``, so the exit code was always 0; the server
  (server.py) keeps it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 256 * 1024 * 1024  # a 100 MB document still opens; a lying length is refused
MAX_HEADER_LINE_BYTES = 1024
MAX_HEADER_LINES = 16
_HEADERS = (b"content-length", b"content-type")  # all the headers the LSP base protocol has
MAX_REASON_CHARS = 300

MsgId = int | str


class FramingError(Exception):
    """The input is not LSP framing; where the next message starts cannot be known."""


class FrameReader(Protocol):
    async def readline(self) -> bytes: ...

    async def readexactly(self, n: int) -> bytes: ...


def _show(raw: bytes) -> str:
    text = repr(raw[:40])
    return text + "..." if len(raw) > 40 else text


async def read_message(reader: FrameReader) -> bytes | None:
    """The body of the next message; None when the input ends between messages."""
    length: int | None = None
    headers = 0
    while True:
        line = await reader.readline()
        if not line:
            if headers:
                raise FramingError("the input ended inside a message header")
            return None
        if len(line) > MAX_HEADER_LINE_BYTES:
            raise FramingError(f"a header line is over {MAX_HEADER_LINE_BYTES} bytes")
        if not line.endswith(b"\n"):
            raise FramingError("the input ended inside a message header")
        text = line.strip()
        if not text:
            if headers:
                break
            continue  # an empty line between messages is harmless
        headers += 1
        if headers > MAX_HEADER_LINES:
            raise FramingError(f"a message has over {MAX_HEADER_LINES} header lines")
        name, colon, value = text.partition(b":")
        name = name.strip().lower()
        if not colon or name not in _HEADERS:
            raise FramingError(f"{_show(text)} is not an LSP message header")
        if name == b"content-length":
            value = value.strip()
            if length is not None or not value.isdigit() or len(value) > 15:
                raise FramingError(f"Content-Length {_show(value)} is not a byte count")
            length = int(value)
    if length is None:
        raise FramingError("a message header has no Content-Length")
    if length > MAX_MESSAGE_BYTES:
        raise FramingError(
            f"a message of {length} bytes is over the {MAX_MESSAGE_BYTES}-byte limit"
        )
    body = await reader.readexactly(length)
    if len(body) < length:
        raise FramingError(f"the input ended {length - len(body)} bytes into a message body")
    return body


class StdinFrames:
    """Blocking reads of a binary stream, done one at a time on a daemon thread: a read waiting
    for a client that never writes again cannot hold up the process's exit."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._jobs: queue.SimpleQueue[tuple[Callable[[], bytes], Callable[[Any], object]]] = (
            queue.SimpleQueue()
        )
        threading.Thread(target=self._work, name="atlas-stdin", daemon=True).start()

    def _work(self) -> None:
        while True:
            read, deliver = self._jobs.get()
            try:
                result: Any = read()
            except Exception as exc:  # an I/O error ends the input like EOF, with a log line
                logger.error("reading the client's messages failed: %s", exc)
                result = b""
            try:
                deliver(result)
            except RuntimeError:  # the event loop has closed: the server is exiting
                return

    def _submit(self, read: Callable[[], bytes]) -> asyncio.Future[bytes]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()

        def settle(result: bytes) -> None:
            if not future.done():
                future.set_result(result)

        self._jobs.put((read, lambda result: loop.call_soon_threadsafe(settle, result)))
        return future

    async def readline(self) -> bytes:
        return await self._submit(lambda: self._stream.readline(MAX_HEADER_LINE_BYTES + 1))

    async def readexactly(self, n: int) -> bytes:
        return await self._submit(lambda: self._stream.read(n))


class StreamFrames:
    """An `asyncio.StreamReader` (the TCP transport) as a `FrameReader`."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def readline(self) -> bytes:
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial
        except asyncio.LimitOverrunError:
            raise FramingError(f"a header line is over {MAX_HEADER_LINE_BYTES} bytes") from None

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._reader.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _reason(exc: Exception) -> str:
    """What was wrong with a message's fields, in one line and without a traceback."""
    if isinstance(exc, RecursionError):
        return "the params are nested too deeply"
    if isinstance(exc, cattrs.BaseValidationError):
        try:
            reason = "; ".join(cattrs.transform_error(exc)[:3])
        except Exception:
            reason = type(exc).__name__
    else:
        reason = f"{type(exc).__name__}: {exc}"
    return reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 3] + "..."


@dataclass(frozen=True, slots=True)
class RejectedMessage:
    """A message from the client that cannot be handled; a request among them gets `code`."""

    id: MsgId | None
    is_request: bool
    code: int
    message: str


@dataclass(slots=True)
class JsonRPCResponse:
    """A response whose result did not fit the type we expected, passed on untyped."""

    id: MsgId
    jsonrpc: str
    result: Any


# What a client may send before `initialize` (None: a response, which has no method).
_BEFORE_INITIALIZE = frozenset({None, types.INITIALIZE, types.SHUTDOWN, types.EXIT})


class AtlasProtocol(LanguageServerProtocol):
    """pygls's protocol, with an answer to every request (see the module's docstring)."""

    def handle_body(self, body: bytes) -> None:
        """Parse and dispatch one framed message."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:  # ValueError: not JSON, not UTF-8
            logger.warning(
                "the client sent a message that is not JSON (%d bytes): %s", len(body), exc
            )
            self.send_error(None, JsonRpcParseError.CODE, "Parse error: the message is not JSON")
            return
        if not isinstance(data, dict):
            what = "a batch (a JSON array)" if isinstance(data, list) else "not a JSON object"
            logger.warning("the client sent a message that is %s", what)
            self.send_error(
                None, JsonRpcInvalidRequest.CODE, f"Invalid Request: the message is {what}"
            )
            return
        self.handle_message(self.structure_message(data))

    def structure_message(self, data: dict[str, Any]) -> Any:
        """`data` as an lsprotocol message, or a `RejectedMessage` that says why it is none.

        pygls raises instead, out of the JSON decoder it is a hook of, and loses the request's id.
        """
        msg_id = data.get("id")
        is_request = "id" in data
        answer_id = msg_id if _valid_id(msg_id) else None
        if "method" not in data and ("result" in data or "error" in data):
            return self._structure_reply(data)
        method = data.get("method")
        problem = ""
        if data.get("jsonrpc") != self.VERSION:
            problem = f'"jsonrpc" must be "{self.VERSION}"'
        elif not isinstance(method, str):
            problem = '"method" must be a string'
        elif is_request and answer_id is None:
            problem = '"id" must be a string or an integer'
        if problem:
            return RejectedMessage(
                answer_id, True, JsonRpcInvalidRequest.CODE, f"Invalid Request: {problem}"
            )
        name = str(method)[:100]  # a string by now; the client chose its length
        message_type = self.get_message_type(method) or (
            JsonRPCRequestMessage if is_request else JsonRPCNotification
        )
        try:
            message = self._converter.structure(data, message_type)
        except Exception as exc:
            return RejectedMessage(
                answer_id,
                is_request,
                JsonRpcInvalidParams.CODE,
                f"Invalid params for {name}: {_reason(exc)}",
            )
        if is_request and not hasattr(message, "id"):
            return RejectedMessage(
                answer_id,
                True,
                JsonRpcInvalidRequest.CODE,
                f"Invalid Request: {name} is a notification; send it without an id",
            )
        return message

    def _structure_reply(self, data: dict[str, Any]) -> Any:
        """A response to one of our requests; an odd result is passed on as it came (our callers
        check what they get) so the request waiting for it is not left pending."""
        try:
            return super().structure_message(data)
        except Exception as exc:
            if _valid_id(data.get("id")) and "result" in data:
                logger.warning(
                    "a response from the client has an unexpected result: %s", _reason(exc)
                )
                return JsonRPCResponse(data["id"], self.VERSION, data["result"])
            return RejectedMessage(None, False, JsonRpcInvalidRequest.CODE, "a malformed response")

    def handle_message(self, message: Any) -> None:
        if isinstance(message, RejectedMessage):
            logger.warning("%s", message.message)
            if message.is_request:
                self.send_error(message.id, message.code, message.message)
            return
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if self._workspace is None and method not in _BEFORE_INITIALIZE:
            if msg_id is not None:
                error = JsonRpcServerNotInitialized(f"{method}: send initialize first")
                self._send_response(msg_id, None, error.to_response_error())
            else:
                logger.warning("ignored %s: it came before initialize", method)
            return
        if method == types.INITIALIZE and self._workspace is not None and msg_id is not None:
            # LSP allows one initialize; a second would reset the workspace and forget every open
            # document (found by benchmarks/fuzz.py, lsp_wire class).
            error = JsonRpcInvalidRequest("initialize: the server is already initialized")
            self._send_response(msg_id, None, error.to_response_error())
            return
        if self._shutdown and method and method != types.EXIT and msg_id is not None:
            # pygls drops these silently, which leaves the client waiting for a reply.
            error = JsonRpcInvalidRequest(f"{method}: the server is shutting down")
            self._send_response(msg_id, None, error.to_response_error())
            return
        super().handle_message(message)

    def send_error(self, msg_id: MsgId | None, code: int, message: str) -> None:
        # A plain dict: lsprotocol's ResponseErrorMessage leaves out an "id" of None, and JSON-RPC
        # wants "id": null when the request's id could not be read.
        self._send_data(
            {"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": code, "message": message}}
        )

    def _send_response(
        self,
        msg_id: MsgId,
        result: Any | None = None,
        error: types.ResponseError | None = None,
    ) -> None:
        if error is not None and error.data is not None:
            # pygls attaches the handler's traceback as `data` (JsonRpcInternalError.of); the
            # server's log has it, the client gets the one-line message.
            error = types.ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result, error)


async def serve(reader: FrameReader, protocol: AtlasProtocol, stop: threading.Event) -> str:
    """Handle messages until the input ends ("") or stops being LSP framing (the reason)."""
    while not stop.is_set():
        try:
            body = await read_message(reader)
        except FramingError as exc:
            return str(exc)
        if body is None:
            return ""
        try:
            protocol.handle_body(body)
        except Exception:  # a bug in a handler's dispatch must not end the server
            logger.exception("handling a message failed")
    return ""
