"""Shared fixtures. Checks that need ../shared skip with a clear message when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.bundles import BundleFactory, start_run

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ATLAS_SHARED", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not (SHARED / "collibra-docs" / "markdown").is_dir():
        pytest.skip(f"../shared is absent ({SHARED}); set ATLAS_SHARED to run this check")
    return SHARED


FIXTURE_CORPUS = ROOT / "tests" / "fixtures" / "corpus"


@pytest.fixture(scope="session")
def fixture_corpus() -> Path:
    """The small corpus the tests write themselves: ``mirror/`` (crawler layout) + ``openapi.yaml``."""
    return FIXTURE_CORPUS


def fixture_sources(corpus: Path = FIXTURE_CORPUS) -> list[str]:
    """The ``--source`` specs the shared bundles are built from."""
    return [f"mirror={corpus / 'mirror'}", f"openapi={corpus / 'openapi.yaml'}"]


@pytest.fixture(scope="session", autouse=True)
def bundle_cache(tmp_path_factory: pytest.TempPathFactory) -> BundleFactory:
    """The run's bundle factory (tests/support/bundles.py): each distinct fixture bundle is built
    once per run, under the basetemp. Autouse, so builders called from any fixture find it."""
    return start_run(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def hash_bundle(bundle_cache: BundleFactory) -> Path:
    """The fixture corpus built with the hash test embedder, once per session. Read-only: copy it
    (``BundleFactory.copy``) before changing anything."""
    return bundle_cache.build(fixture_sources(), name="fixture", model="hash")


@pytest.fixture(scope="session")
def model_bundle(bundle_cache: BundleFactory) -> Path:
    """The fixture corpus built with the default model (real inference; slower). Read-only."""
    return bundle_cache.build(fixture_sources(), name="fixture", model="default")


@pytest.fixture(scope="session")
def team_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A team's own docs bundle (tests/team_bundle.py) to open beside the fixture bundle. Read-only."""
    from tests.team_bundle import build_team_bundle

    return build_team_bundle(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def lsp_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The LSP fixture bundle (tests/lsp_support.py): CLI commands, GraphQL, legacy terms. Read-only."""
    from tests.lsp_support import build_lsp_bundle

    return build_lsp_bundle(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded demo built with the hash test embedder into the session's cache dir, the one
    the tests' isolated environment names (so `atlas_core.demo` finds it there too). Read-only."""
    from atlas_core.demo import ensure_demo_bundle

    base = tmp_path_factory.getbasetemp() / "atlas-home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ATLAS_CACHE_DIR", str(base / "cache"))
        return ensure_demo_bundle(progress=False, model="hash")


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep every test away from the user's real config, data and cache dirs."""
    base = tmp_path_factory.getbasetemp() / "atlas-home"
    monkeypatch.setenv("ATLAS_CONFIG", str(base / "config" / "atlas.toml"))
    monkeypatch.setenv("ATLAS_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(base / "cache"))
    monkeypatch.delenv("ATLAS_BUNDLE", raising=False)
    monkeypatch.delenv("ATLAS_EMBED_BACKEND", raising=False)
