"""Fixtures of the language-server tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def workdir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace folder of the module's own, the root the client opens."""
    return tmp_path_factory.mktemp(f"lsp-{request.module.__name__.rpartition('.')[2]}")
