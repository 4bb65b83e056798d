"""A minimal JSON-RPC peer over a subprocess's stdio, for `atlas smoke` and the benchmarks.

It speaks both framings Atlas serves: LSP's Content-Length headers and MCP's one message per line.
A reader thread keeps responses by id and notifications in a queue, and answers requests from the
server (configuration, progress tokens) so the server never waits on us. No protocol library is
imported: the engine package stays free of them.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from typing import Any


class Rpc:
    """A JSON-RPC peer over a subprocess's stdio: LSP framing or MCP's one message per line."""

    def __init__(self, args: list[str], *, lsp: bool) -> None:
        self.lsp = lsp
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.responses: dict[int, tuple[float, dict[str, Any]]] = {}
        self.notices: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self._cond = threading.Condition()
        self.closed = False  # the server's stdout ended
        self._next = 0
        self._write = threading.Lock()
        threading.Thread(target=self._pump, daemon=True).start()

    def _read(self) -> dict[str, Any] | None:
        stream = self.proc.stdout
        assert stream is not None
        if not self.lsp:
            line = stream.readline()
            return json.loads(line) if line else None
        length = 0
        while True:
            header = stream.readline()
            if not header:
                return None
            if header.strip() == b"":
                break
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":")[1])
        return json.loads(stream.read(length))

    def _pump(self) -> None:
        try:
            self._pump_messages()
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _pump_messages(self) -> None:
        while (message := self._read()) is not None:
            now = time.perf_counter()
            if "method" in message and "id" in message:  # a request from the server
                result: Any = None
                if message["method"] == "workspace/configuration":
                    result = [None for _ in message.get("params", {}).get("items", [])]
                self.send({"id": message["id"], "result": result if self.lsp else {}})
            elif "method" in message:
                self.notices.put((now, message))
            else:
                with self._cond:
                    self.responses[message["id"]] = (now, message)
                    self._cond.notify_all()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        data = b"Content-Length: %d\r\n\r\n%s" % (len(body), body) if self.lsp else body + b"\n"
        with self._write:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> int:
        with self._cond:
            self._next += 1
            msg_id = self._next
        self.send({"id": msg_id, "method": method, "params": params})
        return msg_id

    def wait(self, msg_id: int, timeout: float = 120) -> tuple[float, dict[str, Any]]:
        """(arrival time, response) of request `msg_id`; TimeoutError, or RuntimeError when the
        server exited first."""
        with self._cond:
            done = self._cond.wait_for(lambda: msg_id in self.responses or self.closed, timeout)
            if msg_id in self.responses:
                return self.responses.pop(msg_id)
        if done:
            raise RuntimeError(f"server exited (code {self.proc.poll()})")
        raise TimeoutError(f"no answer to request {msg_id} within {timeout:.0f}s")

    def call(self, method: str, params: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
        return self.wait(self.request(method, params), timeout)[1]

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(10)
