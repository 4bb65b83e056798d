"""Fixtures of the distribution tests: two built versions of a bundle, their archives and a
release server on 127.0.0.1. The bundles and archives are built once per session and shared by
every module here (download, install, the release gate, the README path): read-only, copy first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.build import build_bundle
from atlas_core.distribution.archive import pack
from tests.release_server import ReleaseServer


def _docs(root: Path, version: str) -> Path:
    docs = root / f"docs-{version}"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "assets.md").write_text(
        f"# Assets {version}\n\n## Find assets\n\nSearch the catalog for assets ({version}).\n\n"
        "`GET /rest/2.0/assets` returns the assets that match the query.\n"
    )
    (docs / "guide" / "domains.md").write_text(f"# Domains\n\nDomains group assets. {version}\n")
    return docs


@pytest.fixture(scope="session")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("dist-bundles")
    built = {}
    for version in ("v1", "v2"):
        out = root / f"bundle-{version}"
        build_bundle([f"local={_docs(root, version)}"], out, model="hash", progress=False)
        built[version] = out
    return built


@pytest.fixture(scope="session")
def archives(
    bundles: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("dist-archives")
    data = {}
    for version, bundle in bundles.items():
        archive = pack(
            bundle, out / f"atlas-bundle-{version}.tar.zst", top=f"atlas-bundle-{version}"
        )
        data[version] = archive.read_bytes()
    return data


@pytest.fixture()
def server() -> Iterator[ReleaseServer]:
    srv = ReleaseServer().start()
    yield srv
    srv.stop()
