"""The stdio transport: one JSON-RPC message per line, each read once and checked before the SDK
sees it.

The SDK drops a line it cannot read and answers nothing, so a client waits forever on that request.
Here each line is read (at most `MAX_MESSAGE_BYTES`), parsed with the SDK's own reader, and either
handed to the server as the parsed message or answered with a JSON-RPC error through the one
channel that writes stdout, so answers never interleave. While serving, fd 0 reads the null device
and fd 1 writes to stderr (as the SDK does for its own streams), so neither a child process nor a
stray print can take or corrupt protocol bytes.

At the end of input the server stops only once every request read has been answered (for at most
`EOF_DRAIN_S`): a client that writes its requests and closes stdin, or a file of requests, gets
every answer.

Where the client gave us pipes or sockets (every MCP client does), both are read and written on the
event loop when they are ready: a call crosses no thread on its way in or out. Anything else a
poller cannot wait on (a file redirected to stdin, a terminal) is read and written in a worker
thread, so a blocked read or write never stalls the event loop.
"""

from __future__ import annotations

import fcntl
import logging
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, BinaryIO, Literal, Protocol

import anyio
import anyio.lowlevel

from atlas_ls.mcp._sdk import (
    MCPServer,
    SessionMessage,
    create_context_streams,
    error_message,
    serve_connection,
)
from atlas_ls.mcp.transport.wire import MAX_MESSAGE_BYTES, Rejection, oversized, read_message

log = logging.getLogger(__name__)

EOF_DRAIN_S = 30.0
_READ_CHUNK = 64 * 1024
_SKIP_CHUNK = 64 * 1024


async def run_stdio(server: MCPServer[Any]) -> None:
    """Serve one client on stdin/stdout until stdin closes."""
    with (
        _claimed(0, _null_input) as stdin,
        _claimed(1, _stderr_output) as stdout,
        _on_the_loop(stdin) as pipe_in,
        _on_the_loop(stdout) as pipe_out,
    ):
        lines = (
            PipeLines(pipe_in)
            if pipe_in is not None
            else ThreadLines(_file(stdin, sys.stdin, "rb"))
        )
        writer = (
            PipeWriter(pipe_out)
            if pipe_out is not None
            else ThreadWriter(_file(stdout, sys.stdout, "wb"))
        )
        to_server, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, from_server = create_context_streams[SessionMessage](0)
        pending = Pending()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read_messages, lines, to_server, write_stream, pending)
            tasks.start_soon(_write_messages, from_server, writer, pending, tasks.cancel_scope)
            await serve_connection(server, read_stream, write_stream)
            # What is left is writing the last answers: a client that never reads them does
            # not keep the process alive.
            tasks.cancel_scope.deadline = anyio.current_time() + EOF_DRAIN_S


class Lines(Protocol):
    async def next_line(self) -> tuple[bytes, bool] | None:
        """The next line and whether it fits the limit (an oversized one comes back empty and
        False, unkept); None at the end of input."""
        ...


class Writer(Protocol):
    async def write(self, data: bytes) -> None: ...


class Pending:
    """The ids of requests read and not answered yet."""

    def __init__(self) -> None:
        self._ids: set[str | int] = set()
        self._none = anyio.Event()
        self._none.set()

    def read(self, message: Any) -> None:
        method, id_ = getattr(message, "method", None), getattr(message, "id", None)
        if method is not None and id_ is not None:
            self._ids.add(id_)
            if self._none.is_set():
                self._none = anyio.Event()
        elif method == "notifications/cancelled":  # a cancelled request gets no answer
            self._done((getattr(message, "params", None) or {}).get("requestId"))

    def answered(self, message: Any) -> None:
        if getattr(message, "method", None) is None:
            self._done(getattr(message, "id", None))

    def _done(self, id_: Any) -> None:
        self._ids.discard(id_)
        if not self._ids:
            self._none.set()

    async def all_answered(self) -> None:
        await self._none.wait()


async def _read_messages(lines: Lines, to_server: Any, answers: Any, pending: Pending) -> None:
    """Each line of input parsed once: a message goes to the server, anything else is answered.
    At the end of input, the server's read stream closes once what was asked is answered."""
    try:
        async with to_server:
            while (read := await lines.next_line()) is not None:
                line, fits = read
                if fits and not line.strip():
                    continue  # a blank line between messages is no message
                found = read_message(line) if fits else oversized()
                if isinstance(found, Rejection):
                    await _refuse(found, answers)
                else:
                    pending.read(found.message)
                    await to_server.send(found)
            with anyio.move_on_after(EOF_DRAIN_S):
                await pending.all_answered()
    except anyio.ClosedResourceError:  # the server stopped reading
        await anyio.lowlevel.checkpoint()


async def _refuse(rejection: Rejection, answers: Any) -> None:
    log.warning(
        "refused a message on stdin (%s): %s",
        "answered" if rejection.answer else "a notification or response, not answered",
        rejection.message,
    )
    if rejection.answer:
        await answers.send(error_message(rejection.error()))


