"""Shared fixtures. Checks that need ../shared skip with a clear message when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ATLAS_SHARED", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "collibra-docs" / "markdown").is_dir():
        pytest.skip(f"../shared is absent ({SHARED}); set ATLAS_SHARED to run this check")
    return SHARED


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test away from the user's real config, data and cache dirs."""
    base = tmp_path_factory.getbasetemp() / "atlas-home"
    monkeypatch.setenv("ATLAS_CONFIG", str(base / "config" / "atlas.toml"))
    monkeypatch.setenv("ATLAS_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(base / "cache"))
    monkeypatch.delenv("ATLAS_BUNDLE", raising=False)
    monkeypatch.delenv("ATLAS_EMBED_BACKEND", raising=False)
