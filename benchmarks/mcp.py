"""MCP server speed on the Collibra docs bundle, through the real SDK client.

    uv run python benchmarks/mcp.py --json [--bundle DIR] [--concurrency 200] [--queries 40]
        [--only scale|proxy] [--clients 64] [--seconds 8]

The bundle defaults to /tmp/atlas-shared-bundle (built from ../shared/collibra-docs); without it the
script says how to build one and exits 2. It measures:

  search_docs_<mode>_p50_ms / _p95_ms   round trip of search_docs over stdio, per mode, one
                                        warm-up call first (the model loads on the first query)
  search_text_p50_ms / _p95_ms          round trip of search_text (ripgrep) over the bundle's
                                        mirror, for identifiers from benchmarks/dev_queries.jsonl
  engine_hybrid_p50_ms / _p95_ms        the engine's own hybrid search in this process, on the
                                        same questions with the parameters search_docs passes it
                                        (top_k 5, no filter, scope all), same bundle, warmed up
                                        and after one warm-up query; each question is searched
                                        here right after its stdio call, so both see the machine
                                        in the same state
  stdio_vs_engine_hybrid_p50_ratio      search_docs_hybrid_p50_ms / engine_hybrid_p50_ms: what
                                        MCP over stdio adds to a hybrid search (goal <= 1.3)
  http_concurrent.calls / failed        N tool calls at once over streamable HTTP (mixed tools,
                                        spread over 8 sessions); failed must be 0
  http_concurrent.p95_ms / wall_ms      per-call latency under that load, and the whole burst

Scale-out over stateless HTTP (`--stateless`), each server driven for --seconds by the same lean
client (64 keep-alive connections, each sending one search_docs mode=keyword call after another);
one process and two workers run side by side and take turns in 4 windows (one, two, two, one, ...),
so the ratio of the two compares them under the same conditions:

  asgi_floor_calls_per_s                a bare JSON-RPC-shaped Starlette endpoint on uvicorn: the
                                        most this client gets from any ASGI app here
  http_stateless.calls_per_s / p95_ms / failed / private_mb
                                        one `atlas-mcp --stateless` process (private_mb: its
                                        Private_Clean + Private_Dirty from /proc/PID/smaps_rollup)
  http_stateless_vs_asgi_floor          http_stateless.calls_per_s / asgi_floor_calls_per_s
  <each>.server_cpu_ms_per_call         the server's CPU time per call (workers included): on a
                                        shared machine a steadier figure than calls/s
  asgi_floor                            the floor's own figures (calls_per_s, p95_ms, ...)
  http_workers2.calls_per_s / p95_ms / failed
                                        the same with `--workers 2` (one port, two processes)
  http_workers2.vs_one_process          http_workers2.calls_per_s / http_stateless.calls_per_s
  http_workers2.second_worker_private_mb / private_mb_vs_one_process
                                        the second worker's memory beyond pages it shares (the
                                        bundle's page cache, the imports forked from the parent),
                                        and that over one process's private_mb
  http_proxy.calls_per_s / p95_ms / failed / upstreams
                                        the same load through nginx (deploy/nginx.conf) in front
                                        of two `--stateless` processes (upstreams: how many
                                        answered); skipped, with the reason, without nginx
  http_proxy.vs_workers2                http_proxy.calls_per_s / http_workers2.calls_per_s

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
import tempfile
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

    from atlas_core.engine import Engine
    from atlas_core.types import SearchFilters

    params = StdioServerParameters(
        command=str(BIN / "atlas-mcp"),
        args=["--bundle", str(bundle), "--log-level", "WARNING"],
        env=dict(os.environ),
    )
    filters = SearchFilters(publication=None, code_only=False, min_score=0)
    out: dict[str, Any] = {}
    with Engine.open([str(bundle)]) as engine:
        engine.warm_up()
        engine.search("warm up", "hybrid", 5, filters, scope="all")
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            engine_times: list[float] = []
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
                    if mode == "hybrid":  # the engine alone, on the same question, right after
                        started = time.perf_counter()
                        engine.search(question, "hybrid", 5, filters, scope="all")
                        engine_times.append((time.perf_counter() - started) * 1000)
                out[f"search_docs_{mode}_p50_ms"] = percentile(times, 0.5)
                out[f"search_docs_{mode}_p95_ms"] = percentile(times, 0.95)
            out["engine_hybrid_p50_ms"] = percentile(engine_times, 0.5)
            out["engine_hybrid_p95_ms"] = percentile(engine_times, 0.95)
            times = []
            engine_name = ""
            for identifier in identifiers:
                ms, result = await timed(
                    lambda p=identifier: session.call_tool(
                        "search_text", {"pattern": p, "max_results": 50}
                    )
                )
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
                engine_name = result.structured_content["engine"]
                times.append(ms)
    out["search_text_p50_ms"] = percentile(times, 0.5)
    out["search_text_p95_ms"] = percentile(times, 0.95)
    out["search_text_engine"] = engine_name
    out["queries_per_mode"] = len(questions)
    return out


def stdio_vs_engine(result: dict[str, Any]) -> dict[str, Any]:
    engine = result["engine_hybrid_p50_ms"]
    ratio = result["search_docs_hybrid_p50_ms"] / engine if engine else float("nan")
    return {"stdio_vs_engine_hybrid_p50_ratio": round(ratio, 2)}


def start_http(bundle: Path) -> tuple[subprocess.Popen[str], str]:
    return start_server(
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
        ]
    )


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


# --- scale-out: stateless HTTP, workers, and the ASGI floor ------------------------------------

SCALE_CLIENTS = 64
LOAD_WINDOWS = 4  # one process and two workers take turns, so drift falls on both alike
PROTOCOL_VERSION = "2025-11-25"


def floor_app() -> Any:
    """A JSON-RPC-shaped endpoint with nothing behind it: reads the body, answers a tool result."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def endpoint(request: Request) -> JSONResponse:
        message = json.loads(await request.body())
        result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
        return JSONResponse({"jsonrpc": "2.0", "id": message["id"], "result": result})

    return Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])


