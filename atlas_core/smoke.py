"""`atlas smoke`: one real request through every path a user depends on, PASS or FAIL each.

Engine steps run in process; the language server and the MCP server are started as subprocesses
and spoken to over stdio with minimal JSON-RPC clients written here (so the engine package still
imports no protocol library).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    passed: bool
    detail: str
    ms: float


def run_smoke(paths: list[Path], emit: Callable[[Step], None]) -> list[Step]:
    from atlas_core.engine import Engine

    steps: list[Step] = []

    def step(name: str, action: Callable[[], str]) -> None:
        started = time.perf_counter()
        try:
            detail, passed = action(), True
        except Exception as exc:  # every failure is a FAIL line, never a traceback
            detail, passed = f"{type(exc).__name__}: {exc}", False
        result = Step(name, passed, detail, (time.perf_counter() - started) * 1000)
        steps.append(result)
        emit(result)

    state: dict[str, Any] = {}

    def open_engine() -> str:
        state["engine"] = Engine.open(paths)
        info = state["engine"].info()
        return f"{info.chunks} chunks, {info.identifiers} identifiers, model {info.model}"

    step("open bundle", open_engine)
    engine = state.get("engine")
    if engine is None:
        return steps
    probe = _probe_terms(engine)
    for mode in ("keyword", "vector", "hybrid"):
        step(f"search {mode}", lambda mode=mode: _search(engine, probe["query"], mode))
    step("lookup", lambda: _lookup(engine, probe["identifier"]))
    step("symbols", lambda: _symbols(engine, probe["symbol"]))
    step("language server", lambda: _lsp(paths, probe["symbol"]))
    step("mcp server", lambda: _mcp(paths, probe["identifier"]))
    engine.close()
    return steps


def _probe_terms(engine: Any) -> dict[str, str]:
    symbols = engine.symbols("", 5)
    identifier = next((s.name for s in symbols if s.kind != "heading"), None)
    identifier = identifier or (symbols[0].name if symbols else "assets")
    word = identifier.split()[-1].strip("/{}").split("/")[0] or "assets"
    return {"identifier": identifier, "symbol": word[:12], "query": word}


def _search(engine: Any, query: str, mode: str) -> str:
    hits = engine.search(query, mode=mode, top_k=3)
    if not hits:
        raise AssertionError(f"no results for {query!r}")
    return f"{query!r} -> {hits[0].file} ({hits[0].heading})"


def _lookup(engine: Any, identifier: str) -> str:
    found = engine.lookup(identifier, limit=3)
    if not found:
        raise AssertionError(f"{identifier!r} did not resolve")
    return f"{identifier!r} -> {found[0].name} in {found[0].file}:{found[0].line}"


def _symbols(engine: Any, query: str) -> str:
    found = engine.symbols(query, 5)
    if not found:
        raise AssertionError(f"no symbols for {query!r}")
    return f"{query!r} -> {len(found)} symbols, first {found[0].name}"


# -- subprocess clients ----------------------------------------------------------------------------


class _Pipe:
    """Reads a server's stdout on a thread so every wait has a timeout."""

    def __init__(self, proc: subprocess.Popen[bytes], reader: Callable[[IO[bytes]], Any]) -> None:
        self.proc = proc
        self.messages: queue.Queue[Any] = queue.Queue()

        def pump() -> None:
            assert proc.stdout is not None
            while True:
                try:
                    message = reader(proc.stdout)
                except Exception:
                    message = None
                if message is None:
                    self.messages.put(None)
                    return
                self.messages.put(message)

        threading.Thread(target=pump, daemon=True).start()

    def wait_for(self, msg_id: int, reply: Callable[[dict[str, Any]], None], timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to request {msg_id} within {timeout:.0f}s")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty as exc:
                raise TimeoutError(f"no answer to request {msg_id} within {timeout:.0f}s") from exc
            if message is None:
                raise RuntimeError(f"server exited (code {self.proc.poll()})")
            if message.get("id") == msg_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"error answer: {message['error']}")
                return message.get("result")
            if "method" in message and "id" in message:
                reply(message)  # a request from the server (configuration, progress, ...)


def _read_lsp(stream: IO[bytes]) -> Any:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        return None
    return json.loads(stream.read(length))


def _lsp(paths: list[Path], query: str) -> str:
    args = [sys.executable, "-m", "atlas_ls.lsp", "--bundle", *map(str, paths)]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    assert proc.stdin is not None

    def send(message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def reply(request: dict[str, Any]) -> None:
        result: Any = None
        if request["method"] == "workspace/configuration":
            result = [None for _ in request.get("params", {}).get("items", [])]
        send({"id": request["id"], "result": result})

    pipe = _Pipe(proc, _read_lsp)
    try:
        send({"id": 1, "method": "initialize",
              "params": {"processId": None, "rootUri": None, "capabilities": {}}})  # fmt: skip
        pipe.wait_for(1, reply, TIMEOUT_S)
        send({"method": "initialized", "params": {}})
        deadline = time.monotonic() + TIMEOUT_S
        msg_id = 2
        while True:  # the engine loads in the background right after `initialized`
            send({"id": msg_id, "method": "workspace/symbol", "params": {"query": query}})
            symbols = pipe.wait_for(msg_id, reply, TIMEOUT_S)
            if symbols or time.monotonic() > deadline:
                break
            msg_id += 1
            time.sleep(0.2)
        if not symbols:
            raise AssertionError(f"workspace/symbol {query!r} answered nothing")
        send({"id": 99, "method": "shutdown"})
        pipe.wait_for(99, reply, 10)
        send({"method": "exit"})
        return f"workspace/symbol {query!r} -> {len(symbols)} symbols"
    finally:
        _end(proc)


def _read_mcp(stream: IO[bytes]) -> Any:
    line = stream.readline()
    return json.loads(line) if line else None


def _mcp(paths: list[Path], identifier: str) -> str:
    args = [sys.executable, "-m", "atlas_ls.mcp", "--bundle", *map(str, paths)]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    assert proc.stdin is not None

    def send(message: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def reply(request: dict[str, Any]) -> None:
        send({"id": request["id"], "result": {}})

    pipe = _Pipe(proc, _read_mcp)
    try:
        send({"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "atlas-smoke", "version": "1"}}})  # fmt: skip
        pipe.wait_for(1, reply, TIMEOUT_S)
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call",
              "params": {"name": "lookup_identifier", "arguments": {"identifier": identifier}}})  # fmt: skip
        result = pipe.wait_for(2, reply, TIMEOUT_S)
        if result.get("isError"):
            raise AssertionError(f"tool error: {result.get('content')}")
        return f"tools/call lookup_identifier {identifier!r} answered"
    finally:
        _end(proc)


def _end(proc: subprocess.Popen[bytes]) -> None:
    try:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=5)
    except (subprocess.TimeoutExpired, OSError):
        proc.kill()
        proc.wait(timeout=5)
