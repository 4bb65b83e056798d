"""Test helpers for the MCP server: the SDK client on a background loop, and the server commands.

`McpClient` keeps one real SDK client session (stdio or streamable HTTP) open for a whole test
module and lets plain synchronous tests call it, so each module starts its server once.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, suppress
from pathlib import Path
from typing import Any, TypeVar

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

T = TypeVar("T")
BIN = Path(sys.executable).parent
START_TIMEOUT_S = 60


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test process's environment (isolated dirs included) plus `extra`."""
    env = dict(os.environ)
    env.update(extra or {})
    return env


class McpClient:
    """An initialized `ClientSession` living on its own thread and event loop."""

    def __init__(self, connect: Callable[[], AbstractAsyncContextManager[Any]]) -> None:
        self._connect = connect
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._stop: asyncio.Event | None = None
        self._main: Any = None
        self.session: ClientSession | None = None
        self.init: Any = None
        self.logs: list[Any] = []  # notifications/message params received

    def __enter__(self) -> McpClient:
        self._thread.start()
        ready = threading.Event()
        self._main = asyncio.run_coroutine_threadsafe(self._hold(ready), self._loop)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready.wait(0.1):
            if self._main.done():
                self._main.result()  # raises what went wrong
            if time.monotonic() > deadline:
                raise TimeoutError("MCP client did not initialize in time")
        return self

    async def _hold(self, ready: threading.Event) -> None:
        self._stop = asyncio.Event()

        async def on_log(params: Any) -> None:
            self.logs.append(params)

        async with (
            self._connect() as streams,
            ClientSession(streams[0], streams[1], logging_callback=on_log) as session,
        ):
            self.init = await session.initialize()
            self.session = session
            ready.set()
            await self._stop.wait()

    def run(self, fn: Callable[[ClientSession], Awaitable[T]], timeout: float = 60) -> T:
        """Run ``fn(session)`` on the client's loop and return its result."""
        assert self.session is not None
        session = self.session
        return asyncio.run_coroutine_threadsafe(fn(session), self._loop).result(timeout)

    def call(self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return self.run(lambda s: s.call_tool(name, arguments or {}, **kwargs))

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._main is not None:
            # The server may already be gone; the test outcome is what matters.
            with suppress(Exception):
                self._main.result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def stdio_client_for(args: Sequence[str], env: Mapping[str, str] | None = None) -> McpClient:
    """A client that starts ``args`` (first item: a console script in this venv) over stdio."""
    command = str(BIN / args[0]) if (BIN / args[0]).exists() else args[0]
    params = StdioServerParameters(command=command, args=list(args[1:]), env=server_env(env))
    return McpClient(lambda: stdio_client(params))


def http_client_for(url: str, headers: Mapping[str, str] | None = None) -> McpClient:
    import httpx2

    def connect() -> AbstractAsyncContextManager[Any]:
        http = httpx2.AsyncClient(headers=dict(headers or {}), timeout=httpx2.Timeout(60, read=300))
        return streamable_http_client(url, http_client=http)

    return McpClient(connect)


_SERVING = re.compile(r"serving MCP over streamable HTTP at (http://\S+/mcp)")


class HttpServer:
    """``atlas-mcp --transport http --port 0`` as a subprocess; `url` once it listens."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.args = [str(BIN / "atlas-mcp"), "--transport", "http", "--port", "0", *args]
        self.env = server_env(env)
        self.stderr: list[str] = []
        self.url = ""
        self.proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> HttpServer:
        self.proc = subprocess.Popen(
            self.args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
        )
        found = threading.Event()

        def drain() -> None:
            # Drained for the whole run: a full stderr pipe would block the server's logging.
            assert self.proc is not None and self.proc.stderr is not None
            for line in self.proc.stderr:
                self.stderr.append(line)
                match = _SERVING.search(line)
                if match:
                    self.url = match.group(1)
                    found.set()

        threading.Thread(target=drain, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not found.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError("HTTP server did not start:\n" + "".join(self.stderr))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            stop_process(self.proc)


def stop_process(proc: subprocess.Popen[Any]) -> None:
    """SIGTERM a server still running, then SIGKILL it if it has not ended 10 s later."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_for(predicate: Callable[[], T], timeout: float = 30.0, step: float = 0.05) -> T:
    """Poll `predicate` until it returns something truthy, and return that; fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {predicate}")


def structured(result: Any) -> dict[str, Any]:
    """The structured content of a successful tool result (fails the test otherwise)."""
    assert not result.is_error, result.content[0].text if result.content else result
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_text(result: Any) -> str:
    assert result.is_error, f"expected a tool error, got {str(result.structured_content)[:300]}"
    return result.content[0].text
