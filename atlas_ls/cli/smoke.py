"""`atlas smoke`: one real request through every path a user depends on, PASS or FAIL each.

Engine steps run in process; the language server and the MCP server are started as subprocesses
and spoken to over stdio with the minimal JSON-RPC peer in `atlas_ls.stdio_rpc`, as an editor
would speak to them (and so the CLI loads no protocol library, not even for this command).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas_ls.stdio_rpc import Rpc

TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    passed: bool
    detail: str
    ms: float


def run_smoke(
    paths: list[Path], emit: Callable[[Step], None], prefer: str | None = None
) -> list[Step]:
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
        state["engine"] = Engine.open(paths, prefer)
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


def _lsp(paths: list[Path], query: str) -> str:
    rpc = Rpc([sys.executable, "-m", "atlas_ls.lsp", "--bundle", *map(str, paths)], lsp=True)
    try:
        rpc.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, TIMEOUT_S)
        rpc.send({"method": "initialized", "params": {}})
        deadline = time.monotonic() + TIMEOUT_S
        while True:  # the engine loads in the background right after `initialized`
            symbols = rpc.call("workspace/symbol", {"query": query}, TIMEOUT_S).get("result")
            if symbols or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if not symbols:
            raise AssertionError(f"workspace/symbol {query!r} answered nothing")
        rpc.call("shutdown", {}, 10)
        rpc.send({"method": "exit"})
        return f"workspace/symbol {query!r} -> {len(symbols)} symbols"
    finally:
        rpc.close()


def _mcp(paths: list[Path], identifier: str) -> str:
    rpc = Rpc([sys.executable, "-m", "atlas_ls.mcp", "--bundle", *map(str, paths)], lsp=False)
    try:
        client = {"name": "atlas-smoke", "version": "1"}
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
        rpc.call("initialize", init, TIMEOUT_S)
        rpc.send({"method": "notifications/initialized"})
        arguments = {"identifier": identifier}
        answer = rpc.call(
            "tools/call", {"name": "lookup_identifier", "arguments": arguments}, TIMEOUT_S
        )
        if "error" in answer:
            raise RuntimeError(f"error answer: {answer['error']}")
        result = answer.get("result", {})
        if result.get("isError"):
            raise AssertionError(f"tool error: {result.get('content')}")
        return f"tools/call lookup_identifier {identifier!r} answered"
    finally:
        rpc.close()
