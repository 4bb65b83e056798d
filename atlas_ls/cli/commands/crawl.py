"""`atlas crawl` and `atlas crawl-validate`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    crawl = sub.add_parser(
        "crawl",
        help="mirror an llms.txt documentation site as local markdown",
        description="Fetch every page an llms.txt index lists into markdown/<section>/ with front "
        "matter and crawl_meta.json; politely (robots.txt, delays, retries) and incrementally.",
    )
    crawl.add_argument("--output", required=True, type=Path, help="mirror directory to write")
    crawl.add_argument("--index-url", default=None, help="the llms.txt index (default: Collibra's)")
    crawl.add_argument("--sections", default="", help="comma-separated section slugs to crawl")
    crawl.add_argument("--max-pages", type=int, default=None, help="stop after N pages")
    crawl.add_argument("--max-concurrent", type=int, default=5, help="parallel requests (5)")
    crawl.add_argument("--delay-min", type=float, default=0.3, help="min pause per request, s")
    crawl.add_argument("--delay-max", type=float, default=1.5, help="max pause per request, s")
    crawl.add_argument("--timeout", type=float, default=30.0, help="per-request timeout, s")
    crawl.add_argument("--retries", type=int, default=4, help="retries for 429/5xx/timeouts")
    crawl.add_argument("--max-page-mb", type=float, default=10.0, help="size cap per page, MiB")
    crawl.add_argument("--user-agent", default=None, help="User-Agent header to send")
    crawl.add_argument("--no-clean", action="store_true", help="keep GitBook syntax as fetched")
    crawl.add_argument(
        "--incremental", action="store_true", help="conditional requests; skip unchanged pages"
    )
    crawl.add_argument(
        "--allow-host", action="append", default=[], help="another host pages may come from"
    )
    crawl.add_argument("--no-progress", action="store_true", help="no progress bar")
    crawl.set_defaults(func=run_crawl)

    validate = sub.add_parser(
        "crawl-validate",
        help="check a crawled mirror: front matter, layout, no GitBook syntax or stray HTML",
        description="Check a crawled mirror. Each finding either affects the bundle built from "
        "the mirror (chunks, identifiers, titles, links) or is cosmetic (the build skips the file "
        "or its cleaning removes the markup). Exits 1 when any finding affects the bundle.",
    )
    validate.add_argument("mirror", type=Path, help="mirror directory (holds markdown/)")
    validate.add_argument(
        "--json", action="store_true", help="print one JSON object: counts per effect, findings"
    )
    validate.set_defaults(func=run_validate)


def run_crawl(args: argparse.Namespace) -> int:
    from atlas_core.crawl import (
        DEFAULT_INDEX_URL,
        DEFAULT_USER_AGENT,
        CrawlOptions,
        FetchSettings,
        crawl,
    )
    from atlas_core.errors import ConfigError

    if args.max_concurrent < 1 or args.delay_min < 0 or args.delay_max < args.delay_min:
        raise ConfigError(
            "need --max-concurrent >= 1 and 0 <= --delay-min <= --delay-max",
            hint="for example --max-concurrent 5 --delay-min 0.3 --delay-max 1.5",
        )
    settings = FetchSettings(
        user_agent=args.user_agent or DEFAULT_USER_AGENT,
        max_concurrent=args.max_concurrent,
        delay_min=args.delay_min,
        delay_max=args.delay_max,
        timeout=args.timeout,
        retries=max(0, args.retries),
        max_bytes=int(args.max_page_mb * 1024 * 1024),
    )
    options = CrawlOptions(
        output=args.output,
        index_url=args.index_url or DEFAULT_INDEX_URL,
        sections=tuple(s.strip() for s in args.sections.split(",") if s.strip()),
        max_pages=args.max_pages,
        clean=not args.no_clean,
        incremental=args.incremental,
        allow_hosts=tuple(args.allow_host),
        fetch=settings,
        progress=not args.no_progress,
    )
    from atlas_ls.cli.outputs import removed_on_failure

    with removed_on_failure(args.output):
        summary = crawl(options)
    print(
        f"crawled {summary.index_url} into {summary.output}: "
        f"{summary.total('found')} found, {summary.total('fetched')} fetched, "
        f"{summary.total('unchanged')} unchanged, {summary.total('skipped')} skipped, "
        f"{summary.total('errors')} errors, {len(summary.removed)} removed "
        f"in {summary.seconds:.1f}s ({summary.pages_per_second:.1f} pages/s)"
    )
    for name, stats in sorted(summary.sections.items()):
        print(
            f"  {name}: {stats.found} found, {stats.fetched} fetched, {stats.unchanged} unchanged, "
            f"{stats.skipped} skipped, {stats.errors} errors"
        )
    for problem in summary.problems:
        print(f"  {problem['kind']}: {problem['url']}: {problem['message']}")
    for rel in summary.removed:
        print(f"  removed: {rel} (no longer in the index)")
    return 0


def run_validate(args: argparse.Namespace) -> int:
    from atlas_core.crawl import BUNDLE, COSMETIC, count_effects, validate_mirror

    if not (args.mirror / "markdown").is_dir():
        from atlas_core.errors import SourceError

        what = "holds no markdown/ folder" if args.mirror.is_dir() else "is no folder"
        raise SourceError(
            f"no crawl mirror at {args.mirror}: it {what}",
            hint="pass the --output folder of `atlas crawl`",
            path=str(args.mirror),
        )
    findings = validate_mirror(args.mirror)
    counts = count_effects(findings)
    status = 1 if counts[BUNDLE] else 0
    if args.json:
        report = {
            "mirror": str(args.mirror),
            "counts": counts,
            "findings": [f.to_json() for f in findings],
        }
        print(json.dumps(report, indent=2))
        return status
    titles = {BUNDLE: "affect the bundle", COSMETIC: "cosmetic (the build is unaffected)"}
    for effect, title in titles.items():
        chosen = [f for f in findings if f.effect == effect]
        if chosen:
            print(f"{len(chosen)} {title}:")
            for finding in chosen:
                print(f"  {finding}")
    if not findings:
        print(f"OK {args.mirror}: mirror is clean")
        return 0
    summary = (
        f"{len(findings)} finding(s) in {args.mirror}: {counts[BUNDLE]} affect the bundle, "
        f"{counts[COSMETIC]} cosmetic"
    )
    print(summary if status else f"OK {args.mirror}: {summary}", file=sys.stderr)
    return status
