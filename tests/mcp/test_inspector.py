"""The MCP Inspector CLI (npm, pinned) as a second, independent client: tools/list for each console
script over stdio, and one tools/call of every tool over streamable HTTP."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_client import BIN, HttpServer

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
NPX = shutil.which("npx")

# The Inspector (node) over stdio and HTTP takes 16 s: .ci/run runs it, the quick command does not.
pytestmark = [
    pytest.mark.skipif(NPX is None, reason="npx (Node.js) is not installed: no MCP Inspector CLI"),
    pytest.mark.slow,
    pytest.mark.stress,
]

RAG = {
    "search_docs",
    "search_code",
    "lookup_identifier",
    "check_api_call",
    "check_code",
    "get_chunk",
    "get_bundle_info",
}
FS = {"list_publications", "list_files", "read_file", "search_text", "get_release_info"}


def inspector(*args: str) -> tuple[int, Any, str]:
    """Run the Inspector CLI; (exit code, parsed stdout JSON or None, stderr)."""
    assert NPX is not None
    done = subprocess.run(
        [NPX, "-y", INSPECTOR, "--cli", *args],
        capture_output=True,
        text=True,
        timeout=240,  # the first run downloads the package from npm
        env={
            **os.environ,
            "NO_UPDATE_NOTIFIER": "1",
            "npm_config_fund": "false",
            "npm_config_prefer_offline": "true",  # the pinned version, once cached, is reused
        },
    )
    try:
        parsed = json.loads(done.stdout)
    except ValueError:
        parsed = None
    return done.returncode, parsed, done.stderr


def isolation_env() -> list[str]:
    """The test's isolated dirs, passed on: the Inspector starts stdio servers with a bare env."""
    pairs = []
    for key in ("ATLAS_CONFIG", "ATLAS_DATA_DIR", "ATLAS_CACHE_DIR"):
        pairs += ["-e", f"{key}={os.environ[key]}"]
    return pairs


@pytest.mark.parametrize(
    ("script", "expected"), [("atlas-mcp", RAG | FS), ("collibra-fs", FS), ("collibra-rag", RAG)]
)
def test_tools_list_over_stdio(hash_bundle: Path, script: str, expected: set[str]) -> None:
    code, out, err = inspector(
        *isolation_env(), str(BIN / script), "--bundle", str(hash_bundle), "--method", "tools/list"
    )
    assert code == 0, err
    assert {tool["name"] for tool in out["tools"]} == expected
    for tool in out["tools"]:
        assert tool["annotations"]["readOnlyHint"] is True and tool["outputSchema"]
    # What every agent session pays before its first question (test_agent_surface.py).
    assert len(json.dumps(out, separators=(",", ":"), ensure_ascii=False)) <= 8_000


@pytest.fixture(scope="module")
def url(hash_bundle: Path) -> Iterator[str]:
    with HttpServer(["--bundle", str(hash_bundle)]) as server:
        yield server.url


CALLS: list[tuple[str, list[str], str]] = [
    ("search_docs", ["query=find assets", "mode=keyword", "top_k=2"], "hits"),
    ("search_code", ["query=groovy script"], "hits"),
    ("lookup_identifier", ["identifier=findAssets"], "candidates"),
    ("check_api_call", ["method=GET", "path=/assets"], "endpoint"),
    ("get_chunk", ["chunk_id=CHUNK"], "text"),
    ("get_bundle_info", [], "bundles"),
    ("list_publications", [], "publications"),
    ("list_files", ["publication=rest-core"], "files"),
    ("read_file", ["path=rest-core/assets-api.md", "max_lines=3"], "text"),
    ("search_text", ["pattern=nameMatchMode"], "matches"),
    ("get_release_info", [], "sources"),
]


@pytest.fixture(scope="module")
def answers(url: str, hash_bundle: Path) -> dict[str, tuple[int, Any, str]]:
    """Every Inspector call at once: each is a separate Node process, mostly start-up time."""
    from atlas_core.engine import Engine

    with Engine.open(hash_bundle) as engine:
        chunk = engine.search("assets", mode="keyword", top_k=1)[0].chunk_id

    def call(tool: str, args: list[str]) -> tuple[int, Any, str]:
        args = [a.replace("CHUNK", chunk) for a in args]
        tool_args = ["--tool-arg", *args] if args else []
        return inspector(url, "--method", "tools/call", "--tool-name", tool, *tool_args)

    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {tool: pool.submit(call, tool, args) for tool, args, _ in CALLS}
        return {tool: future.result() for tool, future in futures.items()}


@pytest.mark.parametrize(("tool", "key"), [(c[0], c[2]) for c in CALLS], ids=[c[0] for c in CALLS])
def test_each_tool_over_http(answers: dict[str, tuple[int, Any, str]], tool: str, key: str) -> None:
    code, out, err = answers[tool]
    assert code == 0, err
    assert out["isError"] is False
    assert out["structuredContent"][key]
    assert out["content"][0]["type"] == "text" and out["content"][0]["text"]


def test_a_tool_error_is_reported_as_one(url: str) -> None:
    code, out, _ = inspector(
        url,
        "--method",
        "tools/call",
        "--tool-name",
        "read_file",
        "--tool-arg",
        "path=../../etc/passwd",
    )
    assert code != 0
    assert out is None or out.get("isError") is True
