"""Crawler for llms.txt documentation sites: a polite, incremental markdown mirror."""

from __future__ import annotations

from atlas_core.crawl.crawler import CrawlOptions, CrawlSummary, crawl, crawl_async
from atlas_core.crawl.fetcher import FetchSettings
from atlas_core.crawl.validate import Finding, validate_mirror

__all__ = [
    "CrawlOptions",
    "CrawlSummary",
    "FetchSettings",
    "Finding",
    "crawl",
    "crawl_async",
    "validate_mirror",
]
