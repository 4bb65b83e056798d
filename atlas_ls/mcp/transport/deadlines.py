"""Deadlines on reading an HTTP request, which uvicorn does not bound.

A client that sends half its headers, or half its body, holds a connection (and, with a body, a
request task) for as long as it likes; many such clients exhaust the server before a token is even
checked. So does one that stops reading a response larger than the socket buffers: the request
task waits for the buffer to drain. `TimedH11Protocol` closes those connections.
"""

from __future__ import annotations

import asyncio
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with read deadlines: a request's headers must arrive within
    ``header_timeout`` of the connection opening (or of the previous response), and its body within
    ``body_timeout`` of its headers; otherwise the connection is closed. The deadline of a phase is
    fixed when it starts, so sending a byte now and then does not extend it. A response the client
    stops reading (the send buffer stays full) is abandoned after ``body_timeout``: the connection
    is aborted, which releases the request task waiting to write."""

    header_timeout = 10.0
    body_timeout = 30.0

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._phase: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._send_deadline: asyncio.TimerHandle | None = None
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
        self._stop_send_deadline()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._send_deadline is None:
            self._send_deadline = self.loop.call_later(self.body_timeout, self._unread)

    def resume_writing(self) -> None:
        self._stop_send_deadline()
        super().resume_writing()

    def _stop_send_deadline(self) -> None:
        if self._send_deadline is not None:
            self._send_deadline.cancel()
            self._send_deadline = None

    def _unread(self) -> None:
        self._send_deadline = None
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
        log.info(
            "aborted the connection of %s: it read none of its response for %g s",
            client,
            self.body_timeout,
        )
        self.transport.abort()

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
