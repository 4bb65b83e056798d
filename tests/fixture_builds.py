"""Building a fixture bundle from inside a test session, away from the user's real directories."""

from __future__ import annotations

import os
from pathlib import Path

ATLAS_DIRS = ("ATLAS_CONFIG", "ATLAS_DATA_DIR", "ATLAS_CACHE_DIR")


def build_fixture_bundle(
    sources: list[str], out: Path, home: Path, *, name: str, model: str = "hash"
) -> Path:
    """Build `sources` into `out` with the hash embedder (or `model`), config, data and cache
    under `home`.

    Session-wide builders run outside any test's monkeypatch, so the environment is set and put
    back here."""
    from atlas_core.build import build_bundle

    saved = {key: os.environ.get(key) for key in ATLAS_DIRS}
    os.environ.update(
        ATLAS_CONFIG=str(home / "atlas.toml"),
        ATLAS_DATA_DIR=str(home / "data"),
        ATLAS_CACHE_DIR=str(home / "cache"),
    )
    try:
        build_bundle(sources, out, model=model, progress=False, name=name)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return out