async def _write_messages(
    from_server: Any, writer: Writer, pending: Pending, serving: anyio.CancelScope
) -> None:
    """Each message the server sends, as one line; when the client has closed its end, serving
    stops (nothing more can reach it)."""
    try:
        async with from_server:
            async for session_message in from_server:
                message = session_message.message
                text = message.model_dump_json(by_alias=True, exclude_unset=True)
                await writer.write(text.encode("utf-8") + b"\n")
                pending.answered(message)
    except anyio.ClosedResourceError:
        await anyio.lowlevel.checkpoint()
    except (BrokenPipeError, ConnectionResetError):
        log.info("the client closed stdout: stopping")
        serving.cancel()


class PipeLines:
    """Lines of a non-blocking pipe or socket, read on the event loop whenever it is readable."""

    def __init__(self, fd: int, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._fd = fd
        self._limit = limit
        self._buffer = bytearray()
        self._searched = 0  # bytes of the buffer known to hold no line break
        self._skipping = False  # inside a line over the limit: dropped up to its end
        self._ended = False

    async def next_line(self) -> tuple[bytes, bool] | None:
        while True:
            end = self._buffer.find(b"\n", self._searched)
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                self._searched = 0
                if self._skipping or end > self._limit:
                    self._skipping = False
                    return b"", False
                return line, True
            self._searched = len(self._buffer)
            if self._searched > self._limit:  # too long already: keep none of it
                self._buffer.clear()
                self._searched = 0
                self._skipping = True
            if self._ended:  # a last line without a line break
                rest, skipped = bytes(self._buffer), self._skipping
                self._buffer.clear()
                self._searched, self._skipping = 0, False
                return (b"", False) if skipped else ((rest, True) if rest else None)
            await self._fill()

    async def _fill(self) -> None:
        await anyio.wait_readable(self._fd)
        try:
            chunk = os.read(self._fd, _READ_CHUNK)
        except BlockingIOError:  # woken for nothing: wait again
            return
        if chunk:
            self._buffer += chunk
        else:
            self._ended = True


class PipeWriter:
    """A non-blocking pipe or socket, written on the event loop as far as it takes the bytes; the
    rest waits until it is writable again."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, data: bytes) -> None:
        rest = memoryview(data)
        while rest:
            try:
                written = os.write(self._fd, rest)
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
                continue
            rest = rest[written:]


class ThreadLines:
    """Lines of a blocking stream, each read in a worker thread."""

    def __init__(self, stream: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._stream = stream
        self._limit = limit

    async def next_line(self) -> tuple[bytes, bool] | None:
        return await anyio.to_thread.run_sync(self._read_line, abandon_on_cancel=True)

    def _read_line(self) -> tuple[bytes, bool] | None:
        line = self._stream.readline(self._limit + 1)
        if not line:
            return None
        if len(line) <= self._limit or line.endswith(b"\n"):
            return line, True
        while (rest := self._stream.readline(_SKIP_CHUNK)) and not rest.endswith(b"\n"):
            pass
        return b"", False


class ThreadWriter:
    """A blocking stream, each message written and flushed in one trip to a worker thread."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    async def write(self, data: bytes) -> None:
        await anyio.to_thread.run_sync(self._write, data)

    def _write(self, data: bytes) -> None:
        self._stream.write(data)
        self._stream.flush()


@contextmanager
def _on_the_loop(fd: int | None) -> Iterator[int | None]:
    """`fd` when it is served on the event loop, else None. A pipe or a socket is, made
    non-blocking while serving and restored after; a file or a terminal (whose non-blocking flag
    the shell shares) is served in worker threads."""
    try:
        mode = os.fstat(fd).st_mode if fd is not None else 0
    except OSError:
        mode = 0
    if fd is None or not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        yield None
        return
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    try:
        yield fd
    finally:
        with suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETFL, flags)


def _file(fd: int | None, standard: Any, mode: Literal["rb", "wb"]) -> BinaryIO:
    """`fd` as a file for a worker thread (what Python has, when there is no fd of our own).
    closefd=False: a worker thread may still be blocked reading it after the server ends."""
    return standard.buffer if fd is None else os.fdopen(fd, mode, closefd=False)


def _null_input() -> int:
    return os.open(os.devnull, os.O_RDONLY)


def _stderr_output() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


@contextmanager
def _claimed(fd: int, diversion: Callable[[], int]) -> Iterator[int | None]:
    """Standard stream `fd` for the transport alone: served from a private duplicate (None when
    there is no usable fd) while `fd` itself points at `diversion()` (the null device for stdin,
    stderr for stdout), and restored after."""
    try:
        private = os.dup(fd)
    except OSError:
        yield None
        return
    diverted = False
    try:
        other = diversion()
        try:
            os.dup2(other, fd)
            diverted = True
        finally:
            os.close(other)
    except OSError:
        pass
    try:
        yield private
    finally:
        if diverted:
            os.dup2(private, fd)
        if fd != 0:  # every write was flushed; a reader thread may still hold the input's
            os.close(private)
