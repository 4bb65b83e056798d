"""Language-server speed over stdio with a real JSON-RPC client, on 100,000 identifiers.

    uv run python benchmarks/lsp.py --json [--identifiers 100000] [--workdir DIR] [--requests 300]
                                    [--cold-starts 5]
    uv run python benchmarks/lsp.py --json --bundle /tmp/atlas-shared-bundle   # a real bundle

Writes (or reuses, with --workdir) a bundle whose identifier table holds N synthetic identifiers
(`benchmarks.synthetic_identifiers`, every kind) over 200 mirror pages, then starts
``python -m atlas_ls --bundle DIR`` and measures, from the client's side of the pipe:

  start_to_first_hover_ms  process start to the first hover answer (initialize, initialized,
                           didOpen, hover; the server opens the bundle while the client starts),
                           median of --cold-starts starts, each with an empty .pyc folder of its
                           own (PYTHONPYCACHEPREFIX) and PYTHONDONTWRITEBYTECODE=1: all source,
                           the standard library's included, is compiled
  protocol_import_ms       the floor under it: a fresh interpreter doing only
                           `import pygls.lsp.server, lsprotocol.types`, process start to exit,
                           under the same conditions, its runs interleaved with the Atlas starts
                           (median; each in protocol_import_runs_ms)
  start_vs_protocol_import_ratio  the first over the second (issue 17: <= 1.25)
  start_vs_protocol_import_cpu_ratio  the same for CPU time (user + system; the server's up to
                           the first hover answer, the import's to exit): steadier than wall
                           time on a busy machine
  start_to_first_hover_ms_bytecode / protocol_import_ms_bytecode /
  start_vs_protocol_import_ratio_bytecode / start_vs_protocol_import_cpu_ratio_bytecode
                           the same with a warm .pyc folder shared by both (as
                           an installed package starts: pip compiles at install time)
  cold_start_ms            the same starts as start_to_first_hover_ms (each in
                           cold_start_runs_ms); cold_start_bytecode_cached is false for them
  cold_start_cpu_ms        the server's CPU time (user + system) up to that answer: the part of
                           the cold start that does not depend on how busy the machine is
  cold_start_with_bytecode_ms / _cpu_ms  the starts of start_to_first_hover_ms_bytecode
  initialized_to_first_hover_ms  from the `initialized` notification to that answer (< 300)
  hover_p50_ms / _p95_ms   textDocument/hover on operations, types, JSON keys and REST paths in
                           string literals of one open document
  definition_p95_ms        textDocument/definition on the same positions
  call_hover_p50_ms / _p95_ms  hover on every cursor of benchmarks/client_snippets.jsonl, each
                           snippet opened in its language (Python, JS/TS, Java, Groovy, shell):
                           the API-call context path (read the call, resolve its operation);
                           call_hover_found / call_hover_parameters count the answers and the
                           parameter hovers among them; call_hover_right_operation the answers
                           about the snippet's expected method and path (`shown_operation`)
  huge_hover_max_ms        hover in a 5 MB minified JSON and on a 100,000-character Python
                           line, and on a normal document between them (< 50 ms), once the
                           server has read the didOpen message
  workspace_symbol_p95_ms  workspace/symbol for prefixes, camel humps and misspellings
  api_completion_p50_ms / _p95_ms  textDocument/completion while typing in a 10,000-line
                           Python client (`api_client_document`): at each of 40 places a key of
                           a params or body dict, a value of nameMatchMode or a REST path is
                           typed one character at a time (didChange, then completion, timed);
                           api_completion_found counts the answers with items (on the synthetic
                           bundle the Collibra endpoints are unknown, so few: use --bundle)
  rss_mb                   the server's resident memory after all of that (issue 17: < 110)
  exited_in_time           whether the server then exited within 30 s of `exit`
  onnxruntime_loaded       whether the server process mapped libonnxruntime (must be false)

Targets (issue 4): hover p95 < 10 ms, workspace symbol p95 < 30 ms, definition p95 < 10 ms,
cold start < 800 ms; (issue 13) completion p95 < 20 ms. Not a test: it prints numbers and asserts nothing; run it once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PAGES = 200
PAGE_LINES = 400


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return round(ordered[index], 2)


# --- the bundle ---------------------------------------------------------------------------------


def build_bundle(output: Path, n: int) -> tuple[Path, list[Any]]:
    """A bundle with `n` synthetic identifiers; returns it and the entries it holds."""
    from benchmarks.synthetic_identifiers import synthetic_entries

    entries = [
        replace(e, file=f"synthetic/page-{i % PAGES}.md", line=1 + (i // PAGES) % PAGE_LINES)
        for i, e in enumerate(synthetic_entries(n, seed=7))
    ]
    if (output / "manifest.json").is_file():
        return output, entries

    import numpy as np

    from atlas_core.bundle import BundleWriter
    from atlas_core.identifiers.extract.documents import write_table
    from atlas_core.search.keyword import write_keyword_index
    from atlas_core.types import Chunk, Deprecation, Document

    body = "\n".join(f"Line {k} of a synthetic reference page." for k in range(1, PAGE_LINES + 1))
    documents = [
        Document(
            path=f"synthetic/page-{p}.md",
            publication="synthetic",
            title=f"Page {p}",
            url="",
            text=body,
        )
        for p in range(PAGES)
    ]
    chunks = [
        Chunk(
            chunk_id=f"{p:016x}",
            file=d.path,
            publication="synthetic",
            title=d.title,
            heading=d.title,
            anchor=f"page-{p}",
            url="",
            line_start=1,
            line_end=PAGE_LINES,
            text=body[:2000],
            embed_text=body[:2000],
            token_count=400,
        )
        for p, d in enumerate(documents)
    ]
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((len(chunks), 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    deprecations = [
        Deprecation(e.name, "", e.file, e.line, "", "Deprecated in the synthetic docs.", True)
        for e in entries[:: max(1, n // 50)]
        if e.kind == "operation"
    ]
    with BundleWriter(output, name="synthetic-identifiers") as writer:
        (writer.staging / "model").mkdir()
        (writer.staging / "model" / "atlas_model.json").write_text('{"name": "synthetic"}\n')
        writer.write_mirror(documents)
        writer.write_chunks(chunks)
        writer.write_vectors(vectors)
        writer.set_section("keyword", write_keyword_index(chunks, writer.staging))
        writer.set_section("identifiers", write_table(entries, deprecations, writer.staging))
        path = writer.commit(
            model={"name": "synthetic", "kind": "hash", "dims": 384},
            sources=[{"kind": "local", "path": "synthetic"}],
            counts={"documents": len(documents)},
        )
    return path, entries


def sample_document(
    entries: list[Any], count: int, seed: int = 1
) -> tuple[str, list[dict[str, int]]]:
    """A Python file that uses `count` identifiers the way code does, and where each one is."""
    rnd = random.Random(seed)
    lines: list[str] = []
    positions: list[dict[str, int]] = []
    pool = [e for e in entries if e.kind in ("operation", "type", "schema", "json_key", "endpoint")]
    for e in rnd.sample(pool, count):
        if e.kind == "operation":
            line, target = f"result = api.{e.name}(limit=5)", e.name
        elif e.kind in ("type", "schema"):
            line, target = f"request = {e.name}.builder().build()", e.name
        elif e.kind == "json_key":
            line, target = f'payload = {{"{e.name}": True}}', e.name
        else:
            method, path = e.name.split(" ", 1)
            concrete = re.sub(r"\{[^}]*\}", "0190a3c2-4b1e-7c2d-9e8f-123456789abc", path)
            line = f'r = session.{method.lower()}(f"{{base}}/rest/2.0{concrete}")'
            target = concrete
        positions.append({"line": len(lines), "character": line.index(target) + 2})
        lines.append(line)
    return "\n".join(lines) + "\n", positions


class _Entry:
    def __init__(self, name: str, kind: str) -> None:
        self.name, self.kind = name, kind


def entries_of(bundle: Path) -> list[Any]:
    """Identifiers of an existing bundle, found through the engine's own symbol search."""
    from atlas_core.engine import Engine

    engine = Engine.open([bundle])
    found: dict[str, Any] = {}
    for word in ("asset", "domain", "community", "workflow", "attribute", "relation", "import",
                 "find", "get", "add", "change", "remove", "type", "status", "user", "job"):  # fmt: skip
        for symbol in engine.symbols(word, limit=100):
            if symbol.kind in ("operation", "type", "schema", "json_key", "endpoint"):
                found.setdefault(symbol.name, _Entry(symbol.name, symbol.kind))
    engine.close()
    return [e for e in found.values() if e.kind != "endpoint" or " /" in e.name]


