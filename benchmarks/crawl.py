"""Crawler throughput against a local server, beside bare aiohttp fetches of the same pages.

    uv run python benchmarks/crawl.py [--docs ../shared/collibra-docs/markdown] [--json]

Serves the docs folder on 127.0.0.1 with a generated llms.txt, crawls it with delays off at
concurrency 1, 5 and 20, and fetches the same URLs with a bare aiohttp loop at the same concurrency
in the same run. Prints pages/s for each and the crawler's overhead (bare pages/s / crawler pages/s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import aiohttp
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.crawl import CrawlOptions, FetchSettings, crawl  # noqa: E402


def _serve(docs: Path) -> tuple[int, list[str], asyncio.AbstractEventLoop]:
    files = sorted(p for p in docs.rglob("*.md"))
    sections: dict[str, list[str]] = {}
    for path in files:
        rel = path.relative_to(docs).as_posix()
        sections.setdefault(rel.split("/", 1)[0], []).append(rel)
    index = ["# Local docs"]
    for section, rels in sections.items():
        index.append(f"\n## {section}\n")
        index += [f"- [{rel}](/{rel})" for rel in rels]
    index_text = "\n".join(index) + "\n"

    async def handle(request: web.Request) -> web.StreamResponse:
        path = request.path.lstrip("/")
        if path == "llms.txt":
            return web.Response(text=index_text, content_type="text/plain")
        if path == "robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n", content_type="text/plain")
        target = (docs / path).resolve()
        if not target.is_relative_to(docs.resolve()) or not target.is_file():
            return web.Response(status=404)
        return web.Response(body=target.read_bytes(), content_type="text/markdown")

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def start() -> int:
        app = web.Application()
        app.router.add_get("/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        return site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    port = asyncio.run_coroutine_threadsafe(start(), loop).result()
    urls = [f"http://127.0.0.1:{port}/{p.relative_to(docs).as_posix()}" for p in files]
    return port, urls, loop


async def _bare(urls: list[str], concurrency: int) -> float:
    semaphore = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession() as session:

        async def one(url: str) -> None:
            async with semaphore, session.get(url) as resp:
                await resp.read()

        started = time.perf_counter()
        await asyncio.gather(*(one(u) for u in urls))
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=ROOT.parent / "shared/collibra-docs/markdown")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.docs.is_dir():
        print(f"no docs folder at {args.docs}; pass --docs", file=sys.stderr)
        return 2
    port, urls, _loop = _serve(args.docs)
    results: dict[str, object] = {"pages": len(urls)}
    for concurrency in (1, 5, 20):
        bare_s = asyncio.run(_bare(urls, concurrency))
        with tempfile.TemporaryDirectory() as out:
            settings = FetchSettings(delay_min=0, delay_max=0, max_concurrent=concurrency)
            summary = crawl(
                CrawlOptions(
                    output=Path(out),
                    index_url=f"http://127.0.0.1:{port}/llms.txt",
                    fetch=settings,
                    progress=False,
                )
            )
        crawled = summary.total("fetched")
        crawl_pps = crawled / summary.seconds
        bare_pps = len(urls) / bare_s
        results[f"c{concurrency}"] = {
            "crawler_pages_per_s": round(crawl_pps, 1),
            "bare_aiohttp_pages_per_s": round(bare_pps, 1),
            "overhead_ratio": round(bare_pps / crawl_pps, 2),
            "fetched": crawled,
            "errors": summary.total("errors"),
        }
    if args.json:
        print(json.dumps(results))
    else:
        for key, value in results.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
