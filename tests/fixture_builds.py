"""Building a fixture bundle from inside a test session, away from the user's real directories."""

from __future__ import annotations

from pathlib import Path

from tests.support.bundles import bundle_factory


def build_fixture_bundle(sources: list[str], *, name: str, model: str = "hash") -> Path:
    """The bundle of `sources` built with the hash embedder (or `model`) by the run's factory:
    once per run for each distinct recipe, whoever asks. Read-only: copy it before changing it."""
    return bundle_factory().build(sources, name=name, model=model)
