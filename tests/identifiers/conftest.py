"""Fixtures of the identifier tests: the fixture pages' extracted entries."""

from __future__ import annotations

import pytest

from atlas_core.identifiers.build import extract
from atlas_core.types import Deprecation, IdentifierEntry
from tests.identifiers.documents import fixture_documents


@pytest.fixture(scope="module")
def extracted() -> tuple[list[IdentifierEntry], list[Deprecation]]:
    """What build-time extraction finds on tests/fixtures/identifiers."""
    return extract(fixture_documents())