SYMBOL_QUERIES = ["find", "assetdom", "GET /asset", "getAssetRel", "comunity", "wkflw", "tag", "sch",
                  "domainType", "relation", "atlas-", "listUser", "RoleApi", "bulk merge", "cntr"]  # fmt: skip


# --- a small JSON-RPC client ---------------------------------------------------------------------


class Client:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._next = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        # Notifications from the server as (arrival time from perf_counter, message), for
        # benchmarks that time them (publishDiagnostics).
        self.notifications: list[tuple[float, dict[str, Any]]] = []
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        stream = self.proc.stdout
        while True:
            length = 0
            while True:
                header = await stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(await stream.readexactly(length))
            if "id" in message and "method" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message and message["id"] in self._waiting:
                self._waiting.pop(message["id"]).set_result(message)
            elif "method" in message:
                self.notifications.append((time.perf_counter(), message))

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any) -> Any:
        self._next += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[self._next] = future
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        reply = await asyncio.wait_for(future, 120)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def timed(self, method: str, params: Any) -> tuple[float, Any]:
        started = time.perf_counter()
        result = await self.request(method, params)
        return (time.perf_counter() - started) * 1000, result


SNIPPETS = ROOT / "benchmarks" / "client_snippets.jsonl"
_SNIPPET_SUFFIX = {"python": "py", "javascript": "js", "typescript": "ts", "java": "java",
                   "groovy": "groovy", "shell": "sh", "markdown": "md"}  # fmt: skip


