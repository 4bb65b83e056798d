"""The project index served beside the docs by a real MCP server: scoped search, "used in your
project" in lookups, the project's files readable, and `atlas index --watch` changing the answer
after a file is edited, without a restart."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp_client import error_text, stdio_client_for, structured, wait_for
from tests.project.conftest import make_repo

BIN = Path(sys.executable).parent
NEW_FUNCTION = '''

def rotate_warehouse_credentials(vault):
    """Swap the warehouse password for a fresh one from the vault."""
    return vault.rotate("warehouse")
'''


def _index(repo: Path) -> dict[str, Any]:
    done = subprocess.run(
        [str(BIN / "atlas"), "index", str(repo), "--model", "hash", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_project_beside_the_docs_over_mcp_and_watch(tmp_path: Path, hash_bundle: Path) -> None:
    repo = make_repo(tmp_path / "acme-sync")
    _index(repo)
    watch = subprocess.Popen(
        [str(BIN / "atlas"), "index", str(repo), "--watch", "--model", "hash", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Started as `atlas index --watch &` from a script is: with SIGINT ignored, which the
        # watch must undo, since SIGINT (Ctrl-C) is how it ends.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    updates: list[dict[str, Any]] = []
    watching = threading.Event()

    def read_stdout() -> None:
        assert watch.stdout is not None
        for line in watch.stdout:
            updates.append(json.loads(line))

    def read_stderr() -> None:
        assert watch.stderr is not None
        for line in watch.stderr:
            if line.startswith("watching "):
                watching.set()

    for reader in (read_stdout, read_stderr):
        threading.Thread(target=reader, daemon=True).start()
    try:
        args = ["atlas-mcp", "--bundle", str(hash_bundle), "--project", str(repo)]
        with stdio_client_for(args) as client:
            query = {"query": "find assets name", "mode": "keyword", "scope": "project"}
            found = structured(client.call("search_code", query))
            assert found["hits"], found
            first = found["hits"][0]
            assert (first["file"], first["bundle"], first["scope"]) == (
                "src/sync.py",
                "acme-sync",
                "project",
            )
            docs = structured(client.call("search_docs", {**query, "scope": "docs"}))
            assert docs["hits"] and {h["scope"] for h in docs["hits"]} == {"docs"}
            with pytest.raises(MCPError, match="scope"):
                client.call("search_docs", {"query": "assets", "scope": "everywhere"})
            # The project's own file is readable where the result points.
            page = structured(
                client.call("read_file", {"path": "src/sync.py", "bundle": "acme-sync"})
            )
            assert "class AssetSync" in page["text"]
            refused = client.call("read_file", {"path": "secrets/token.py", "bundle": "acme-sync"})
            assert "not" in error_text(refused)
            # Lookups answer from the docs and say where the project calls the operation.
            lookup = structured(client.call("lookup_identifier", {"identifier": "findAssets"}))
            used = lookup["candidates"][0]["used_in"]
            assert [(u["file"], u["symbol"]) for u in used] == [
                ("src/sync.py", "AssetSync.find_assets")
            ]
            text = client.call("lookup_identifier", {"identifier": "findAssets"}).content[0].text
            assert f"used in your project at src/sync.py:{used[0]['line']}" in text

            # Edit a file: the watch re-indexes it and the server serves the new answer.
            assert watching.wait(60), "atlas index --watch did not start"
            new = {"query": "rotate warehouse credentials vault", "mode": "keyword"}
            before = structured(client.call("search_code", {**new, "scope": "project"}))
            assert not any("rotate" in h["heading"] for h in before["hits"])
            with (repo / "src" / "sync.py").open("a", encoding="utf-8") as fh:
                fh.write(NEW_FUNCTION)

            def answered() -> list[dict[str, Any]]:
                hits = structured(client.call("search_code", {**new, "scope": "project"}))["hits"]
                return [h for h in hits if h["heading"] == "rotate_warehouse_credentials"]

            (hit,) = wait_for(answered, timeout=60, step=0.2)
            assert hit["file"] == "src/sync.py"
            update = wait_for(lambda: updates, timeout=60)[-1]
            assert 0 < update["embedded"] < update["chunks"]  # only the changed file's chunks
    finally:
        watch.send_signal(signal.SIGINT)
        try:
            watch.wait(30)
        except subprocess.TimeoutExpired:
            watch.kill()
    assert watch.returncode == 0


def test_a_project_without_an_index_stops_the_server_with_a_hint(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "fresh")
    done = subprocess.run(
        [str(BIN / "atlas-mcp"), "--project", str(repo)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "has no index yet" in done.stderr and "atlas index" in done.stderr
    assert "Traceback" not in done.stderr
