"""Turning an llms.txt docs site into a local markdown mirror, politely and incrementally.

Layout written (the `mirror` source of the build reads it):

    <output>/markdown/<section>/<url path>.md   front matter + cleaned markdown
    <output>/crawl_meta.json                    what was crawled, when, and per-section counts

A page that fails keeps its last good copy; one bad page never stops the crawl.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from atlas_core.crawl.fetcher import Fetcher, FetchResult, FetchSettings
from atlas_core.crawl.llms_txt import IndexLink, mirror_relpath, parse_index
from atlas_core.errors import CrawlError, NetworkError
from atlas_core.markdown import split_front_matter

log = logging.getLogger(__name__)

DEFAULT_INDEX_URL = "https://developer.collibra.com/llms.txt"
MAX_INDEX_DEPTH = 3
MAX_ERRORS_KEPT = 1000
META_FILE = "crawl_meta.json"


@dataclass(slots=True)
class SectionStats:
    found: int = 0
    fetched: int = 0
    unchanged: int = 0
    skipped: int = 0
    errors: int = 0
    cleaned_bytes: int = 0


@dataclass(slots=True)
class CrawlSummary:
    output: Path
    index_url: str
    sections: dict[str, SectionStats] = field(default_factory=dict)
    problems: list[dict[str, str]] = field(default_factory=list)  # skipped and failed pages
    removed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    requests: int = 0

    def total(self, name: str) -> int:
        return sum(getattr(s, name) for s in self.sections.values())

    @property
    def pages_per_second(self) -> float:
        done = self.total("fetched") + self.total("unchanged")
        return done / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True, slots=True)
class CrawlOptions:
    output: Path
    index_url: str = DEFAULT_INDEX_URL
    sections: tuple[str, ...] = ()
    max_pages: int | None = None
    clean: bool = True
    incremental: bool = False
    allow_hosts: tuple[str, ...] = ()
    fetch: FetchSettings = field(default_factory=FetchSettings)
    progress: bool = True


def crawl(options: CrawlOptions) -> CrawlSummary:
    """Run a crawl to completion (synchronous entry point for the CLI)."""
    return asyncio.run(crawl_async(options))


async def crawl_async(options: CrawlOptions) -> CrawlSummary:
    index_parts = urlsplit(options.index_url)
    if index_parts.scheme not in ("http", "https") or not index_parts.hostname:
        raise CrawlError(
            f"index URL {options.index_url!r} is not an http(s) URL",
            hint="pass --index-url https://host/llms.txt",
        )
    index_host = index_parts.hostname.lower()
    markdown_root = _prepare_output(options.output)
    started = time.monotonic()
    started_at = _now()
    summary = CrawlSummary(output=options.output, index_url=options.index_url)
    allowed = {index_host, *(h.lower() for h in options.allow_hosts)}

    async with Fetcher(options.fetch, allowed) as fetcher:
        links = await _read_index(fetcher, options.index_url, summary)
        if options.sections:
            wanted = set(options.sections)
            links = [link for link in links if link.section in wanted]
            if not links:
                raise CrawlError(
                    f"no pages in sections {', '.join(options.sections)}",
                    hint="list the index's sections by crawling without --sections once",
                )
        limited = options.max_pages is not None and len(links) > options.max_pages
        if options.max_pages is not None:
            links = links[: max(0, options.max_pages)]
        for link in links:
            summary.sections.setdefault(link.section, SectionStats()).found += 1

        existing = _read_existing(markdown_root) if options.incremental else {}
        expected: set[str] = set()
        targets: list[tuple[IndexLink, str]] = []
        for link in links:
            rel = f"{link.section}/{mirror_relpath(link.url, index_host)}"
            if rel in expected:
                continue  # two URLs that map to one file: keep the first
            expected.add(rel)
            targets.append((link, rel))

        bar = _progress_bar(len(targets), options.progress)
        queue: asyncio.Queue[tuple[IndexLink, str]] = asyncio.Queue()
        for target in targets:
            queue.put_nowait(target)
        cleaner = _cleaner(options.clean)

        async def worker() -> None:
            while True:
                try:
                    link, rel = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                try:
                    await _crawl_page(
                        fetcher, link, rel, markdown_root, existing.get(rel), cleaner, summary
                    )
                except OSError as exc:  # a disk problem for one page is reported, not fatal
                    _problem(summary, link, f"could not write: {exc}", error=True)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(errors=summary.total("errors"), refresh=False)

        workers = max(1, options.fetch.max_concurrent)
        await asyncio.gather(*(worker() for _ in range(workers)))
        if bar is not None:
            bar.close()
        summary.requests = fetcher.requests

    if not limited:
        crawled_sections = {link.section for link in links}
        summary.removed = _remove_stale(markdown_root, crawled_sections, expected)
    summary.seconds = time.monotonic() - started
    _write_meta(options, summary, started_at)
    return summary


# -- index ---------------------------------------------------------------------------------------


async def _read_index(fetcher: Fetcher, index_url: str, summary: CrawlSummary) -> list[IndexLink]:
    result = await fetcher.fetch(index_url)
    if result.status == 0 and not result.skipped:
        raise NetworkError(
            f"could not fetch the index {index_url}: {result.error or 'no answer'}",
            hint="check your network connection and the URL (--index-url); nothing was crawled",
        )
    if result.error or result.body is None:
        raise CrawlError(
            f"could not fetch the index {index_url}: {result.error or f'HTTP {result.status}'}",
            hint="check the URL and your network, or pass another --index-url",
        )
    links = parse_index(_decode(result)[0], result.final_url)
    pages: list[IndexLink] = []
    seen_indexes = {index_url}
    pending = [(link, 1) for link in links]
    while pending:
        link, depth = pending.pop(0)
        if not link.nested:
            pages.append(link)
            continue
        if link.url in seen_indexes or depth > MAX_INDEX_DEPTH:
            continue
        seen_indexes.add(link.url)
        nested = await fetcher.fetch(link.url)
        if nested.error or nested.body is None:
            _problem(summary, link, f"nested index: {nested.error or nested.status}", error=True)
            continue
        children = parse_index(_decode(nested)[0], nested.final_url, default_section=link.section)
        pending.extend((child, depth + 1) for child in children)
    unique: dict[str, IndexLink] = {}
    for page in pages:
        unique.setdefault(page.url, page)
    return list(unique.values())


# -- pages ---------------------------------------------------------------------------------------


async def _crawl_page(
    fetcher: Fetcher,
    link: IndexLink,
    rel: str,
    markdown_root: Path,
    previous: dict[str, Any] | None,
    cleaner: Callable[[str], str] | None,
    summary: CrawlSummary,
) -> None:
    stats = summary.sections[link.section]
    dest = (markdown_root / rel).resolve()
    if not dest.is_relative_to(markdown_root.resolve()):
        _problem(summary, link, "path escapes the mirror; skipped", error=False)
        return
    previous = previous or {}
    result = await fetcher.fetch(
        link.url, etag=previous.get("etag"), last_modified=previous.get("last_modified")
    )
    if result.not_modified and dest.is_file():
        stats.unchanged += 1
        return
    if result.error or result.body is None:
        _problem(summary, link, result.error or f"HTTP {result.status}", error=not result.skipped)
        return
    if _looks_like_html(result):
        _problem(summary, link, "served HTML where markdown was expected; skipped", error=False)
        return
    digest = hashlib.sha256(result.body).hexdigest()
    if previous.get("sha256") == digest and dest.is_file():
        stats.unchanged += 1
        return
    text, note = _decode(result)
    own_meta, body = split_front_matter(text, strict=False)
    cleaned = cleaner(body) if cleaner else body
    stats.cleaned_bytes += max(0, len(body.encode()) - len(cleaned.encode()))
    meta: dict[str, Any] = {
        "title": str(own_meta.get("title") or link.title or _first_heading(cleaned) or rel),
        "source_url": link.url,
        "fetched_at": _now(),
    }
    if own_meta.get("description"):
        meta["description"] = str(own_meta["description"])
    if result.etag:
        meta["etag"] = result.etag
    if result.last_modified:
        meta["last_modified"] = result.last_modified
    meta["sha256"] = digest
    if note:
        meta["encoding_note"] = note
    _atomic_write(dest, render_page(meta, cleaned))
    stats.fetched += 1


def render_page(meta: dict[str, Any], body: str) -> str:
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{header}---\n\n{body.strip()}\n"


def _decode(result: FetchResult) -> tuple[str, str | None]:
    """Text of a body: the declared charset, else UTF-8, else Windows-1252 with a note."""
    assert result.body is not None
    if result.charset:
        try:
            return result.body.decode(result.charset), None
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return result.body.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        note = f"not UTF-8 (byte {exc.start}); decoded as windows-1252"
        return result.body.decode("cp1252", errors="replace"), note


def _looks_like_html(result: FetchResult) -> bool:
    assert result.body is not None
    head = result.body[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return True
    return result.content_type in ("text/html", "application/xhtml+xml") and head.startswith(b"<")


def _first_heading(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _problem(summary: CrawlSummary, link: IndexLink, message: str, *, error: bool) -> None:
    stats = summary.sections.setdefault(link.section, SectionStats())
    if error:
        stats.errors += 1
    else:
        stats.skipped += 1
    if len(summary.problems) < MAX_ERRORS_KEPT:
        summary.problems.append(
            {
                "url": link.url,
                "section": link.section,
                "kind": "error" if error else "skipped",
                "message": message,
            }
        )
    log.info("%s: %s", link.url, message)


# -- files ---------------------------------------------------------------------------------------


def _prepare_output(output: Path) -> Path:
    markdown_root = output / "markdown"
    try:
        markdown_root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=output, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise CrawlError(
            f"cannot write to {output}: {exc.strerror or exc}",
            hint="choose a writable --output directory",
            path=str(output),
        ) from exc
    return markdown_root


def _read_existing(markdown_root: Path) -> dict[str, dict[str, Any]]:
    """Front matter of every page already in the mirror, keyed by its path under markdown/."""
    found: dict[str, dict[str, Any]] = {}
    for path in markdown_root.rglob("*.md"):
        try:
            with path.open(encoding="utf-8") as fh:
                head = fh.read(4096)
        except (OSError, UnicodeDecodeError):
            continue
        meta, _ = split_front_matter(head, strict=False)
        found[path.relative_to(markdown_root).as_posix()] = {
            k: str(v) for k, v in meta.items() if k in ("etag", "last_modified", "sha256")
        }
    return found


def _remove_stale(markdown_root: Path, sections: set[str], expected: set[str]) -> list[str]:
    """Delete pages of the crawled sections that the index no longer lists."""
    removed: list[str] = []
    for section in sorted(sections):
        folder = markdown_root / section
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            rel = path.relative_to(markdown_root).as_posix()
            if rel not in expected:
                path.unlink()
                removed.append(rel)
        for sub in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
            if sub.is_dir() and not any(sub.iterdir()):
                sub.rmdir()
    return removed


def _atomic_write(dest: Path, text: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".tmp-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_meta(options: CrawlOptions, summary: CrawlSummary, started_at: str) -> None:
    meta = {
        "format": 1,
        "source_url": options.index_url,
        "user_agent": options.fetch.user_agent,
        "started_at": started_at,
        "finished_at": _now(),
        "duration_s": round(summary.seconds, 3),
        "incremental": options.incremental,
        "cleaned": options.clean,
        "sections": {name: asdict(stats) for name, stats in sorted(summary.sections.items())},
        "totals": {
            name: summary.total(name)
            for name in ("found", "fetched", "unchanged", "skipped", "errors", "cleaned_bytes")
        },
        "problems": summary.problems,
        "removed": summary.removed,
    }
    path = options.output / META_FILE
    fd, tmp = tempfile.mkstemp(dir=options.output, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2)
        fh.write("\n")
    os.replace(tmp, path)


def _cleaner(enabled: bool) -> Callable[[str], str] | None:
    if not enabled:
        return None
    from atlas_core.markdown import clean_gitbook as clean

    return clean


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from atlas_core.console import progress_bar

    return progress_bar(total, "crawl", "page")


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
