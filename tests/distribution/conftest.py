"""Fixtures of the distribution tests: two built versions of a bundle, their archives and a
release server on 127.0.0.1. The bundles and archives are built once per session and shared by
every module here (download, install, the release gate, the README path): read-only, copy first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.distribution.archive import pack
from tests.release_server import ReleaseServer
from tests.support.bundles import BundleFactory


def _pages(version: str) -> dict[str, str]:
    return {
        "guide/assets.md": f"# Assets {version}\n\n## Find assets\n\nSearch the catalog for assets "
        f"({version}).\n\n`GET /rest/2.0/assets` returns the assets that match the query.\n",
        "guide/domains.md": f"# Domains\n\nDomains group assets. {version}\n",
    }


@pytest.fixture(scope="session")
def bundles(bundle_cache: BundleFactory) -> dict[str, Path]:
    """Both versions, from the run's bundle factory. Read-only."""
    return {v: bundle_cache.build_pages(_pages(v), name=f"bundle-{v}") for v in ("v1", "v2")}


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
