"""How long API-check diagnostics of a 10,000-line client take, in the engine and over stdio.

    uv run python benchmarks/api_diagnostics.py --bundle DIR [--lines 10000] [--edits 20] [--json]

The client file is the Python snippets of `benchmarks/api_cases.jsonl` (correct ones and ones
with a planted mistake; four client shapes: `requests`, sessions, `httpx`, a client class with a
wrapper) repeated until it has `--lines` lines: a dense file, about one API call site in seven
lines. Measured side by side in one run:

  engine_first_ms          `Engine.check_code` on the whole file, the first time (parse, scan,
                           check; the API model already built)
  engine_edit_p50_ms / _p95_ms  `CallReader.scan` + `check_code` after a one-line edit inside a
                           function, over the reader's incremental tree and scan cache (--edits)
  lsp_open_ms              didOpen to the first publishDiagnostics of the file over stdio, the
                           server started with atlas.diagnostics.debounceMs 0 (API model built
                           by a warm-up document first)
  lsp_edit_p50_ms / _p95_ms  didChange (one line) to the publishDiagnostics of that version:
                           the issue's "after the debounce" figure (goal < 100 ms)
  baseline_lsp_edit_p50_ms / _p95_ms  the same with atlas.diagnostics.api false: the deprecated-
                           term scan alone, what every edit cost before the API checks
  edit_ratio_p50           lsp_edit_p50_ms / baseline_lsp_edit_p50_ms
  sites, findings          call sites the scan found, findings the checks gave

Not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.lsp import Client, percentile, server_env, stop  # noqa: E402

CASES = ROOT / "benchmarks" / "api_cases.jsonl"


def client_file(lines: int) -> str:
    snippets = [
        case["code"]
        for case in map(json.loads, CASES.read_text(encoding="utf-8").splitlines())
        if case["language"] == "python"
    ]
    out: list[str] = []
    while len(out) < lines:
        out += [*snippets[len(out) % len(snippets)].splitlines(), ""]
    return "\n".join(out[:lines]) + "\n"


def edit_lines(text: str, edits: int) -> list[int]:
    """Lines inside functions (indented, not blank) spread over the file, one per edit."""
    rows = text.split("\n")
    inside = [i for i, row in enumerate(rows) if row.startswith("    ") and row.strip()]
    step = max(1, len(inside) // edits)
    return inside[::step][:edits]


def engine_figures(bundle: Path, text: str, edits: list[int]) -> dict[str, Any]:
    from atlas_core.engine import Engine
    from atlas_core.recognize.calls import CallReader

    with Engine.open(bundle) as engine:
        engine.api_model()
        started = time.perf_counter()
        findings = engine.check_code(text, "python")
        first = (time.perf_counter() - started) * 1000
        reader = CallReader()
        sites = reader.scan("bench", text, 1, "python")
        rows = text.split("\n")
        times = []
        for version, line in enumerate(edits, start=2):
            rows[line] += "  # edited"
            changed = "\n".join(rows)
            started = time.perf_counter()
            found = reader.scan("bench", changed, version, "python")
            engine.check_code(changed, "python", sites=found)
            times.append((time.perf_counter() - started) * 1000)
    return {
        "engine_first_ms": round(first, 1),
        "engine_edit_p50_ms": percentile(times, 0.5),
        "engine_edit_p95_ms": percentile(times, 0.95),
        "sites": len(sites),
        "findings": len(findings),
    }


async def _published(client: Client, uri: str, version: int, since: int) -> float:
    """Seconds (perf_counter) when diagnostics of `uri` at `version` arrived."""
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline:
        for at, message in client.notifications[since:]:
            params = message.get("params") or {}
            if (
                message.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == uri
                and params.get("version") == version
            ):
                return at
        await asyncio.sleep(0.001)
    raise TimeoutError(f"no diagnostics for version {version} of {uri}")


async def lsp_figures(
    bundle: Path, text: str, edits: list[int], *, api: bool, home: Path
) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atlas_ls", "--bundle", str(bundle),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=server_env(home),
    )  # fmt: skip
    client = Client(proc)
    options = {"diagnostics": {"debounceMs": 0, "api": api}}
    await client.request("initialize", {"processId": os.getpid(), "rootUri": home.as_uri(),
                                        "capabilities": {}, "initializationOptions": options})  # fmt: skip
    client.notify("initialized", {})
    try:
        # A small document first: the API model and the grammar load outside the timings.
        warm = (home / "warm.py").as_uri()
        since = len(client.notifications)
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": warm, "languageId": "python", "version": 1,
            "text": 'import requests\nrequests.get("https://x.collibra.com/rest/2.0/assets")\n'}})  # fmt: skip
        await _published(client, warm, 1, since)
        uri = (home / "client_10k.py").as_uri()
        since = len(client.notifications)
        started = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})  # fmt: skip
        opened = (await _published(client, uri, 1, since) - started) * 1000
        rows = text.split("\n")
        times = []
        for version, line in enumerate(edits, start=2):
            at = {"line": line, "character": len(rows[line])}
            since = len(client.notifications)
            started = time.perf_counter()
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": "  # edited"}]})  # fmt: skip
            times.append((await _published(client, uri, version, since) - started) * 1000)
            rows[line] += "  # edited"
    finally:
        await stop(client)
    return {"open_ms": round(opened, 1), "edit_p50_ms": percentile(times, 0.5),
            "edit_p95_ms": percentile(times, 0.95)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    text = client_file(args.lines)
    edits = edit_lines(text, args.edits)
    result: dict[str, Any] = {"lines": args.lines, "edits": len(edits)}
    result.update(engine_figures(args.bundle, text, edits))
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        checked = asyncio.run(lsp_figures(args.bundle, text, edits, api=True, home=home))
        baseline = asyncio.run(lsp_figures(args.bundle, text, edits, api=False, home=home))
    result.update({f"lsp_{k}": v for k, v in checked.items()})
    result.update({f"baseline_lsp_{k}": v for k, v in baseline.items()})
    base = baseline["edit_p50_ms"]
    result["edit_ratio_p50"] = round(checked["edit_p50_ms"] / base, 2) if base else None
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        width = max(map(len, result))
        for key, value in result.items():
            print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
