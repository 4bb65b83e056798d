"""The MCP clients `atlas setup` knows: where each keeps its user-level config and the shape of the
server entry it expects there."""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from atlas_core.errors import ConfigError

SERVER_NAME = "atlas"


@dataclass(frozen=True, slots=True)
class Client:
    name: str
    title: str
    # json: strict JSON; jsonc: JSON with comments and trailing commas; toml; yaml (a list of
    # servers keyed by "name" instead of an object keyed by server name).
    format: str
    container: str
    locate: Callable[[], Path]
    entry: Callable[[str, list[str]], dict[str, Any]]


def _env_dir(variable: str, default: Path) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else default


def _xdg_config() -> Path:
    """`$XDG_CONFIG_HOME` or `~/.config`, which opencode and Zed use on macOS as well."""
    value = os.environ.get("XDG_CONFIG_HOME")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".config"


def _app_config(app: str) -> Path:
    """%APPDATA%\\app, ~/Library/Application Support/app or $XDG_CONFIG_HOME/app."""
    return platformdirs.user_config_path(app, appauthor=False, roaming=True)


def _claude_code() -> Path:
    return _env_dir("CLAUDE_CONFIG_DIR", Path.home()) / ".claude.json"


def _claude_desktop() -> Path:
    return _app_config("Claude") / "claude_desktop_config.json"


def _cursor() -> Path:
    return Path.home() / ".cursor" / "mcp.json"


def _vscode() -> Path:
    return _app_config("Code") / "User" / "mcp.json"


def _opencode() -> Path:
    folder = _xdg_config() / "opencode"
    if not (folder / "opencode.json").exists() and (folder / "opencode.jsonc").exists():
        return folder / "opencode.jsonc"
    return folder / "opencode.json"


def _zed() -> Path:
    if sys.platform == "win32":
        return _app_config("Zed") / "settings.json"
    return _xdg_config() / "zed" / "settings.json"


def _codex() -> Path:
    return _env_dir("CODEX_HOME", Path.home() / ".codex") / "config.toml"


def _continue() -> Path:
    return _env_dir("CONTINUE_GLOBAL_DIR", Path.home() / ".continue") / "config.yaml"


def _plain(command: str, args: list[str]) -> dict[str, Any]:
    return {"command": command, "args": args}


def _stdio(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "stdio", "command": command, "args": args}


def _opencode_entry(command: str, args: list[str]) -> dict[str, Any]:
    return {"type": "local", "command": [command, *args], "enabled": True}


def _continue_entry(command: str, args: list[str]) -> dict[str, Any]:
    return {"name": SERVER_NAME, "command": command, "args": args}


CLIENTS: tuple[Client, ...] = (
    Client("claude-code", "Claude Code", "json", "mcpServers", _claude_code, _stdio),
    Client("claude-desktop", "Claude Desktop", "json", "mcpServers", _claude_desktop, _plain),
    Client("cursor", "Cursor", "json", "mcpServers", _cursor, _plain),
    Client("vscode", "VS Code", "jsonc", "servers", _vscode, _stdio),
    Client("opencode", "opencode", "jsonc", "mcp", _opencode, _opencode_entry),
    Client("zed", "Zed", "jsonc", "context_servers", _zed, _plain),
    Client("codex", "Codex", "toml", "mcp_servers", _codex, _plain),
    Client("continue", "Continue", "yaml", "mcpServers", _continue, _continue_entry),
)


def find_client(name: str) -> Client:
    for client in CLIENTS:
        if client.name == name:
            return client
    names = [c.name for c in CLIENTS]
    close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
    guess = f"; did you mean {close[0]}?" if close else ""
    raise ConfigError(
        f"unknown client {name!r}{guess}",
        hint=f"known clients: {', '.join(names)}",
    )
