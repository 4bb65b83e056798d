"""Hot-reload and download figures, measured side by side in one run.

    uv run python benchmarks/reload.py [--bundle /tmp/atlas-shared-bundle] [--swaps 10] [--json]

- ``swap_to_first_answer_ms`` per server (p50 over --swaps flips of an install's ``current`` link
  between two releases of the bundle): from the flip to the first answer given after the server
  announced the new bundle (LSP window/logMessage, MCP log notification).
- ``failed_during_swap``: requests that failed while requests were kept in flight across every swap
  (4 at a time); must be 0.
- ``download``: `atlas download` of the packed bundle from a release server on 127.0.0.1 (checksum,
  unpack and full verify included) against `curl` fetching the same archive, MiB/s each.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.distribution.archive import pack, sha256_file  # noqa: E402
from atlas_core.distribution.download import download_release  # noqa: E402
from atlas_core.distribution.install import flip_current  # noqa: E402
from atlas_ls.stdio_rpc import Rpc  # noqa: E402


def _announced(notice: dict[str, Any], lsp: bool) -> bool:
    params = notice.get("params", {})
    if lsp:
        return notice.get("method") == "window/logMessage" and "loaded bundle" in params.get(
            "message", ""
        )
    return notice.get("method") == "notifications/message" and "loaded bundle" in str(
        params.get("data", "")
    )


def _failed(response: dict[str, Any], lsp: bool) -> bool:
    if "error" in response:
        return True
    return not lsp and bool(response.get("result", {}).get("isError"))


def measure_swaps(
    rpc: Rpc, lsp: bool, root: Path, releases: list[Path], swaps: int
) -> dict[str, Any]:
    method, params = (
        ("workspace/symbol", {"query": "assets"})
        if lsp
        else (
            "tools/call",
            {"name": "lookup_identifier", "arguments": {"identifier": "findAssets"}},
        )
    )
    times: list[float] = []
    failed = 0
    requests = 0
    for _ in range(swaps):
        while not rpc.notices.empty():
            rpc.notices.get()
        serving = (root / "current").resolve()
        flip_current(root, next(r for r in releases if r.resolve() != serving))
        flipped = time.perf_counter()
        announced_at: float | None = None
        first_answer: float | None = None
        deadline = flipped + 60
        while first_answer is None and time.perf_counter() < deadline:
            ids = [rpc.request(method, params) for _ in range(4)]  # 4 requests in flight
            for msg_id in ids:
                at, response = rpc.wait(msg_id)
                requests += 1
                failed += _failed(response, lsp)
                if announced_at is not None and first_answer is None and at > announced_at:
                    first_answer = at
            while not rpc.notices.empty():
                at, notice = rpc.notices.get()
                if _announced(notice, lsp) and announced_at is None:
                    announced_at = at
        if first_answer is None:
            raise RuntimeError("the server never announced the new bundle")
        times.append((first_answer - flipped) * 1000)
    return {
        "swap_to_first_answer_ms_p50": round(statistics.median(times), 1),
        "swap_to_first_answer_ms_max": round(max(times), 1),
        "failed_during_swap": failed,
        "requests_during_swaps": requests,
    }


def lsp_figures(root: Path, releases: list[Path], swaps: int) -> dict[str, Any]:
    rpc = Rpc([sys.executable, "-m", "atlas_ls.lsp", "--bundle", str(root / "current")], lsp=True)
    try:
        rpc.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        rpc.send({"method": "initialized", "params": {}})
        while not rpc.call("workspace/symbol", {"query": "assets"}).get("result"):
            time.sleep(0.1)
        return measure_swaps(rpc, True, root, releases, swaps)
    finally:
        rpc.close()


def mcp_figures(root: Path, releases: list[Path], swaps: int) -> dict[str, Any]:
    rpc = Rpc([sys.executable, "-m", "atlas_ls.mcp", "--bundle", str(root / "current")], lsp=False)
    try:
        rpc.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "reload-bench", "version": "1"}})  # fmt: skip
        rpc.send({"method": "notifications/initialized"})
        rpc.call("tools/call", {"name": "get_bundle_info", "arguments": {}})
        return measure_swaps(rpc, False, root, releases, swaps)
    finally:
        rpc.close()


def download_figures(bundle: Path, work: Path) -> dict[str, Any]:
    from aiohttp import web

    archive = pack(bundle, work / "atlas-bundle-bench.tar.zst", top="atlas-bundle-bench")
    digest = sha256_file(archive)
    size = archive.stat().st_size
    loop_ready = threading.Event()
    state: dict[str, Any] = {}

    async def release(_: web.Request) -> web.Response:
        base = f"http://127.0.0.1:{state['port']}"
        return web.json_response({"tag_name": "bench", "assets": [
            {"name": archive.name, "size": size, "url": "",
             "browser_download_url": f"{base}/dl/{archive.name}"},
            {"name": archive.name + ".sha256", "size": 80, "url": "",
             "browser_download_url": f"{base}/dl/sum"}]})  # fmt: skip

    async def asset(request: web.Request) -> web.StreamResponse:
        if request.match_info["name"] == "sum":
            return web.Response(text=f"{digest}  {archive.name}\n")
        return web.FileResponse(archive)

    def serve() -> None:
        import asyncio

        loop = asyncio.new_event_loop()
        app = web.Application()
        app.router.add_get("/api/repos/o/n/releases/latest", release)
        app.router.add_get("/dl/{name}", asset)
        runner = web.AppRunner(app, access_log=None)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        state["port"] = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        loop_ready.set()
        loop.run_forever()

    threading.Thread(target=serve, daemon=True).start()
    loop_ready.wait(10)
    url = f"http://127.0.0.1:{state['port']}/dl/{archive.name}"
    started = time.perf_counter()
    subprocess.run(["curl", "-sS", "-o", str(work / "curl.out"), url], check=True)
    curl_s = time.perf_counter() - started
    from atlas_core.distribution.download import _fetch
    from atlas_core.distribution.github import Asset, GitHub

    started = time.perf_counter()
    _fetch(GitHub(), Asset(archive.name, url, "", size), work / "transfer.part", progress=False)
    transfer_s = time.perf_counter() - started
    report = download_release(
        "o/n", output=work / "install", api_url=f"http://127.0.0.1:{state['port']}/api",
        token=None, progress=False,
    )  # fmt: skip
    mib = size / 2**20
    return {
        "archive_mib": round(mib, 1),
        "curl_mib_s": round(mib / curl_s, 1),
        "atlas_transfer_mib_s": round(mib / transfer_s, 1),
        "atlas_transfer_vs_curl_time_ratio": round(transfer_s / curl_s, 2),
        "atlas_download_mib_s": round(mib / report.seconds, 1),
        "atlas_vs_curl_time_ratio": round(report.seconds / curl_s, 2),
        "note": "transfer: streaming to disk only; download: + SHA-256, safe unpack, full verify",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=Path("/tmp/atlas-shared-bundle"))
    parser.add_argument("--swaps", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (args.bundle / "manifest.json").is_file():
        print(f"no bundle at {args.bundle}: build one with `atlas build ... --output {args.bundle}`",
              file=sys.stderr)  # fmt: skip
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        root = work / "root"
        releases = [root / "releases" / "a", root / "releases" / "b"]
        for release in releases:
            shutil.copytree(args.bundle, release)
        flip_current(root, releases[0])
        figures = {
            "bundle": str(args.bundle),
            "swaps": args.swaps,
            "lsp": lsp_figures(root, releases, args.swaps),
            "mcp": mcp_figures(root, releases, args.swaps),
            "download": download_figures(args.bundle, work),
        }
    if args.json:
        print(json.dumps(figures))
    else:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