_BOLD_OPERATION = re.compile(r"\*\*([A-Z]+)\*\* `([^`]+)`")
_PARAMETER_OF = re.compile(r"parameter of ([A-Z]+) (\S+)\*")


def shown_operation(value: str) -> tuple[str, str] | None:
    """The operation a hover is about: in its first line (an endpoint's title, "query parameter
    of GET /assets"), or for a body property in its "Request body of" line."""
    lines = value.split("\n")
    head = lines[0]
    body = next((line for line in lines if line.startswith("Request body of ")), "")
    for text in (head, body):
        match = _PARAMETER_OF.search(text) or _BOLD_OPERATION.search(text)
        if match:
            return match.group(1), match.group(2)
    return None


async def call_hovers(client: Client, home: Path) -> dict[str, Any]:
    """Hover every cursor of the client snippets, each snippet open in its own language."""
    snippets = [json.loads(line) for line in SNIPPETS.read_text().splitlines() if line.strip()]
    times: list[float] = []
    found = parameters = right = 0
    for snippet in snippets:
        suffix = _SNIPPET_SUFFIX.get(snippet["language"], "txt")
        uri = (home / f"{snippet['id']}.{suffix}").as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": snippet["language"], "version": 1,
            "text": snippet["code"]}})  # fmt: skip
        for cursor in snippet["cursors"]:
            position = {"line": cursor["line"], "character": cursor["character"]}
            params = {"textDocument": {"uri": uri}, "position": position}
            ms, result = await client.timed("textDocument/hover", params)
            times.append(ms)
            if result is not None:
                found += 1
                value = result["contents"]["value"]
                head = value.split("\n", 1)[0]
                parameters += bool(re.match(r"`[^`]+` — \*[\w ]*(?:parameter|property) of ", head))
                right += shown_operation(value) == (
                    cursor["expect"]["method"],
                    cursor["expect"]["path"],
                )
    return {
        "call_hover_p50_ms": percentile(times, 0.5),
        "call_hover_p95_ms": percentile(times, 0.95),
        "call_hover_found": f"{found}/{len(times)}",
        "call_hover_parameters": parameters,
        "call_hover_right_operation": f"{right}/{len(times)}",
    }


