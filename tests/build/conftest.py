"""Fixtures of the build tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas_core.sources import SourceSet, load_sources

SOURCE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sources"


@pytest.fixture(scope="module")
def kettle() -> SourceSet:
    """The fixture OpenAPI spec (a kettle's API) loaded as a source."""
    return load_sources([f"openapi={SOURCE_FIXTURES / 'kettle-api.yaml'}"])
