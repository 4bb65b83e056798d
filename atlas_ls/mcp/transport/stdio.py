"""The stdio transport: the SDK's, except that every line is checked before the SDK reads it.

The SDK drops a line it cannot read and answers nothing, so a client waits forever on that request.
Here each line is read (at most `MAX_MESSAGE_BYTES`), checked with the SDK's own reader, and either
handed on or answered with a JSON-RPC error through the SDK's writer, the one channel that writes
stdout, so answers never interleave. While serving, fd 0 reads the null device and fd 1 writes to
stderr (as the SDK does for its own streams), so neither a child process nor a stray print can
take or corrupt protocol bytes. Each message is written and flushed in one trip to a worker thread,
where the SDK's file wrapper takes two.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO, Literal

import anyio

from atlas_ls.mcp._sdk import MCPServer, error_message, serve_connection, stdio_server
from atlas_ls.mcp.transport.wire import MAX_MESSAGE_BYTES, Rejection, check_message, oversized

log = logging.getLogger(__name__)

_SKIP_CHUNK = 64 * 1024


async def run_stdio(server: MCPServer[Any]) -> None:
    """Serve one client on stdin/stdout until stdin closes."""
    with _claimed(0, "rb", _null_input) as stdin, _claimed(1, "wb", _stderr_output) as stdout:
        lines = CheckedLines(stdin)
        # The SDK only iterates stdin (`async for line in stdin`) and calls write and flush on
        # stdout, but annotates both as anyio.AsyncFile[str], a concrete class: hence the ignore.
        streams = stdio_server(stdin=lines, stdout=LineWriter(stdout))  # pyright: ignore[reportArgumentType]
        async with streams as (read_stream, write_stream):
            lines.answer_through(write_stream)
            await serve_connection(server, read_stream, write_stream)


class CheckedLines:
    """The lines of stdin the SDK can read, as text; every other line is answered here."""

    def __init__(self, stdin: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._stdin = stdin
        self._limit = limit
        self._write: Any = None
        self._ready = anyio.Event()

    def answer_through(self, write_stream: Any) -> None:
        self._write = write_stream
        self._ready.set()

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            read = await anyio.to_thread.run_sync(self._read_line, abandon_on_cancel=True)
            if read is None:
                raise StopAsyncIteration
            line, complete = read
            if complete and not line.strip():
                continue  # a blank line between messages is no message
            rejection = check_message(line) if complete else oversized(self._limit)
            if rejection is None:
                return line.decode("utf-8")
            await self._refuse(rejection)

    def _read_line(self) -> tuple[bytes, bool] | None:
        """The next line (None at end of input); a line over the limit is skipped, not kept."""
        line = self._stdin.readline(self._limit + 1)
        if not line:
            return None
        if len(line) <= self._limit or line.endswith(b"\n"):
            return line, True
        while (rest := self._stdin.readline(_SKIP_CHUNK)) and not rest.endswith(b"\n"):
            pass
        return b"", False

    async def _refuse(self, rejection: Rejection) -> None:
        log.warning(
            "refused a message on stdin (%s): %s",
            "answered" if rejection.answer else "a notification or response, not answered",
            rejection.message,
        )
        if rejection.answer:
            await self._ready.wait()
            await self._write.send(error_message(rejection.error()))


class LineWriter:
    """stdout for the SDK's writer: each message written and flushed in one trip to a worker thread
    (a blocked pipe never stalls the event loop)."""

    def __init__(self, stdout: BinaryIO) -> None:
        self._stdout = stdout

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._write, text)

    async def flush(self) -> None:
        """Nothing left to flush: every write was flushed."""

    def _write(self, text: str) -> None:
        self._stdout.write(text.encode("utf-8"))
        self._stdout.flush()


def _null_input() -> int:
    return os.open(os.devnull, os.O_RDONLY)


def _stderr_output() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


@contextmanager
def _claimed(
    fd: int, mode: Literal["rb", "wb"], diversion: Callable[[], int]
) -> Iterator[BinaryIO]:
    """Standard stream `fd` for the transport alone: served from a private duplicate while `fd`
    itself points at `diversion()` (the null device for stdin, stderr for stdout), and restored
    after."""
    try:
        private = os.dup(fd)
    except OSError:  # no usable fd: serve what Python has
        yield (sys.stdin if fd == 0 else sys.stdout).buffer
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
        # closefd=False: a worker thread may still be blocked reading it after the server ends.
        yield os.fdopen(private, mode, closefd=False)
    finally:
        if diverted:
            os.dup2(private, fd)
        if mode == "wb":  # every write was flushed; a reader may still hold the input's
            os.close(private)
