"""The MCP client configs in editors/ are valid, start the server they name, and the Inspector
(a real client that reads the ``mcpServers`` format) loads the Claude ones as they are."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_client import BIN, stdio_client_for, structured

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "claude-desktop": ROOT / "editors" / "claude-desktop" / "claude_desktop_config.json",
    "claude-code": ROOT / "editors" / "claude-code" / ".mcp.json",
    "opencode": ROOT / "editors" / "opencode" / "opencode.json",
    "zed": ROOT / "editors" / "zed" / "mcp-settings.json",
    "vscode": ROOT / "editors" / "vscode-mcp" / "mcp.json",
}
NPX = shutil.which("npx")


def server_entry(client: str, config: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """(command line, environment) of the `atlas` server, read the way each client reads it."""
    if client in ("claude-desktop", "claude-code"):
        entry = config["mcpServers"]["atlas"]
        return [entry["command"], *entry.get("args", [])], entry.get("env", {})
    if client == "opencode":
        entry = config["mcp"]["atlas"]
        assert entry["type"] == "local" and entry["enabled"] is True
        return list(entry["command"]), entry.get("environment", {})
    if client == "zed":
        entry = config["context_servers"]["atlas"]
        return [entry["command"], *entry.get("args", [])], entry.get("env", {})
    entry = config["servers"]["atlas"]
    assert entry["type"] == "stdio"
    return [entry["command"], *entry.get("args", [])], entry.get("env", {})


@pytest.mark.parametrize("client", sorted(CONFIGS))
def test_config_names_the_atlas_server(client: str) -> None:
    config = json.loads(CONFIGS[client].read_text(encoding="utf-8"))
    command, env = server_entry(client, config)
    assert command[0] == "atlas-mcp" and (BIN / "atlas-mcp").exists()
    assert isinstance(env, dict)
    from atlas_ls.mcp.__main__ import build_parser

    build_parser("atlas-mcp", "all").parse_args(command[1:])  # the flags are real ones


def test_every_config_starts_a_working_server(hash_bundle: Path) -> None:
    commands = set()
    for client, path in CONFIGS.items():
        command, env = server_entry(client, json.loads(path.read_text(encoding="utf-8")))
        commands.add((tuple(command), tuple(sorted(env.items()))))
    for command, env in commands:
        extra = {**dict(env), "ATLAS_BUNDLE": str(hash_bundle)}
        with stdio_client_for(list(command), extra) as client:
            hits = structured(client.call("search_docs", {"query": "find assets", "top_k": 1}))
            assert hits["count"] == 1


# The Inspector per client config (node): .ci/run runs it.
@pytest.mark.stress
@pytest.mark.slow
@pytest.mark.skipif(NPX is None, reason="npx (Node.js) is not installed: no MCP Inspector CLI")
@pytest.mark.parametrize("client", ["claude-desktop", "claude-code"])
def test_inspector_loads_the_config_file(client: str, hash_bundle: Path) -> None:
    assert NPX is not None
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "NO_UPDATE_NOTIFIER": "1",
    }
    done = subprocess.run(
        [
            NPX,
            "-y",
            "@modelcontextprotocol/inspector@2.12.0",
            "--cli",
            "--config",
            str(CONFIGS[client]),
            "--server",
            "atlas",
            "-e",
            f"ATLAS_BUNDLE={hash_bundle}",
            "-e",
            f"ATLAS_CONFIG={os.environ['ATLAS_CONFIG']}",
            "-e",
            f"ATLAS_DATA_DIR={os.environ['ATLAS_DATA_DIR']}",
            "--method",
            "tools/call",
            "--tool-name",
            "get_bundle_info",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["structuredContent"]["bundles"][0]["path"] == str(hash_bundle)