def serve_floor() -> int:
    """Run `floor_app` on uvicorn on a free port; print the URL like atlas-mcp does."""
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    port = sock.getsockname()[1]
    print(f"floor: serving at http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(floor_app(), log_config=None, access_log=False)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
    return 0


def start_server(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a server that prints its URL on stderr; (process, URL) once it is ready."""
    proc = subprocess.Popen(
        command,
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
        raise RuntimeError(f"{command[0]} did not start")
    return proc, url[0]


def wait_ready(url: str, workers: int, timeout: float = 120) -> set[int]:
    """Wait until /readyz is 200 from `workers` distinct processes; their pids."""
    import httpx2

    ready_url = url.rsplit("/", 1)[0] + "/readyz"
    pids: set[int] = set()
    deadline = time.monotonic() + timeout
    while len(pids) < workers:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(pids)} of {workers} workers became ready")
        # A new connection each time, so the kernel may hand it to another worker.
        response = httpx2.get(ready_url, timeout=10, headers={"Connection": "close"})
        if response.status_code == 200:
            pids.add(response.json()["pid"])
        else:
            time.sleep(0.2)
    return pids


def private_mb(pid: int) -> float:
    """Memory only this process holds: Private_Clean + Private_Dirty (pages shared with another
    process, such as a bundle file both map or imports forked from a parent, are not counted)."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if rest.strip().endswith("kB"):
            fields[name] = int(rest.split()[0])
    return round((fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)) / 1024, 1)


def cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds the processes have used so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def server_cpu(proc: subprocess.Popen[str], run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`run()`'s figures plus the server's CPU time per call over the same window (its workers
    included): a figure that noise from other programs on the machine moves far less."""
    pids = [proc.pid, *children_of(proc.pid)]
    before, started = cpu_s(pids), time.perf_counter()
    out = run()
    used, wall = cpu_s(pids) - before, time.perf_counter() - started
    # The load runs one warm-up second before its counted window: scale the calls to the wall.
    calls = out["calls_per_s"] * wall
    out["server_cpu_ms_per_call"] = round(used * 1000 / max(calls, 1), 2)
    return out


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


async def drive(url: str, questions: list[str], clients: int, seconds: float) -> dict[str, Any]:
    """`clients` keep-alive connections, each POSTing one search_docs keyword call after another
    for `seconds` (after one second of warm-up): calls/s, p95 and failures over that window."""
    host, port = re.match(r"http://([^/:]+):(\d+)", url).groups()  # type: ignore[union-attr]
    path = "/" + url.split("/", 3)[3]
    latencies: list[float] = []
    failed = 0
    counting = False
    stop = False

    def request(i: int) -> bytes:
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {
                    "name": "search_docs",
                    "arguments": {"query": questions[i % len(questions)], "mode": "keyword"},
                },
            }
        ).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n"
            f"MCP-Protocol-Version: {PROTOCOL_VERSION}\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        return head.encode() + body

    async def one_client(n: int) -> None:
        nonlocal failed
        i = n
        reader = writer = None
        while not stop:
            started = time.perf_counter()
            ok = False
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection(host, int(port))
                assert reader is not None
                writer.write(request(i))
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
                body = await reader.readexactly(length)
                answer = json.loads(body)
                ok = status == 200 and not answer.get("result", {"isError": True}).get("isError")
                if b"connection: close" in head.lower():
                    writer.close()
                    writer = None
            except (OSError, asyncio.IncompleteReadError, ValueError, AttributeError):
                if writer is not None:
                    writer.close()
                writer = None
            if counting and not stop:
                latencies.append((time.perf_counter() - started) * 1000)
                failed += not ok
            i += clients
        if writer is not None:
            writer.close()

    tasks = [asyncio.create_task(one_client(n)) for n in range(clients)]
    await asyncio.sleep(1.0)
    counting = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    stop = True
    elapsed = time.perf_counter() - started
    await asyncio.gather(*tasks)
    return {
        "clients": clients,
        "calls": len(latencies),
        "calls_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": percentile(latencies, 0.5),
        "p95_ms": percentile(latencies, 0.95),
        "failed": failed,
        "seconds": elapsed,
        "latencies": latencies,
    }


def merged(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several load windows on one server as one: calls over their counted seconds, percentiles
    over all their calls, server CPU per call weighted by calls."""
    latencies = [ms for run in runs for ms in run["latencies"]]
    calls = len(latencies)
    return {
        "clients": runs[0]["clients"],
        "calls": calls,
        "calls_per_s": round(calls / sum(run["seconds"] for run in runs), 1),
        "p50_ms": percentile(latencies, 0.5),
        "p95_ms": percentile(latencies, 0.95),
        "failed": sum(run["failed"] for run in runs),
        "server_cpu_ms_per_call": round(
            sum(run["server_cpu_ms_per_call"] * run["calls"] for run in runs) / max(calls, 1), 2
        ),
        "windows": len(runs),
    }


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()


def start_atlas(bundle: Path, workers: int) -> tuple[subprocess.Popen[str], str]:
    command = [str(BIN / "atlas-mcp"), "--transport", "http", "--stateless", "--port", "0"]
    command += ["--bundle", str(bundle), "--log-level", "WARNING", "--workers", str(workers)]
    proc, url = start_server(command)
    try:
        wait_ready(url, workers)
    except BaseException:
        stop_server(proc)
        raise
    return proc, url


def measure_one_and_two(
    bundle: Path, questions: list[str], clients: int, seconds: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One process and `--workers 2`, both started, loaded in alternating windows (one, two, two,
    one, ...) of `seconds / LOAD_WINDOWS` each: drift on a shared machine falls on both alike, and
    the ratio of the two compares like with like."""
    servers: dict[int, tuple[subprocess.Popen[str], str]] = {}
    try:
        for workers in (1, 2):
            servers[workers] = start_atlas(bundle, workers)
        runs: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
        for window in range(LOAD_WINDOWS):
            for workers in (1, 2) if window % 2 == 0 else (2, 1):
                proc, url = servers[workers]
                runs[workers].append(
                    server_cpu(
                        proc,
                        lambda u=url: asyncio.run(
                            drive(u, questions, clients, seconds / LOAD_WINDOWS)
                        ),
                    )
                )
        one, two = merged(runs[1]), merged(runs[2])
        one["private_mb"] = private_mb(servers[1][0].pid)
        # Forked last: the first is warm from the load test, the others are alike.
        workers_of_two = sorted(children_of(servers[2][0].pid))
        two["second_worker_private_mb"] = private_mb(workers_of_two[-1])
        two["worker_pids"] = len(workers_of_two)
    finally:
        for proc, _ in servers.values():
            stop_server(proc)
    return one, two


def measure_floor(questions: list[str], clients: int, seconds: float) -> dict[str, Any]:
    proc, url = start_server([sys.executable, __file__, "--serve-floor"])
    try:
        return server_cpu(proc, lambda: asyncio.run(drive(url, questions, clients, seconds)))
    finally:
        stop_server(proc)


def scale_numbers(
    bundle: Path, questions: list[str], clients: int, seconds: float
) -> dict[str, Any]:
    """The scale-out keys (see the module's docstring): the floor, then one process and two
    workers in alternating windows."""
    floor_run = measure_floor(questions, clients, seconds)
    floor = floor_run["calls_per_s"]
    floor_run.pop("latencies", None)
    one, two = measure_one_and_two(bundle, questions, clients, seconds)
    two["vs_one_process"] = round(two["calls_per_s"] / max(one["calls_per_s"], 0.1), 2)
    two["private_mb_vs_one_process"] = round(
        two["second_worker_private_mb"] / max(one["private_mb"], 0.1), 2
    )
    return {
        "asgi_floor_calls_per_s": floor,
        "asgi_floor": floor_run,
        "http_stateless": one,
        "http_stateless_vs_asgi_floor": round(one["calls_per_s"] / max(floor, 0.1), 3),
        "http_workers2": two,
    }


# --- through a reverse proxy: deploy/nginx.conf over two processes -------------------------------


def proxy_numbers(
    bundle: Path, questions: list[str], clients: int, seconds: float
) -> dict[str, Any]:
    """The scale-out load through nginx running deploy/nginx.conf in front of two `--stateless`
    processes, each on its own loopback address and one shared port, the way pods are laid out."""
    sys.path.insert(0, str(ROOT))
    from tests.deploy.proxy import POD_ADDRESSES, Nginx, free_pod_port, nginx_binary, start_pods

    binary = nginx_binary()
    if binary is None:
        return {"failed": None, "skipped": "nginx is not installed (apt-get install -y nginx)"}
    addresses = POD_ADDRESSES[:2]
    pods = start_pods(bundle, addresses, free_pod_port(addresses), ("--log-level", "WARNING"))
    try:
        with (
            tempfile.TemporaryDirectory(prefix="atlas-nginx-") as workdir,
            Nginx(binary, pods, Path(workdir)) as proxy,
        ):
            out = asyncio.run(drive(proxy.url(), questions, clients, seconds))
            out.pop("latencies")
            served = {row[1] for row in proxy.access_log() if row[3] == "POST"}
    finally:
        pods.stop()
    out["upstreams"] = len(served)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=None)
    parser.add_argument("--concurrency", type=int, default=200, help="concurrent HTTP calls")
    parser.add_argument("--queries", type=int, default=40, help="queries per mode")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--only",
        choices=("all", "scale", "proxy"),
        default="all",
        help="scale: the scale-out keys only (http_proxy included); proxy: http_proxy only",
    )
    parser.add_argument("--clients", type=int, default=SCALE_CLIENTS, help="scale-out clients")
    parser.add_argument("--seconds", type=float, default=8.0, help="scale-out load per server")
    parser.add_argument("--serve-floor", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_floor:
        return serve_floor()
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
    if args.only == "all":
        result.update(asyncio.run(stdio_numbers(bundle, questions, identifiers)))
        result.update(stdio_vs_engine(result))
        result["http_concurrent"] = asyncio.run(
            http_numbers(bundle, args.concurrency, questions, identifiers)
        )
    if args.only != "proxy":
        result.update(scale_numbers(bundle, questions, args.clients, args.seconds))
    result["http_proxy"] = proxy_numbers(bundle, questions, args.clients, args.seconds)
    if result["http_proxy"].get("calls_per_s") and "http_workers2" in result:
        result["http_proxy"]["vs_workers2"] = round(
            result["http_proxy"]["calls_per_s"] / max(result["http_workers2"]["calls_per_s"], 0.1),
            2,
        )
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
