"""MCP server speed on the Collibra docs bundle, through the real SDK client.

    uv run python benchmarks/mcp.py --json [--bundle DIR] [--concurrency 200] [--queries 40]

The bundle defaults to /tmp/atlas-shared-bundle (built from ../shared/collibra-docs); without it the
script says how to build one and exits 2. It measures:

  search_docs_<mode>_p50_ms / _p95_ms   round trip of search_docs over stdio, per mode, one
                                        warm-up call first (the model loads on the first query)
  search_text_p50_ms / _p95_ms          round trip of search_text (ripgrep) over the bundle's
                                        mirror, for identifiers from benchmarks/dev_queries.jsonl
  engine_hybrid_p50_ms / _p95_ms        the engine's own hybrid search in this process, on the
                                        same questions with the parameters search_docs passes it
                                        (top_k 5, no filter, scope all), same bundle, warmed up
                                        and after one warm-up query, timed right after the stdio
                                        calls
  stdio_vs_engine_hybrid_p50_ratio      search_docs_hybrid_p50_ms / engine_hybrid_p50_ms: what
                                        MCP over stdio adds to a hybrid search (goal <= 1.3)
  http_concurrent.calls / failed        N tool calls at once over streamable HTTP (mixed tools,
                                        spread over 8 sessions); failed must be 0
  http_concurrent.p95_ms / wall_ms      per-call latency under that load, and the whole burst

Not a test: prints one JSON object (with --json) and asserts nothing. Run it once, not in a loop:
the machines it runs on are shared.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path and its name would hide the `mcp` SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
BIN = Path(sys.executable).parent
DEFAULT_BUNDLE = Path("/tmp/atlas-shared-bundle")
QUERIES = ROOT / "benchmarks" / "dev_queries.jsonl"
MODES = ("keyword", "vector", "hybrid")
SESSIONS = 8


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return round(ordered[index], 2)


def load_queries(limit: int) -> tuple[list[str], list[str]]:
    questions: list[str] = []
    identifiers: list[str] = []
    if QUERIES.is_file():
        for line in QUERIES.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("query"):
                questions.append(row["query"])
            if row.get("identifier"):
                identifiers.append(row["identifier"])
    questions = questions or ["find assets by name", "import a community", "workflow task form"]
    identifiers = identifiers or ["findAssets", "resourceType", "continueOnError"]
    return questions[:limit], identifiers[:limit]


async def timed(fn: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await fn()
    return (time.perf_counter() - started) * 1000, result


async def stdio_numbers(
    bundle: Path, questions: list[str], identifiers: list[str]
) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(BIN / "atlas-mcp"),
        args=["--bundle", str(bundle), "--log-level", "WARNING"],
        env=dict(os.environ),
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for mode in MODES:
            await session.call_tool("search_docs", {"query": "warm up", "mode": mode})
            times = []
            for question in questions:
                ms, result = await timed(
                    lambda q=question, m=mode: session.call_tool(
                        "search_docs", {"query": q, "mode": m, "top_k": 5}
                    )
                )
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
                times.append(ms)
            out[f"search_docs_{mode}_p50_ms"] = percentile(times, 0.5)
            out[f"search_docs_{mode}_p95_ms"] = percentile(times, 0.95)
        times = []
        engine = ""
        for identifier in identifiers:
            ms, result = await timed(
                lambda p=identifier: session.call_tool(
                    "search_text", {"pattern": p, "max_results": 50}
                )
            )
            if result.is_error:
                raise RuntimeError(result.content[0].text)
            engine = result.structured_content["engine"]
            times.append(ms)
        out["search_text_p50_ms"] = percentile(times, 0.5)
        out["search_text_p95_ms"] = percentile(times, 0.95)
        out["search_text_engine"] = engine
        out["queries_per_mode"] = len(questions)
    return out


def engine_hybrid_numbers(bundle: Path, questions: list[str]) -> dict[str, Any]:
    """The engine's hybrid search timed in this process, called as search_docs calls it."""
    from atlas_core.engine import Engine
    from atlas_core.types import SearchFilters

    filters = SearchFilters(publication=None, code_only=False, min_score=0)
    with Engine.open([str(bundle)]) as engine:
        engine.warm_up()
        engine.search("warm up", "hybrid", 5, filters, scope="all")
        times = []
        for question in questions:
            started = time.perf_counter()
            engine.search(question, "hybrid", 5, filters, scope="all")
            times.append((time.perf_counter() - started) * 1000)
    return {
        "engine_hybrid_p50_ms": percentile(times, 0.5),
        "engine_hybrid_p95_ms": percentile(times, 0.95),
    }


