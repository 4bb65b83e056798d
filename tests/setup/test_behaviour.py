"""Idempotence, the backup, the dry-run diff, `--list`, the atomic write and a symlinked config."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.setup.conftest import ATLAS_MCP, Setup, files_under

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="default locations checked: Linux")

CURSOR = ".cursor/mcp.json"
ORIGINAL = '{\n  "mcpServers": {\n    "web": {"url": "https://example.invalid/mcp"}\n  }\n}\n'


@pytest.fixture
def cursor_config(home: Path) -> Path:
    config = home / CURSOR
    config.parent.mkdir(parents=True)
    config.write_text(ORIGINAL)
    return config


def test_a_second_run_changes_nothing_and_makes_no_backup(
    cursor_config: Path, atlas_setup: Setup
) -> None:
    assert atlas_setup("cursor").returncode == 0
    after_first = cursor_config.read_bytes()
    backups = sorted(cursor_config.parent.glob("mcp.json.*.bak"))
    assert len(backups) == 1

    again = atlas_setup("cursor")

    assert again.returncode == 0, again.stderr
    assert "nothing changed" in again.stdout
    assert cursor_config.read_bytes() == after_first
    assert sorted(cursor_config.parent.glob("mcp.json.*.bak")) == backups


def test_the_backup_holds_the_previous_file_beside_it(
    cursor_config: Path, atlas_setup: Setup
) -> None:
    done = atlas_setup("cursor")

    assert done.returncode == 0, done.stderr
    [backup] = cursor_config.parent.glob("*.bak")
    assert re.fullmatch(r"mcp\.json\.\d{8}-\d{6}\.bak", backup.name)
    assert backup.read_text() == ORIGINAL
    assert str(backup) in done.stdout
    # Written through a temporary file renamed into place: nothing else is left in the folder.
    assert sorted(p.name for p in cursor_config.parent.iterdir()) == sorted(
        ["mcp.json", backup.name]
    )


def test_a_changed_bundle_updates_the_entry_and_keeps_the_users_own_keys(
    home: Path, atlas_setup: Setup
) -> None:
    config = home / CURSOR
    config.parent.mkdir(parents=True)
    old = {"command": "/old/atlas-mcp", "args": [], "env": {"ATLAS_LOG_LEVEL": "DEBUG"}}
    config.write_text(json.dumps({"mcpServers": {"atlas": old}}, indent=2))
    (home / "b").mkdir()

    done = atlas_setup("cursor", "--bundle", str(home / "b"))

    assert done.returncode == 0, done.stderr
    entry = json.loads(config.read_text())["mcpServers"]["atlas"]
    assert entry == {
        "command": ATLAS_MCP,
        "args": ["--bundle", str(home / "b")],
        "env": {"ATLAS_LOG_LEVEL": "DEBUG"},
    }


def test_dry_run_prints_a_unified_diff_and_writes_nothing(
    cursor_config: Path, home: Path, atlas_setup: Setup
) -> None:
    before = files_under(home)

    done = atlas_setup("cursor", "--dry-run")

    assert done.returncode == 0, done.stderr
    assert f"--- {cursor_config}" in done.stdout
    assert f"+++ {cursor_config}" in done.stdout
    assert re.search(r"^@@ ", done.stdout, re.MULTILINE)
    assert f'+      "command": "{ATLAS_MCP}",' in done.stdout
    assert '"web"' in done.stdout  # context lines
    assert files_under(home) == before


def test_dry_run_cuts_a_long_line_beside_the_change(home: Path, atlas_setup: Setup) -> None:
    """A config whose context line holds megabytes (a pasted history) prints a short diff."""
    config = home / CURSOR
    config.parent.mkdir(parents=True)
    config.write_text('{\n  "history": "' + "x" * 2_000_000 + '",\n  "mcpServers": {}\n}\n')

    done = atlas_setup("cursor", "--dry-run")

    assert done.returncode == 0, done.stderr
    assert len(done.stdout) < 10_000
    assert "more characters)" in done.stdout
    assert f'+      "command": "{ATLAS_MCP}",' in done.stdout


def test_dry_run_for_a_missing_file_creates_nothing(home: Path, atlas_setup: Setup) -> None:
    done = atlas_setup("codex", "--dry-run")

    assert done.returncode == 0, done.stderr
    assert "--- /dev/null" in done.stdout
    assert "+[mcp_servers.atlas]" in done.stdout
    assert files_under(home) == {}


def test_list_shows_each_client_its_file_and_its_atlas_command(
    cursor_config: Path, home: Path, atlas_setup: Setup
) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text("model = \n")  # Codex cannot read it either
    (home / ".config" / "zed").mkdir(parents=True)
    (home / ".config" / "zed" / "settings.json").write_text('{"theme": "One Dark"}')
    assert atlas_setup("cursor", "--bundle", str(home)).returncode == 0

    done = atlas_setup("--list")

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    pairs = {lines[i].split()[0]: (lines[i], lines[i + 1].strip()) for i in range(0, len(lines), 2)}
    assert list(pairs) == [
        "claude-code",
        "claude-desktop",
        "cursor",
        "vscode",
        "opencode",
        "zed",
        "codex",
        "continue",
    ]
    assert pairs["cursor"][0].endswith(str(cursor_config))
    assert pairs["cursor"][1] == f"configured: {ATLAS_MCP} --bundle {home}"
    assert pairs["zed"][1] == "not configured"
    assert pairs["claude-desktop"] == (
        f"claude-desktop  {home / '.config/Claude/claude_desktop_config.json'}",
        "no config file",
    )
    assert pairs["codex"][1].startswith("unreadable: ")
    assert "not valid TOML" in pairs["codex"][1]


def test_a_symlinked_config_is_edited_where_it_lives(home: Path, atlas_setup: Setup) -> None:
    dotfiles = home / "dotfiles" / "cursor-mcp.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(ORIGINAL)
    link = home / CURSOR
    link.parent.mkdir()
    link.symlink_to(dotfiles)

    done = atlas_setup("cursor")

    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert json.loads(dotfiles.read_text())["mcpServers"]["atlas"]["command"] == ATLAS_MCP
    assert list(dotfiles.parent.glob("cursor-mcp.json.*.bak"))


def test_config_flag_edits_the_named_file(home: Path, atlas_setup: Setup) -> None:
    config = home / "elsewhere" / "settings.json"
    config.parent.mkdir()
    config.write_text('{\n  // mine\n  "vim_mode": true\n}\n')

    done = atlas_setup("zed", "--config", str(config))

    assert done.returncode == 0, done.stderr
    text = config.read_text()
    assert "// mine" in text
    assert '"context_servers": {\n    "atlas": {' in text
    assert not (home / ".config").exists()


def test_a_file_with_windows_line_endings_keeps_them(home: Path, atlas_setup: Setup) -> None:
    config = home / ".config" / "Code" / "User" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_bytes(b'{\r\n  // mine\r\n  "servers": {}\r\n}\r\n')

    assert atlas_setup("vscode").returncode == 0

    raw = config.read_bytes()
    assert b"atlas" in raw
    assert raw.count(b"\n") == raw.count(b"\r\n")


def test_a_file_saved_by_the_client_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    from atlas_core.errors import ConfigError
    from atlas_ls.cli.clients import apply, find_client, plan_setup

    config = tmp_path / "mcp.json"
    config.write_text(ORIGINAL)
    plan = plan_setup(find_client("cursor"), ATLAS_MCP, [], config)
    config.write_text('{"mcpServers": {}, "savedByCursor": true}')

    with pytest.raises(ConfigError, match="changed while atlas setup was reading it"):
        apply(plan)

    assert config.read_text() == '{"mcpServers": {}, "savedByCursor": true}'
    assert list(tmp_path.iterdir()) == [config]