async def huge_hovers(client: Client, home: Path, normal_uri: str, normal: Any) -> float:
    """The slowest hover in a 5 MB minified JSON, on a 100,000-character Python line, and on a
    normal document right after each was opened."""
    blob = json.dumps([{"href": f"/rest/2.0/assets/{i}", "name": "x" * 20} for i in range(90_000)],
                      separators=(",", ":"))[: 5 * 1024 * 1024]  # fmt: skip
    line = "x = [" + ",".join(str(i) for i in range(30_000))[:100_000] + "]"
    code = 'import requests\nrequests.get("/rest/2.0/assets", params={"domainId": 1})\n' + line
    slowest = 0.0
    for name, language, text, position in (
        ("blob.json", "json", blob, {"line": 0, "character": len(blob) // 2}),
        ("long.py", "python", code, {"line": 2, "character": 50_000}),
    ):
        uri = (home / name).as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})  # fmt: skip
        # Reading the 5 MB didOpen message itself is pygls's work, before any handler runs; one
        # round trip lets it finish so the hovers below time what Atlas does with the text.
        await client.request("textDocument/hover", {"textDocument": {"uri": normal_uri},
                                                    "position": normal})  # fmt: skip
        for _ in range(5):
            for target, where in ((uri, position), (normal_uri, normal)):
                params = {"textDocument": {"uri": target}, "position": where}
                ms, _ = await client.timed("textDocument/hover", params)
                slowest = max(slowest, ms)
    return round(slowest, 2)


def _cpu_ms(pid: int) -> float | None:
    """CPU time a process has used (user + system): what a cold start costs on an idle machine."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return None
    fields = stat.read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return round(ticks * 1000 / os.sysconf("SC_CLK_TCK"), 1)


def server_env(
    home: Path, bytecode_cache: Path | None = None, *, write_bytecode: bool = True
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATLAS_")}
    env.update(ATLAS_CONFIG=str(home / "atlas.toml"), ATLAS_DATA_DIR=str(home / "data"),
               ATLAS_CACHE_DIR=str(home / "cache"))  # fmt: skip
    if bytecode_cache is not None:
        # Python reads (and, with `write_bytecode`, writes) .pyc files in this folder only, the
        # standard library's included; the project's own venv is left as it is.
        env["PYTHONPYCACHEPREFIX"] = str(bytecode_cache)
        if write_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


PROTOCOL_IMPORT = "import pygls.lsp.server, lsprotocol.types"


async def protocol_import(env: dict[str, str]) -> dict[str, Any]:
    """The floor under a cold start: a fresh interpreter importing only pygls and lsprotocol,
    timed from process start to exit like `start_to_first_hover`."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", PROTOCOL_IMPORT, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    _, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"{PROTOCOL_IMPORT!r} failed: {err.decode(errors='replace')[-500:]}")
    ms = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # one child ran since `children`
    cpu_s = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    return {"ms": ms, "cpu_ms": round(cpu_s * 1000, 1)}


async def start_to_first_hover(
    bundle: Path, text: str, position: dict[str, int], home: Path, env: dict[str, str]
) -> tuple[Client, dict[str, Any]]:
    """Start the server and time initialize, initialized, didOpen and the first hover."""
    uri = (home / "bench.py").as_uri()
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atlas_ls", "--bundle", str(bundle),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=env,
    )  # fmt: skip
    client = Client(proc)
    await client.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": home.as_uri(), "capabilities": {
            "textDocument": {"hover": {"contentFormat": ["markdown"]}},
            "workspace": {"symbol": {}}}},
    )  # fmt: skip
    client.notify("initialized", {})
    initialized_at = time.perf_counter()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}})  # fmt: skip
    first = await client.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
    )
    return client, {
        "found": first is not None,
        "ms": (time.perf_counter() - started) * 1000,
        "initialized_to_hover_ms": (time.perf_counter() - initialized_at) * 1000,
        "cpu_ms": _cpu_ms(proc.pid),
    }


EXIT_WAIT_S = 30


async def stop(client: Client) -> bool:
    """shutdown and exit; False when the server was still running EXIT_WAIT_S later (killed)."""
    proc = client.proc
    try:
        await client.request("shutdown", None)
        client.notify("exit", None)
        await asyncio.wait_for(proc.wait(), EXIT_WAIT_S)
    except TimeoutError:
        return False
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return True


async def cold_start(
    bundle: Path, text: str, position: dict[str, int], home: Path, env: dict[str, str]
) -> dict[str, Any]:
    client, first = await start_to_first_hover(bundle, text, position, home, env)
    await stop(client)
    return first


