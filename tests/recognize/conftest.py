"""Fixtures of the recognition tests: an engine over the small client-code spec bundle."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from tests.calls_bundle import build_calls_bundle


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The engine over tests/calls_bundle.py's bundle (a small spec and a client page)."""
    with Engine.open(build_calls_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened
