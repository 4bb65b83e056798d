"""Crawler for llms.txt documentation sites: a polite, incremental markdown mirror.

`validate_mirror` checks a mirror; each `Finding` has an effect, `BUNDLE` (it changes what a build
makes of the mirror) or `COSMETIC` (it does not), and `count_effects` tallies them."""

from __future__ import annotations

from atlas_core.crawl.crawler import (
    DEFAULT_INDEX_URL,
    CrawlOptions,
    CrawlSummary,
    crawl,
    crawl_async,
)
from atlas_core.crawl.fetcher import DEFAULT_USER_AGENT, FetchSettings
from atlas_core.crawl.validate import BUNDLE, COSMETIC, Finding, count_effects, validate_mirror

__all__ = [
    "BUNDLE",
    "COSMETIC",
    "DEFAULT_INDEX_URL",
    "DEFAULT_USER_AGENT",
    "CrawlOptions",
    "CrawlSummary",
    "FetchSettings",
    "Finding",
    "count_effects",
    "crawl",
    "crawl_async",
    "validate_mirror",
]
