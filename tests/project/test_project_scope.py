"""scope="project" with no project indexed says so and how to index one (MCP and CLI), and
`atlas search --scope` searches the docs, the working directory's indexed project, or both."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.mcp_client import error_text, stdio_client_for, structured
from tests.project.conftest import make_repo

BIN = Path(sys.executable).parent


def _atlas(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "atlas"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "ATLAS_PROJECT": ""},
        check=False,
    )


def test_mcp_search_in_project_scope_without_a_project_says_how_to_index_one(
    tmp_path: Path, hash_bundle: Path
) -> None:
    with stdio_client_for(["atlas-mcp", "--bundle", str(hash_bundle)]) as client:
        for tool in ("search_code", "search_docs"):
            answer = client.call(tool, {"query": "find assets", "scope": "project"})
            assert answer.is_error, tool
            text = error_text(answer)
            assert "no project is indexed" in text and "atlas index PATH" in text
            assert "--project PATH" in text
        # The docs still answer.
        docs = structured(client.call("search_docs", {"query": "assets", "scope": "all"}))
        assert docs["hits"]


def test_cli_search_scopes(tmp_path: Path, hash_bundle: Path) -> None:
    repo = make_repo(tmp_path / "acme-sync")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    none = _atlas(
        "search", "find assets", "--bundle", str(hash_bundle), "--scope", "project", cwd=elsewhere
    )
    assert none.returncode == 2 and not none.stdout
    assert "no project is indexed" in none.stderr and "atlas index PATH" in none.stderr
    assert "Traceback" not in none.stderr

    indexed = _atlas("index", str(repo), "--model", "hash", "--quiet", cwd=elsewhere)
    assert indexed.returncode == 0, indexed.stderr
    base = ["search", "find_assets", "--bundle", str(hash_bundle), "--mode", "keyword", "--json"]
    scoped = {
        scope: json.loads(_atlas(*base, "--scope", scope, cwd=repo / "src").stdout)
        for scope in ("project", "docs", "all")
    }
    assert scoped["project"] and {h.get("bundle") for h in scoped["project"]} == {"acme-sync"}
    assert scoped["project"][0]["file"] == "src/sync.py"
    assert all(h.get("bundle") != "acme-sync" for h in scoped["docs"])
    assert {h.get("bundle") for h in scoped["all"]} >= {"acme-sync"}


def test_mcp_serves_a_project_whose_vectors_are_still_filling(
    tmp_path: Path, hash_bundle: Path
) -> None:
    from atlas_core.build import build_bundle
    from atlas_core.project.index import target_of

    repo = make_repo(tmp_path / "acme-sync")
    target = target_of(repo)
    target.bundle.parent.mkdir(parents=True, exist_ok=True)
    build_bundle(
        [f"code={repo}"],
        target.bundle,
        model="hash",
        progress=False,
        name=target.name,
        ranking=False,
        vectors_pending=True,  # what `atlas index` serves between its two passes
    )
    args = ["atlas-mcp", "--bundle", str(hash_bundle), "--project", str(repo)]
    with stdio_client_for(args) as client:
        query = {"query": "find assets name", "scope": "project"}
        found = structured(client.call("search_code", query))  # hybrid, the default
        assert found["hits"] and found["hits"][0]["file"] == "src/sync.py"
        assert "vectors are still being computed" in found["note"]
