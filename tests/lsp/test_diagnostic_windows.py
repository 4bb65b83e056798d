"""The deprecation scan runs its pattern over windows (so one regex call never holds the GIL
long enough to stall the event loop); the matches must be exactly those of one whole scan."""

from __future__ import annotations

import random
import re

import pytest

from atlas_core.engine.deprecations import DeprecationMatcher, windowed_finditer
from atlas_core.types import Deprecation

TERMS = [
    Deprecation(
        term="GET /legacy/assets/{assetId}",
        replacement="GET /assets/{assetId}",
        file="a.md",
        line=1,
    ),
    Deprecation(term="/old/domains", replacement="/domains", file="a.md", line=2),
    Deprecation(term="Data Dictionary", replacement="Catalog", file="a.md", line=3),
]


def _text(seed: int) -> str:
    rng = random.Random(seed)
    pieces = [
        '"GET /legacy/assets/42"',
        "/old/domains",
        "/old/domainsX",
        "Data Dictionary",
        "GET\n/old/domains",
        "x" * rng.randint(1, 40),
        ",",
        " ",
        "\n",
        "(/legacy/assets/7)",
    ]
    # One long line (minified shape) and many short ones.
    return "".join(rng.choice(pieces) for _ in range(4000))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("window", [1, 16, 97, 8192])
def test_windows_find_what_one_scan_finds(seed: int, window: int) -> None:
    matcher = DeprecationMatcher(TERMS)
    assert matcher.pattern is not None
    text = _text(seed)
    whole = [(m.start(), m.end(), m.group()) for m in matcher.pattern.finditer(text)]
    windowed = [
        (m.start(), m.end(), m.group())
        for m in windowed_finditer(matcher.pattern, text, matcher.max_match, window)
    ]
    assert whole and windowed == whole


def test_a_match_across_a_window_edge_is_found_whole() -> None:
    pattern = re.compile("/old/domains")
    text = "a" * 95 + "/old/domains" + "b" * 200 + "/old/domains"
    found = [(m.start(), m.group()) for m in windowed_finditer(pattern, text, 12, 100)]
    assert found == [(95, "/old/domains"), (307, "/old/domains")]


@pytest.mark.parametrize("seed", [1, 2])
def test_find_reports_what_one_scan_finds_and_skips_texts_without_a_term(seed: int) -> None:
    matcher = DeprecationMatcher(TERMS)
    assert matcher.pattern is not None
    text = _text(seed)
    whole = sorted(m.start() for m in matcher.pattern.finditer(text))
    assert [f.start for f in matcher.find(text, limit=10**6)] == whole
    # No literal of any term ("legacy", "domains", "Data Dictionary"): nothing, without a scan.
    assert matcher.find("x = [" + ",".join(map(str, range(20_000))) + "]") == []