async def side_by_side(
    bundle: Path,
    text: str,
    position: dict[str, int],
    home: Path,
    workdir: Path,
    starts: int,
    *,
    bytecode: bool = False,
) -> dict[str, list[dict[str, Any]]]:
    """`starts` Atlas cold starts interleaved with as many protocol imports, so both see the same
    machine. Without `bytecode` every process gets an empty .pyc folder and writes nothing (all
    source is compiled); with it both share one folder, warmed by a run of each first."""
    shared = workdir / "pycache"
    if bytecode:
        env = server_env(home, shared)
        await protocol_import(env)
        await cold_start(bundle, text, position, home, env)
    runs: dict[str, list[dict[str, Any]]] = {"atlas": [], "protocol": []}
    for _ in range(starts):
        for kind in ("protocol", "atlas"):
            with tempfile.TemporaryDirectory(prefix="atlas-pyc-", dir=workdir) as empty:
                if bytecode:
                    env = server_env(home, shared)
                else:
                    env = server_env(home, Path(empty), write_bytecode=False)
                if kind == "protocol":
                    runs[kind].append(await protocol_import(env))
                else:
                    runs[kind].append(await cold_start(bundle, text, position, home, env))
    return runs


def floor_summary(runs: dict[str, list[dict[str, Any]]], suffix: str) -> dict[str, Any]:
    """Atlas's start to the first hover against the protocol import alone, medians of both."""
    atlas = statistics.median(r["ms"] for r in runs["atlas"])
    protocol = statistics.median(r["ms"] for r in runs["protocol"])
    atlas_cpu = [r["cpu_ms"] for r in runs["atlas"] if r["cpu_ms"] is not None]
    protocol_cpu = statistics.median(r["cpu_ms"] for r in runs["protocol"])
    return {
        f"start_to_first_hover_ms{suffix}": round(atlas, 1),
        f"protocol_import_ms{suffix}": round(protocol, 1),
        f"start_vs_protocol_import_ratio{suffix}": round(atlas / protocol, 3),
        f"protocol_import_runs_ms{suffix}": [round(r["ms"], 1) for r in runs["protocol"]],
        f"start_vs_protocol_import_cpu_ratio{suffix}": round(
            statistics.median(atlas_cpu) / protocol_cpu, 3
        )
        if atlas_cpu and protocol_cpu
        else None,
    }


def cold_start_summary(runs: list[dict[str, Any]], prefix: str) -> dict[str, Any]:
    """Median of several cold starts (the machine is shared: one start says little)."""
    cpu = [r["cpu_ms"] for r in runs if r["cpu_ms"] is not None]
    return {
        f"{prefix}_ms": round(statistics.median(r["ms"] for r in runs), 1),
        f"{prefix}_cpu_ms": round(statistics.median(cpu), 1) if cpu else None,
        f"{prefix}_runs_ms": [round(r["ms"], 1) for r in runs],
    }


# One function of a client: three calls whose params, body and URL the benchmark types into.
_CLIENT_FUNCTION = """\
def find_{n}(session, name):
    found = session.get(BASE + "/assets", params={{"name": name, "nameMatchMode": "EXACT", }})
    added = session.post(BASE + "/assets", json={{"name": name, }})
    jobs = session.post(BASE + "/rest/2.0/")
    return found, added, jobs

"""
_TYPED = (  # (line of the function, text before the cursor on it, characters typed)
    (1, '"EXACT", ', '"li'),
    (1, '"nameMatchMode": "', "EX"),
    (2, '"name": name, ', '"do'),
    (3, '"/rest/2.0/', "work"),
)


def api_client_document(lines: int = 10_000) -> tuple[str, list[tuple[int, int, str]]]:
    """A Python client of `lines` lines and 40 places (line, column, text to type) spread over
    it."""
    header = 'import requests\n\nBASE = "https://example.collibra.com/rest/2.0"\n\n'
    functions = (lines - 4) // 6
    text = header + "".join(_CLIENT_FUNCTION.format(n=n) for n in range(functions))
    template = _CLIENT_FUNCTION.format(n=0).split("\n")
    places = []
    for index, n in enumerate(range(0, functions, max(1, functions // 40))):
        line_in, before, typed = _TYPED[index % len(_TYPED)]
        line = 4 + 6 * n + line_in
        places.append((line, template[line_in].index(before) + len(before), typed))
    return text, places[:40]


async def api_completions(client: Client, home: Path) -> dict[str, Any]:
    """Completion while typing keys, values and paths into a 10,000-line client."""
    text, places = api_client_document()
    uri = (home / "client_10k.py").as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}})  # fmt: skip
    version, times, found = 1, [], 0
    for line, column, typed in places:
        for offset, char in enumerate(typed):
            version += 1
            at = {"line": line, "character": column + offset}
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": char}]})  # fmt: skip
            position = {"line": line, "character": column + offset + 1}
            params = {"textDocument": {"uri": uri}, "position": position}
            ms, result = await client.timed("textDocument/completion", params)
            times.append(ms)
            found += bool(result and result.get("items"))
    return {
        "api_completion_p50_ms": percentile(times, 0.5),
        "api_completion_p95_ms": percentile(times, 0.95),
        "api_completion_found": f"{found}/{len(times)}",
    }


