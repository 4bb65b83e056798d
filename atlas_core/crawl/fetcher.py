"""A polite HTTP fetcher: one host, bounded concurrency, jittered delays, robots.txt, retries.

Redirects are followed by hand so that every hop is checked against the allowed hosts and a loop is
caught; bodies are streamed with a size cap so a huge page cannot exhaust memory.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import aiohttp

from atlas_core import __version__

log = logging.getLogger(__name__)

DEFAULT_USER_AGENT = (
    f"Atlas-docs-crawler/{__version__} (offline documentation mirror; respects robots.txt)"
)
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_REDIRECTS = 5


@dataclass(frozen=True, slots=True)
class FetchSettings:
    user_agent: str = DEFAULT_USER_AGENT
    max_concurrent: int = 5
    delay_min: float = 0.3
    delay_max: float = 1.5
    timeout: float = 30.0
    retries: int = 4
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    retry_after_cap: float = 120.0
    max_bytes: int = 10 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class FetchResult:
    url: str  # the URL asked for
    final_url: str  # after redirects
    status: int  # 0 when no HTTP answer came
    body: bytes | None = None
    content_type: str = ""
    charset: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False
    error: str | None = None  # why the page could not be had; None on success
    skipped: bool = False  # refused on purpose (robots, host, size) rather than failed


class Fetcher:
    """Fetches URLs on behalf of one crawl. Use as an async context manager."""

    def __init__(self, settings: FetchSettings, allowed_hosts: set[str]) -> None:
        self.settings = settings
        self.allowed_hosts = {h.lower() for h in allowed_hosts}
        self._semaphore = asyncio.Semaphore(max(1, settings.max_concurrent))
        self._robots: dict[str, RobotFileParser | None] = {}
        self._robots_lock = asyncio.Lock()
        self._session: aiohttp.ClientSession | None = None
        self.requests = 0

    async def __aenter__(self) -> Fetcher:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.settings.timeout)
        connector = aiohttp.TCPConnector(limit=max(1, self.settings.max_concurrent) * 2)
        self._session = aiohttp.ClientSession(
            timeout=timeout,
            connector=connector,
            headers={"User-Agent": self.settings.user_agent},
            auto_decompress=True,
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    # -- public ---------------------------------------------------------------------------------

    async def fetch(
        self, url: str, *, etag: str | None = None, last_modified: str | None = None
    ) -> FetchResult:
        """Fetch one page politely; never raises for network or HTTP trouble."""
        host = (urlsplit(url).hostname or "").lower()
        if host not in self.allowed_hosts:
            return FetchResult(url, url, 0, error=_host_refusal(host), skipped=True)
        if not await self._allowed_by_robots(url):
            return FetchResult(url, url, 0, error="disallowed by robots.txt", skipped=True)
        headers: dict[str, str] = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        async with self._semaphore:
            await self._polite_pause(host)
            return await self._fetch_with_retries(url, headers)

    # -- internals ------------------------------------------------------------------------------

    async def _polite_pause(self, host: str) -> None:
        low, high = self.settings.delay_min, self.settings.delay_max
        robots = self._robots.get(host)
        crawl_delay = robots.crawl_delay(self.settings.user_agent) if robots else None
        pause = random.uniform(low, max(low, high)) if high > 0 else 0.0
        if crawl_delay:
            pause = max(pause, float(crawl_delay))
        if pause > 0:
            await asyncio.sleep(pause)

    async def _fetch_with_retries(self, url: str, headers: dict[str, str]) -> FetchResult:
        attempt = 0
        while True:
            result, retry_after = await self._fetch_once(url, headers)
            retryable = result.status in RETRY_STATUSES or (
                result.status == 0 and not result.skipped and result.error is not None
            )
            if not retryable or attempt >= self.settings.retries:
                if retryable and result.error is None:
                    return _with_error(result, f"HTTP {result.status} after {attempt + 1} tries")
                return result
            attempt += 1
            backoff = min(
                self.settings.backoff_cap, self.settings.backoff_base * 2 ** (attempt - 1)
            )
            wait = backoff * random.uniform(0.8, 1.2)
            if retry_after is not None:
                wait = min(self.settings.retry_after_cap, max(wait, retry_after))
            log.info("retrying %s in %.1fs (%s)", url, wait, result.error or result.status)
            await asyncio.sleep(wait)

    async def _fetch_once(
        self, url: str, headers: dict[str, str]
    ) -> tuple[FetchResult, float | None]:
        assert self._session is not None, "Fetcher used outside 'async with'"
        current = url
        visited: set[str] = set()
        for _hop in range(MAX_REDIRECTS + 1):
            visited.add(current)
            self.requests += 1
            try:
                async with asyncio.timeout(self.settings.timeout):
                    async with self._session.get(
                        current, headers=headers, allow_redirects=False
                    ) as resp:
                        if resp.status in (301, 302, 303, 307, 308):
                            location = resp.headers.get("Location")
                            if not location:
                                return FetchResult(
                                    url, current, resp.status, error="redirect without Location"
                                ), None
                            target = urljoin(current, location)
                            target_host = (urlsplit(target).hostname or "").lower()
                            if target_host not in self.allowed_hosts:
                                return FetchResult(
                                    url,
                                    target,
                                    resp.status,
                                    error=f"redirect to {target}: {_host_refusal(target_host)}",
                                    skipped=True,
                                ), None
                            if target in visited:
                                return FetchResult(
                                    url, target, resp.status, error="redirect loop", skipped=True
                                ), None
                            current = target
                            continue
                        retry_after = _parse_retry_after(resp.headers.get("Retry-After"))
                        if resp.status == 304:
                            return FetchResult(
                                url,
                                current,
                                304,
                                not_modified=True,
                                etag=resp.headers.get("ETag"),
                                last_modified=resp.headers.get("Last-Modified"),
                            ), None
                        if resp.status != 200:
                            error = None if resp.status in RETRY_STATUSES else f"HTTP {resp.status}"
                            return FetchResult(url, current, resp.status, error=error), retry_after
                        declared = resp.content_length
                        if declared is not None and declared > self.settings.max_bytes:
                            return _too_large(url, current, self.settings.max_bytes), None
                        body = bytearray()
                        async for block in resp.content.iter_chunked(64 * 1024):
                            body += block
                            if len(body) > self.settings.max_bytes:
                                return _too_large(url, current, self.settings.max_bytes), None
                        return FetchResult(
                            url,
                            current,
                            200,
                            body=bytes(body),
                            content_type=resp.content_type or "",
                            charset=resp.charset,
                            etag=resp.headers.get("ETag"),
                            last_modified=resp.headers.get("Last-Modified"),
                        ), None
            except TimeoutError:
                return FetchResult(
                    url, current, 0, error=f"timed out after {self.settings.timeout:g}s"
                ), None
            except aiohttp.ClientError as exc:
                return FetchResult(url, current, 0, error=f"connection failed: {exc}"), None
        return FetchResult(url, current, 0, error="too many redirects", skipped=True), None

    async def _allowed_by_robots(self, url: str) -> bool:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        async with self._robots_lock:
            if host not in self._robots:
                robots = await self._load_robots(f"{parts.scheme}://{parts.netloc}")
                if robots is False:
                    return True  # host unreachable: the page fetch itself will say so
                self._robots[host] = robots
        robots = self._robots[host]
        if robots is None:
            return True
        return robots.can_fetch(self.settings.user_agent, url)

    async def _load_robots(self, origin: str) -> RobotFileParser | Literal[False] | None:
        """robots.txt per RFC 9309: 4xx means no rules; 5xx means stay out.

        False when the host did not answer at all (not cached, so a later page retries it).
        """
        result, _ = await self._fetch_once(f"{origin}/robots.txt", {})
        if result.status == 0 and not result.skipped:
            return False
        parser = RobotFileParser()
        if result.status == 200 and result.body is not None:
            parser.parse(result.body.decode("utf-8", errors="replace").splitlines())
            return parser
        if 400 <= result.status < 500:
            return None
        log.warning(
            "robots.txt at %s unavailable (%s): not crawling that host", origin, result.error
        )
        # Every path disallowed, through the parser's public API.
        parser.parse(["User-agent: *", "Disallow: /"])
        return parser


def _host_refusal(host: str) -> str:
    return f"host {host or '?'} is not the index's host (allow it with --allow-host {host})"


def _too_large(url: str, final_url: str, cap: int) -> FetchResult:
    return FetchResult(
        url,
        final_url,
        200,
        error=f"page larger than {cap // (1024 * 1024)} MiB, skipped",
        skipped=True,
    )


def _with_error(result: FetchResult, error: str) -> FetchResult:
    return FetchResult(
        result.url,
        result.final_url,
        result.status,
        body=None,
        content_type=result.content_type,
        error=error,
        skipped=result.skipped,
    )


def _parse_retry_after(value: str | None) -> float | None:
    """Retry-After is either seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