def stdio_vs_engine(result: dict[str, Any]) -> dict[str, Any]:
    engine = result["engine_hybrid_p50_ms"]
    ratio = result["search_docs_hybrid_p50_ms"] / engine if engine else float("nan")
    return {"stdio_vs_engine_hybrid_p50_ratio": round(ratio, 2)}


def start_http(bundle: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            str(BIN / "atlas-mcp"),
            "--transport",
            "http",
            "--port",
            "0",
            "--bundle",
            str(bundle),
            "--log-level",
            "WARNING",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    found = threading.Event()
    url: list[str] = []

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            match = re.search(r"at (http://\S+/mcp)", line)
            if match and not url:
                url.append(match.group(1))
                found.set()

    threading.Thread(target=drain, daemon=True).start()
    if not found.wait(120):
        proc.kill()
        raise RuntimeError("the HTTP server did not start")
    return proc, url[0]


async def http_numbers(
    bundle: Path, calls: int, questions: list[str], identifiers: list[str]
) -> dict[str, Any]:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    proc, url = start_http(bundle)
    mix = [
        ("search_docs", lambda i: {"query": questions[i % len(questions)], "top_k": 5}),
        ("lookup_identifier", lambda i: {"identifier": identifiers[i % len(identifiers)]}),
        (
            "search_text",
            lambda i: {"pattern": identifiers[i % len(identifiers)], "max_results": 20},
        ),
        ("list_publications", lambda i: {}),
    ]
    try:
        async with asyncio.timeout(600):
            sessions = []
            stack = []
            for _ in range(SESSIONS):
                http = httpx2.AsyncClient(timeout=httpx2.Timeout(120, read=600))
                transport = streamable_http_client(url, http_client=http)
                read, write = await transport.__aenter__()
                session = ClientSession(read, write)
                await session.__aenter__()
                await session.initialize()
                sessions.append(session)
                stack.append((transport, session))
            await sessions[0].call_tool("search_docs", {"query": "warm up"})

            async def one(i: int) -> tuple[float, bool]:
                name, args = mix[i % len(mix)]
                started = time.perf_counter()
                try:
                    result = await sessions[i % SESSIONS].call_tool(name, args(i))
                    ok = not result.is_error
                except Exception:
                    ok = False
                return (time.perf_counter() - started) * 1000, ok

            started = time.perf_counter()
            results = await asyncio.gather(*(one(i) for i in range(calls)))
            wall = (time.perf_counter() - started) * 1000
            for transport, session in reversed(stack):
                await session.__aexit__(None, None, None)
                await transport.__aexit__(None, None, None)
    finally:
        proc.terminate()
        proc.wait(30)
    latencies = [ms for ms, _ in results]
    return {
        "calls": calls,
        "sessions": SESSIONS,
        "failed": sum(1 for _, ok in results if not ok),
        "p50_ms": percentile(latencies, 0.5),
        "p95_ms": percentile(latencies, 0.95),
        "wall_ms": round(wall, 1),
        "calls_per_s": round(calls / (wall / 1000), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=None)
    parser.add_argument("--concurrency", type=int, default=200, help="concurrent HTTP calls")
    parser.add_argument("--queries", type=int, default=40, help="queries per mode")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    bundle = args.bundle or DEFAULT_BUNDLE
    if not (bundle / "manifest.json").is_file():
        print(
            f"mcp benchmark: no bundle at {bundle}. Build one from the Collibra docs first:\n"
            f"  uv run atlas build --source mirror=../shared/collibra-docs "
            f"--source openapi=../shared/collibra-openapi/dgc-rest.json --output {DEFAULT_BUNDLE}\n"
            "or pass --bundle DIR.",
            file=sys.stderr,
        )
        return 2
    questions, identifiers = load_queries(args.queries)
    result: dict[str, Any] = {"bundle": str(bundle)}
    result.update(asyncio.run(stdio_numbers(bundle, questions, identifiers)))
    result.update(engine_hybrid_numbers(bundle, questions))
    result.update(stdio_vs_engine(result))
    result["http_concurrent"] = asyncio.run(
        http_numbers(bundle, args.concurrency, questions, identifiers)
    )
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
