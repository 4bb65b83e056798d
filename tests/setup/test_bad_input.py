"""Bad input: one readable line and a hint on stderr, exit code 2, and not one byte written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.setup.conftest import Setup, files_under

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="default locations checked: Linux")


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The error line, after checking the shape every refusal shares."""
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("atlas: error: "), done.stderr
    assert lines[1].startswith("  hint: ")
    return done.stderr


def test_an_unknown_client_names_the_known_ones(home: Path, atlas_setup: Setup) -> None:
    message = refused(atlas_setup("emacs"))

    assert "unknown client 'emacs'" in message
    assert "did you mean" not in message
    assert "claude-code, claude-desktop, cursor, vscode, opencode, zed, codex, continue" in message
    assert files_under(home) == {}


def test_a_close_misspelling_gets_a_suggestion(home: Path, atlas_setup: Setup) -> None:
    assert "did you mean claude-desktop?" in refused(atlas_setup("claude-destkop"))
    assert files_under(home) == {}


def test_no_client_at_all_says_what_to_type(atlas_setup: Setup) -> None:
    assert "name the client" in refused(atlas_setup())


def test_a_bundle_that_is_not_a_folder(home: Path, atlas_setup: Setup) -> None:
    message = refused(atlas_setup("cursor", "--bundle", "missing"))

    assert f"{home / 'missing'} is not a folder" in message
    assert files_under(home) == {}


# (client, file under HOME, content, words the message must hold)
BROKEN = [
    ("cursor", ".cursor/mcp.json", '{\n  "mcpServers": {\n    "a": 1,\n  }\n}\n', "not valid JSON"),
    # Claude Desktop reads strict JSON: a comment is an error there, even if editors allow it.
    (
        "claude-desktop",
        ".config/Claude/claude_desktop_config.json",
        '{\n  // servers\n  "mcpServers": {}\n}\n',
        "not valid JSON: Expecting property name enclosed in double quotes at line 2",
    ),
    (
        "vscode",
        ".config/Code/User/mcp.json",
        '{\n  // fine\n  "servers": {\n    "a": {"command": "x"}\n    "b": {}\n  }\n}\n',
        "not valid JSON with comments: expected ',' or '}' at line 5, column 5",
    ),
    (
        "zed",
        ".config/zed/settings.json",
        '{\n  /* never closed\n  "theme": "x"\n}\n',
        "unterminated /* comment at line 2",
    ),
    ("codex", ".codex/config.toml", 'model = "o3"\n[mcp_servers.x\n', "not valid TOML"),
    (
        "continue",
        ".continue/config.yaml",
        "name: x\nmcpServers:\n  - name: a\n   command: b\n",
        "not valid YAML",
    ),
    ("claude-code", ".claude.json", '{"mcpServers": ["atlas"]}', '"mcpServers" is a list'),
    ("vscode", ".config/Code/User/mcp.json", '{"servers": "none"}', '"servers" is a string'),
    ("opencode", ".config/opencode/opencode.json", "[]", "the document is a list"),
    (
        "zed",
        ".config/zed/settings.json",
        '{"context_servers": {"atlas": true}}',
        '"context_servers.atlas" is a boolean',
    ),
    ("codex", ".codex/config.toml", "mcp_servers = 3\n", '"mcp_servers" is a number'),
    (
        "codex",
        ".codex/config.toml",
        '[mcp_servers]\natlas = { command = "x" }\n',
        "in a form atlas setup does not edit",
    ),
    ("continue", ".continue/config.yaml", "mcpServers: {}\n", '"mcpServers" is an object'),
    ("cursor", ".cursor/mcp.json", b"{\xff}", "is not UTF-8 text"),
    # Parses, but a [mcp_servers.atlas] table cannot extend an inline table: the edit is read
    # back before it is saved, fails that check, and the user gets the entry to add by hand.
    (
        "codex",
        ".codex/config.toml",
        'mcp_servers = { docs = { command = "d" } }\n',
        "could not edit",
    ),
]


@pytest.mark.parametrize(
    ("client", "relative", "content", "words"),
    BROKEN,
    ids=[f"{b[0]}-{i}" for i, b in enumerate(BROKEN)],
)
def test_a_config_that_cannot_be_used_is_left_byte_identical(
    home: Path, atlas_setup: Setup, client: str, relative: str, content: str | bytes, words: str
) -> None:
    config = home / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        config.write_bytes(content)
    else:
        config.write_text(content)
    before = files_under(home)

    message = refused(atlas_setup(client))

    assert str(config) in message
    assert words in message
    assert files_under(home) == before  # no edit, no backup, no temporary file


def test_a_config_that_cannot_be_read_is_left_alone(home: Path, atlas_setup: Setup) -> None:
    config = home / ".cursor" / "mcp.json"
    config.mkdir(parents=True)  # a folder where the file should be

    message = refused(atlas_setup("cursor"))

    assert f"{config} is not a file" in message
    assert files_under(home) == {}


def test_continue_with_only_the_old_config_json_is_not_shadowed(
    home: Path, atlas_setup: Setup
) -> None:
    legacy = home / ".continue" / "config.json"
    legacy.parent.mkdir()
    legacy.write_text('{"models": []}')

    message = refused(atlas_setup("continue"))

    assert "config.json" in message and "migrate" in message
    assert files_under(home) == {".continue/config.json": b'{"models": []}'}
