"""What to answer a JSON-RPC message the SDK cannot read.

The SDK drops a stdio line it cannot parse or validate without a word, so the client waits forever
for the answer to a request with a lone surrogate, a batch, ``"jsonrpc": "1.0"`` or deep nesting;
over HTTP it answers, but with pydantic's multi-line text and never the request's id. Both
transports check each message here first, with the SDK's own reader, and answer what it refuses
with one JSON-RPC error: parse error (-32700), invalid request (-32600) or invalid params (-32602),
carrying the request's id when it can be read and null when it cannot. Notifications and responses
are answered with nothing, as JSON-RPC says. Messages never echo the input or a traceback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from atlas_ls.mcp._sdk import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_MESSAGE_BYTES,
    PARSE_ERROR,
    SessionMessage,
    parse_message,
)

__all__ = ["MAX_MESSAGE_BYTES", "Rejection", "check_message", "oversized", "read_message"]

MAX_ID_CHARS = 200  # a longer string id is not echoed back (the answer then has id null)


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a message was refused, and the error to answer it with."""

    code: int
    message: str
    request_id: str | int | None = None
    answer: bool = (
        True  # False for a notification or a response: JSON-RPC answers those with nothing
    )

    def error(self) -> dict[str, Any]:
        """The JSON-RPC error response, as a plain dict."""
        return {
            "jsonrpc": "2.0",
            "id": self.request_id,
            "error": {"code": self.code, "message": self.message},
        }


def oversized(limit: int = MAX_MESSAGE_BYTES) -> Rejection:
    return Rejection(INVALID_REQUEST, f"message is larger than {limit} bytes; it was not read")


def read_message(raw: bytes) -> SessionMessage | Rejection:
    """``raw`` as the SDK reads it, ready for a server's read stream, or what to answer instead.
    A transport that reads a message here hands it on without the SDK parsing it again."""
    try:
        message, notification = parse_message(raw)
    except ValidationError as exc:
        return _diagnose(raw, exc)
    if notification and b'"id"' in raw:
        # The SDK reads a request whose id is null or an object as a notification, and answers
        # nothing. Rare enough to parse again.
        value = json.loads(raw)
        if isinstance(value, dict) and "id" in value:
            return Rejection(INVALID_REQUEST, '"id" must be a string or an integer')
    return SessionMessage(message)


def check_message(raw: bytes) -> Rejection | None:
    """None when the SDK reads ``raw`` as one JSON-RPC message, else what to answer."""
    found = read_message(raw)
    return found if isinstance(found, Rejection) else None


_UNREADABLE = object()


def _diagnose(raw: bytes, exc: ValidationError) -> Rejection:
    bad_byte: int | None = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        bad_byte = err.start
        text = raw.decode("utf-8", "replace")
    too_deep = False
    try:
        value: Any = json.loads(text)
    except RecursionError:
        value, too_deep = _UNREADABLE, True
    except ValueError:
        value = _UNREADABLE
    answer = _wants_answer(value)
    request_id = _request_id(value) if answer else None  # a response's id names our request

    def reject(code: int, message: str) -> Rejection:
        return Rejection(code, message, request_id, answer)

    parse_error = next((e for e in exc.errors() if e["type"] == "json_invalid"), None)
    if bad_byte is not None:
        return reject(PARSE_ERROR, f"message is not valid UTF-8 (byte {bad_byte})")
    if parse_error is not None:
        reason = str((parse_error.get("ctx") or {}).get("error", "")) or "not JSON"
        if too_deep or "recursion limit" in reason:
            return reject(PARSE_ERROR, "message is nested too deeply to read")
        if value is not _UNREADABLE and _has_lone_surrogate(value):
            return reject(
                PARSE_ERROR,
                "message contains a lone surrogate escape (such as \\ud800), which is not a "
                "Unicode character",
            )
        return reject(PARSE_ERROR, f"message is not valid JSON: {reason}")
    if isinstance(value, list):
        return reject(
            INVALID_REQUEST, "batch requests are not supported; send each message on its own"
        )
    if not isinstance(value, dict):
        return reject(INVALID_REQUEST, "a JSON-RPC message must be a JSON object")
    if value.get("jsonrpc") != "2.0":
        return reject(INVALID_REQUEST, 'only JSON-RPC 2.0 is spoken: "jsonrpc" must be "2.0"')
    if "method" in value and not isinstance(value["method"], str):
        return reject(INVALID_REQUEST, '"method" must be a string')
    if "id" in value and request_id is None:
        return reject(INVALID_REQUEST, '"id" must be a string or an integer')
    if "params" in value and not isinstance(value["params"], dict):
        return reject(INVALID_PARAMS, '"params" must be an object')
    if "method" not in value and not answer:
        return reject(INVALID_REQUEST, "a response must carry a valid id and a result or error")
    if "method" not in value:
        return reject(INVALID_REQUEST, 'a request needs a "method"')
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"][1:]) or "message"
    return reject(INVALID_REQUEST, f"not a valid JSON-RPC message: {where}: {first['msg']}"[:300])


def _request_id(value: Any) -> str | int | None:
    """The id to answer with: a string or integer that can be sent back, else None (null)."""
    if not isinstance(value, dict):
        return None
    found = value.get("id")
    if isinstance(found, bool) or not isinstance(found, str | int):
        return None
    if isinstance(found, str) and (len(found) > MAX_ID_CHARS or _has_lone_surrogate(found)):
        return None
    return found


def _wants_answer(value: Any) -> bool:
    """Whether JSON-RPC answers this message: anything but a notification or a response."""
    if not isinstance(value, dict):
        return True
    if "method" in value:
        return "id" in value
    return not ("result" in value or "error" in value)


def _has_lone_surrogate(value: Any) -> bool:
    """True when some string in ``value`` holds a UTF-16 surrogate (only a lone one parses)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack += item.keys()
            stack += item.values()
        elif isinstance(item, list):
            stack += item
    return False
