"""Fixtures of the identifier tests: the fixture pages' extracted entries, and small bundles of
the mention-index pages (`tests.identifiers.mention_pages`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from atlas_core.identifiers.extract.documents import extract
from atlas_core.types import Deprecation, IdentifierEntry
from tests.identifiers.documents import fixture_documents
from tests.identifiers.mention_pages import PAGES, SPEC, build_pages


@pytest.fixture(scope="module")
def extracted() -> tuple[list[IdentifierEntry], list[Deprecation]]:
    """What build-time extraction finds on tests/fixtures/identifiers."""
    return extract(fixture_documents())


@pytest.fixture(scope="session")
def widget_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mention-index pages and spec (`tests.identifiers.mention_pages`) built with the hash
    embedder, once per session. Read-only: copy it before changing anything."""
    return build_pages(tmp_path_factory.mktemp("widgets"), PAGES, spec=SPEC)


@pytest.fixture(scope="session")
def page_bundle(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str, Mapping[str, str]], Path]:
    """Build a bundle of the given pages, once per name in the session."""
    built: dict[str, Path] = {}

    def build(name: str, pages: Mapping[str, str]) -> Path:
        if name not in built:
            built[name] = build_pages(tmp_path_factory.mktemp(name), pages)
        return built[name]

    return build
