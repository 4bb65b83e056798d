"""Fixtures of the diff tests: the two Teapot releases, and release 1 built with another model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.changes.fixtures import release_1, release_1_other_model, release_2


@pytest.fixture(scope="session")
def teapot_1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return release_1(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def teapot_2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return release_2(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def teapot_1_hash_128(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return release_1_other_model(tmp_path_factory.getbasetemp())
