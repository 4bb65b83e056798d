"""The entry `atlas setup` writes is a working server: started exactly as the client would start it
(the absolute command and its arguments, nothing from PATH), it opens the bundle it was given."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.mcp_client import stdio_client_for, structured
from tests.setup.conftest import ATLAS_MCP, Setup

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="default locations checked: Linux")


def test_the_written_entry_starts_the_server_on_the_bundle(
    home: Path, atlas_setup: Setup, hash_bundle: Path
) -> None:
    done = atlas_setup("claude-desktop", "--bundle", str(hash_bundle))
    assert done.returncode == 0, done.stderr

    config = home / ".config" / "Claude" / "claude_desktop_config.json"
    entry = json.loads(config.read_text())["mcpServers"]["atlas"]
    assert Path(entry["command"]).is_absolute() and entry["command"] == ATLAS_MCP

    with stdio_client_for([entry["command"], *entry["args"]]) as client:
        info = structured(client.call("get_bundle_info", {}))
    assert info["bundles"][0]["path"] == str(hash_bundle)


def test_an_entry_with_a_project_serves_it_beside_the_docs(
    home: Path, atlas_setup: Setup, hash_bundle: Path, tmp_path: Path
) -> None:
    from atlas_core.project.index import index_project, target_of
    from tests.project.conftest import make_repo

    repo = make_repo(tmp_path / "acme-sync")
    refused = atlas_setup("cursor", "--bundle", str(hash_bundle), "--project", str(repo))
    assert refused.returncode == 2 and "has no index yet" in refused.stderr
    assert not (home / ".cursor").exists()  # nothing written

    index_project(target_of(repo), model="hash", progress=False)
    done = atlas_setup("cursor", "--bundle", str(hash_bundle), "--project", str(repo))
    assert done.returncode == 0, done.stderr
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["atlas"]
    assert entry["args"][-2:] == ["--project", str(repo)]
    with stdio_client_for([entry["command"], *entry["args"]]) as client:
        found = structured(client.call("search_code", {"query": "find assets", "scope": "project"}))
    assert found["hits"] and found["hits"][0]["bundle"] == "acme-sync"
