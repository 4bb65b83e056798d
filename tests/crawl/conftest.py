"""Fixtures of the crawler tests: a docs site served from memory on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.site_server import SiteServer


@pytest.fixture()
def site() -> Iterator[SiteServer]:
    server = SiteServer().start()
    server.add("/robots.txt", "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    yield server
    server.stop()