async def measure(
    bundle: Path, text: str, positions: list[dict[str, int]], home: Path
) -> dict[str, Any]:
    client, first = await start_to_first_hover(bundle, text, positions[0], home, server_env(home))
    proc = client.proc
    try:
        uri = (home / "bench.py").as_uri()
        hover_ms, definition_ms, symbol_ms, misses = [], [], [], 0
        for pos in positions:
            params = {"textDocument": {"uri": uri}, "position": pos}
            ms, result = await client.timed("textDocument/hover", params)
            hover_ms.append(ms)
            misses += result is None
            ms, _ = await client.timed("textDocument/definition", params)
            definition_ms.append(ms)
        calls = await call_hovers(client, home)
        huge_ms = await huge_hovers(client, home, uri, positions[0])
        completions = await api_completions(client, home)
        for _ in range(4):
            for query in SYMBOL_QUERIES:
                ms, _ = await client.timed("workspace/symbol", {"query": query})
                symbol_ms.append(ms)
        rss_kb = 0
        status = Path(f"/proc/{proc.pid}/status")
        if status.exists():
            for line in status.read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss_kb = int(line.split()[1])
        maps = Path(f"/proc/{proc.pid}/maps")
        onnx = "onnxruntime" in maps.read_text() if maps.exists() else None
    finally:
        exited = await stop(client)
    return {
        # False: exit waited over EXIT_WAIT_S for work still running on worker threads.
        "exited_in_time": exited,
        "first_hover_found": first["found"],
        "first": first,
        "initialized_to_first_hover_ms": round(first["initialized_to_hover_ms"], 1),
        "hover_p50_ms": percentile(hover_ms, 0.5),
        "hover_p95_ms": percentile(hover_ms, 0.95),
        "hover_misses": misses,
        **calls,
        "huge_hover_max_ms": huge_ms,
        **completions,
        "definition_p50_ms": percentile(definition_ms, 0.5),
        "definition_p95_ms": percentile(definition_ms, 0.95),
        "workspace_symbol_p50_ms": percentile(symbol_ms, 0.5),
        "workspace_symbol_p95_ms": percentile(symbol_ms, 0.95),
        "rss_mb": round(rss_kb / 1024, 1),
        "onnxruntime_loaded": onnx,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--identifiers", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=300, help="hover/definition positions")
    parser.add_argument("--workdir", type=Path, help="keep (and reuse) the bundle here")
    parser.add_argument(
        "--bundle", type=Path, help="measure an existing bundle (e.g. the Collibra docs) instead"
    )
    parser.add_argument(
        "--cold-starts", type=int, default=5, help="server starts to take the median of"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="atlas-lsp-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if args.bundle:
        bundle, entries = args.bundle, entries_of(args.bundle)
    else:
        bundle, entries = build_bundle(workdir / f"bundle-{args.identifiers}", args.identifiers)
    build_s = time.perf_counter() - t0
    text, positions = sample_document(entries, min(args.requests, len(entries)))
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    starts = max(1, args.cold_starts)
    no_bytecode = asyncio.run(side_by_side(bundle, text, positions[0], home, workdir, starts))
    bytecode = asyncio.run(
        side_by_side(bundle, text, positions[0], home, workdir, starts, bytecode=True)
    )
    numbers = asyncio.run(measure(bundle, text, positions, home))
    numbers.pop("first")
    report = {
        "bundle": str(bundle),
        "identifiers": args.identifiers if not args.bundle else None,
        "requests": len(positions),
        "bundle_build_s": round(build_s, 2),
        **floor_summary(no_bytecode, ""),
        **floor_summary(bytecode, "_bytecode"),
        **cold_start_summary(no_bytecode["atlas"], "cold_start"),
        "cold_start_bytecode_cached": False,
        **cold_start_summary(bytecode["atlas"], "cold_start_with_bytecode"),
        **numbers,
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:28} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
