"""`get_release_info` says what changed since the bundle the installed one replaced, through the
MCP SDK client; `atlas diff previous current` names the same two bundles.

Two Teapot releases (tests/changes/fixtures.py) are installed one after the other into an install
root with the install layout's own functions, in the order `atlas download` calls them: the second
install snapshots the first and keeps its folder under releases/.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.distribution.install import (
    BACKUPS,
    RELEASES,
    current_target,
    flip_current,
    prune_releases,
    release_dir,
    snapshot,
)
from tests.changes.fixtures import release_1, release_2
from tests.mcp_client import McpClient, stdio_client_for, structured, wait_for


def install(bundle: Path, root: Path, tag: str) -> None:
    """What `atlas download` does with a release once its archive is unpacked and verified
    (`atlas_core.distribution.download`): its own folder, a snapshot of the bundle it replaces,
    the flip of `current`, old releases pruned."""
    final = release_dir(root, tag)
    shutil.copytree(bundle, final)
    previous = current_target(root)
    if previous is not None:
        snapshot(previous, root / BACKUPS)
    flip_current(root, final)
    prune_releases(root)


@pytest.fixture(scope="module")
def install_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    root = tmp_path_factory.mktemp("installed") / "atlas-data"
    install(release_1(base), root, "v1")
    install(release_2(base), root, "v2")
    # `atlas backup` of the current release afterwards: a snapshot of a bundle that replaced none.
    snapshot((root / "current").resolve(), root / BACKUPS)
    return root


@pytest.fixture(scope="module")
def client(install_root: Path) -> Iterator[McpClient]:
    with stdio_client_for(["atlas-mcp", "--bundle", str(install_root / "current")]) as c:
        yield c


def test_release_info_summarises_the_changes_once_per_load(
    client: McpClient, install_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    current = (install_root / "current").resolve()
    (previous,) = [p for p in (install_root / RELEASES).iterdir() if p != current]

    env = {"ATLAS_DATA_DIR": str(install_root)}
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "diff", "previous", "current"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith(f"old: teapot ({previous}, built ")
    assert out.stdout.splitlines()[1].startswith(f"new: teapot ({current}, built ")
    assert "  + GET /kettles/{kettleId}" in out.stdout.splitlines()

    release = structured(client.call("get_release_info"))
    changes = release["changes"]
    assert changes["since"]["path"] == str(previous)
    assert changes["counts"]["endpoints"] == {"added": 1, "removed": 2, "changed": 0}
    assert "pages" in changes["counts"] and "notes" not in changes
    lines = changes["changes"]
    assert lines[:3] == [
        "+ endpoint GET /kettles/{kettleId}",
        "- endpoint PATCH /pots/{potId}",
        "- endpoint POST /pots/{potId}/pour",
    ]
    assert (
        "~ parameter GET /pots nameMatchMode (query): default: ANYWHERE -> START; enum: +ALL -EXACT"
        in lines
    )
    assert "+ deprecation GET /pots" in lines
    assert changes["total"] == len(lines) == 27 and "more" not in changes
    assert lines[-6:-4] == ["+ page guides/brewing.md", "- page guides/pouring.md"]
    text = client.call("get_release_info").content[0].text
    assert "GET /kettles/{kettleId}" in text

    # Computed once per bundle load: with the earlier release gone the answer is the same.
    shutil.rmtree(previous)
    assert structured(client.call("get_release_info"))["changes"] == changes

    # The next install is a new load: release 1 again, compared with the release 2 it replaces.
    install(release_1(tmp_path_factory.getbasetemp()), install_root, "v3")
    wait_for(lambda: [log for log in client.logs if "loaded bundle" in str(log.data)])
    again = structured(client.call("get_release_info"))["changes"]
    assert again["since"]["path"] == str(current)
    assert again["counts"]["endpoints"] == {"added": 2, "removed": 1, "changed": 0}
    assert again["changes"][0] == "+ endpoint PATCH /pots/{potId}"
