"""One test per client: its default config location under HOME, the entry in the client's own
format, and every other entry, key and comment of an existing file kept."""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from atlas_ls.cli.clients import CLIENTS
from atlas_ls.cli.clients.jsonc import parse
from atlas_ls.cli.commands.setup import CLIENT_NAMES
from tests.setup.conftest import ATLAS_MCP, Setup

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="default locations checked: Linux")


def _json(text: str) -> Any:
    return json.loads(text)


def _jsonc(text: str) -> Any:
    return parse(text, comments=True).value


@dataclass(frozen=True)
class Case:
    client: str
    path: str  # under HOME
    existing: str
    read: Callable[[str], Any]
    atlas: Callable[[Any], Any]  # the atlas entry in the parsed file
    others: Callable[[Any], Any]  # what must survive: other servers and settings


CASES = [
    Case(
        "claude-code",
        ".claude.json",
        '{\n  "numStartups": 7,\n  "mcpServers": {\n    "git": {"type": "stdio", "command": "git-mcp", "args": []}\n  },\n  "projects": {"/w": {"mcpServers": {}}}\n}\n',
        _json,
        lambda d: d["mcpServers"]["atlas"],
        lambda d: (d["numStartups"], d["mcpServers"]["git"], d["projects"]),
    ),
    Case(
        "claude-desktop",
        ".config/Claude/claude_desktop_config.json",
        '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs"]}}, "globalShortcut": "Ctrl+Space"}',
        _json,
        lambda d: d["mcpServers"]["atlas"],
        lambda d: (d["mcpServers"]["fs"], d["globalShortcut"]),
    ),
    Case(
        "cursor",
        ".cursor/mcp.json",
        '{\n\t"mcpServers": {\n\t\t"web": {"url": "https://example.invalid/mcp"}\n\t}\n}\n',
        _json,
        lambda d: d["mcpServers"]["atlas"],
        lambda d: d["mcpServers"]["web"],
    ),
    Case(
        "vscode",
        ".config/Code/User/mcp.json",
        '{\n  // servers of this profile\n  "servers": {\n    "memory": {"command": "npx", "args": ["memory"]}, // keep me\n  },\n  "inputs": [],\n}\n',
        _jsonc,
        lambda d: d["servers"]["atlas"],
        lambda d: (d["servers"]["memory"], d["inputs"]),
    ),
    Case(
        "opencode",
        ".config/opencode/opencode.json",
        '{\n  "$schema": "https://opencode.ai/config.json",\n  /* the theme */\n  "theme": "opencode"\n}\n',
        _jsonc,
        lambda d: d["mcp"]["atlas"],
        lambda d: (d["$schema"], d["theme"]),
    ),
    Case(
        "zed",
        ".config/zed/settings.json",
        '// Zed settings\n{\n  "theme": "One Dark", // my theme\n  "context_servers": {}\n}\n',
        _jsonc,
        lambda d: d["context_servers"]["atlas"],
        lambda d: d["theme"],
    ),
    Case(
        "codex",
        ".codex/config.toml",
        '# Codex\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n\n[profiles.fast]\nmodel = "o4-mini"  # quick\n',
        lambda t: tomllib.loads(t),
        lambda d: d["mcp_servers"]["atlas"],
        lambda d: (d["model"], d["mcp_servers"]["docs"], d["profiles"]),
    ),
    Case(
        "continue",
        ".continue/config.yaml",
        "name: Local\nversion: 1.0.0\nschema: v1\n# my servers\nmcpServers:\n  - name: sqlite  # the db\n    command: npx\n    args: [mcp-sqlite]\nmodels: []\n",
        lambda t: yaml.safe_load(t),
        lambda d: next(s for s in d["mcpServers"] if s["name"] == "atlas"),
        lambda d: ([s for s in d["mcpServers"] if s["name"] != "atlas"], d["models"], d["name"]),
    ),
]


def expected_entry(client: str, bundle: Path) -> dict[str, Any]:
    args = ["--bundle", str(bundle)]
    if client == "opencode":
        return {"type": "local", "command": [ATLAS_MCP, *args], "enabled": True}
    entry: dict[str, Any] = {"command": ATLAS_MCP, "args": args}
    if client in ("claude-code", "vscode"):
        entry = {"type": "stdio", **entry}
    if client == "continue":
        entry = {"name": "atlas", **entry}
    return entry


def is_subsequence(old: str, new: str) -> bool:
    chars = iter(new)
    return all(char in chars for char in old)


def test_every_client_has_a_case() -> None:
    assert [c.client for c in CASES] == [c.name for c in CLIENTS] == list(CLIENT_NAMES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.client)
def test_setup_merges_the_entry_into_an_existing_config(
    case: Case, home: Path, atlas_setup: Setup
) -> None:
    config = home / case.path
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(case.existing)
    bundle = home / "work" / "bundle"
    bundle.mkdir(parents=True)

    # A relative path on the command line becomes an absolute path in the entry.
    done = atlas_setup(case.client, "--bundle", "work/bundle")

    assert done.returncode == 0, done.stderr
    written = config.read_text()
    assert case.atlas(case.read(written)) == expected_entry(case.client, bundle)
    assert case.others(case.read(written)) == case.others(case.read(case.existing))
    # Edited in place: nothing of the old file (comments, spacing, order) was taken away.
    assert is_subsequence(case.existing, written)
    assert str(config) in done.stdout


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.client)
def test_setup_creates_a_missing_config(case: Case, home: Path, atlas_setup: Setup) -> None:
    done = atlas_setup(case.client)

    assert done.returncode == 0, done.stderr
    config = home / case.path
    entry = case.atlas(case.read(config.read_text()))
    if case.client == "opencode":
        assert entry["command"] == [ATLAS_MCP]
    else:
        assert (entry["command"], entry["args"]) == (ATLAS_MCP, [])
    assert "created" in done.stdout
    assert list(config.parent.glob("*.bak")) == []
