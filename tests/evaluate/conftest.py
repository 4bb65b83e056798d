"""Fixtures of the evaluation tests: the small search bundle, built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.search_fixtures import build_search_bundle


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-written search bundle (tests/search_fixtures.py), built once. Read-only."""
    return build_search_bundle(tmp_path_factory.mktemp("search") / "tiny")
