"""Hostile configs (issue 27): a big config is edited in memory that grows with its size, not 120
times it; one nested past the limit, with a number too long to read, a YAML alias bomb or a symlink
loop is refused in one line and left byte for byte as it was; a Windows (CRLF) file is edited once
and then left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.setup.conftest import ATLAS_MCP, LOCATION_VARIABLES, ROOT, Setup, files_under
from tests.setup.test_bad_input import refused

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="default locations checked: Linux")

MB = 1024 * 1024
# Runs `atlas setup` as its only child and prints the child's peak resident memory in bytes.
PEAK_RSS = """
import resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "atlas_ls.cli", "setup", *sys.argv[1:]])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
sys.exit(done.returncode)
"""


def peak_memory_of_setup(home: Path, *args: str) -> int:
    env = {k: v for k, v in os.environ.items() if k not in LOCATION_VARIABLES}
    env["HOME"] = str(home)
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.splitlines()[-1])


def write(home: Path, relative: str, content: str | bytes) -> Path:
    config = home / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    config.write_bytes(content)
    return config


# A 10 MB string in each JSON family: Claude Code's strict JSON, Zed's JSON with comments (a
# comment beside it, so the file is read by Atlas's own reader and not only the C one).
BIG = "x" * (10 * MB)
BIG_CONFIGS = [
    ("claude-code", ".claude.json", json.dumps({"projects": {"a": {"history": BIG}}}, indent=2)),
    ("zed", ".config/zed/settings.json", '{\n  // notes\n  "notes": "' + BIG + '",\n}\n'),
]


@pytest.mark.parametrize(("client", "relative", "content"), BIG_CONFIGS, ids=["json", "jsonc"])
def test_a_10_mb_config_is_edited_in_memory_proportional_to_its_size(
    home: Path, client: str, relative: str, content: str
) -> None:
    config = write(home, relative, content)

    peak = peak_memory_of_setup(home, client)

    # Before: about 120 bytes per character of the string, 1.26 GB here. Python itself, the file,
    # its parsed value, the edited text and the read-back copy take well under 300 MB.
    assert peak < 300 * MB, f"peak {peak / MB:.0f} MB"
    edited = config.read_text()
    assert BIG in edited and '"atlas"' in edited


DEEP = 100_000
# (client, file, a config nested DEEP levels)
TOO_DEEP = [
    ("claude-code", ".claude.json", '{"a": ' + "[" * DEEP + "]" * DEEP + "}"),
    ("vscode", ".config/Code/User/mcp.json", '{// c\n"a": ' + "[" * DEEP + "]" * DEEP + "}"),
    ("opencode", ".config/opencode/opencode.json", '{"a": ' + '{"b": ' * DEEP + "}" * DEEP + "}"),
    ("codex", ".codex/config.toml", "a = " + "[" * DEEP + "]" * DEEP + "\n"),
    ("codex", ".codex/config.toml", "a = " + "{b = " * DEEP + "}" * DEEP + "\n"),
    ("codex", ".codex/config.toml", "[" + ".".join(["a"] * DEEP) + "]\n"),
    ("codex", ".codex/config.toml", ".".join(["a"] * DEEP) + " = 1\n"),
    ("continue", ".continue/config.yaml", "a: " + "[" * DEEP + "]" * DEEP + "\n"),
    ("continue", ".continue/config.yaml", "a:\n" + "- " * DEEP + "x\n"),
]


@pytest.mark.parametrize(
    ("client", "relative", "content"),
    TOO_DEEP,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(TOO_DEEP)],
)
def test_a_config_nested_past_the_limit_is_refused_and_untouched(
    home: Path, atlas_setup: Setup, client: str, relative: str, content: str
) -> None:
    config = write(home, relative, content)
    before = files_under(home)

    message = refused(atlas_setup(client))

    assert f"{config} is nested more than 64 levels deep" in message
    assert files_under(home) == before


NESTED_50 = [
    ("claude-code", ".claude.json", '{"a": ' + "[" * 50 + "]" * 50 + "}\n"),
    ("vscode", ".config/Code/User/mcp.json", '{"a": ' + '{"b": ' * 50 + "1" + "}" * 50 + ",}\n"),
    ("codex", ".codex/config.toml", "a = " + "[" * 50 + "]" * 50 + "\n"),
    ("continue", ".continue/config.yaml", "a: " + "[" * 50 + "]" * 50 + "\n"),
]


@pytest.mark.parametrize(("client", "relative", "content"), NESTED_50, ids=lambda v: str(v)[:12])
def test_a_config_nested_within_the_limit_is_edited(
    home: Path, atlas_setup: Setup, client: str, relative: str, content: str
) -> None:
    config = write(home, relative, content)

    done = atlas_setup(client)

    assert done.returncode == 0, done.stderr
    assert config.read_text().startswith(content.rstrip("}\n"))
    assert "atlas" in config.read_text()


DIGITS = "7" * 5000
LONG_NUMBERS = [
    ("claude-code", ".claude.json", '{\n  "n": ' + DIGITS + "\n}\n"),
    ("zed", ".config/zed/settings.json", '{\n  // c\n  "n": -' + DIGITS + ",\n}\n"),
    ("opencode", ".config/opencode/opencode.json", '{\n  "n": [' + DIGITS + "]\n}\n"),
    ("codex", ".codex/config.toml", 'model = "o3"\nn = ' + DIGITS + "\n"),
    ("continue", ".continue/config.yaml", "name: x\nn: " + DIGITS + "\n"),
]


@pytest.mark.parametrize(
    ("client", "relative", "content"), LONG_NUMBERS, ids=[c[0] for c in LONG_NUMBERS]
)
def test_a_number_too_long_to_read_is_refused_with_its_line(
    home: Path, atlas_setup: Setup, client: str, relative: str, content: str
) -> None:
    config = write(home, relative, content)
    before = files_under(home)

    message = refused(atlas_setup(client))

    assert f"{config} holds a whole number 5000 digits long" in message
    assert "line 2" in message or "line 3" in message
    assert files_under(home) == before


def test_a_config_that_is_a_symlink_loop_is_refused(home: Path, atlas_setup: Setup) -> None:
    (home / ".claude.json").symlink_to(home / "dotfiles.json")
    (home / "dotfiles.json").symlink_to(home / ".claude.json")

    message = refused(atlas_setup("claude-code"))

    assert f"{home / '.claude.json'} is a symbolic link that leads back to itself" in message
    assert {p.name for p in home.iterdir()} == {".claude.json", "dotfiles.json"}
    assert os.readlink(home / ".claude.json") == str(home / "dotfiles.json")


def test_a_config_flag_naming_a_loop_is_refused(home: Path, atlas_setup: Setup) -> None:
    (home / "loop.json").symlink_to("loop.json")

    message = refused(atlas_setup("cursor", "--config", "loop.json"))

    assert "loop.json is a symbolic link that leads back to itself" in message
    assert [p.name for p in home.iterdir()] == ["loop.json"]


# Nine levels of nine aliases each: about 500 bytes that stand for 9**9 (387 million) strings.
ALIAS_BOMB = 'name: x\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize(
    "content",
    [ALIAS_BOMB, "name: x\na: &a [1, *a]\n", "name: x\na: &a {b: *a}\n"],
    ids=["bomb", "list-holding-itself", "mapping-holding-itself"],
)
def test_yaml_aliases_that_explode_or_hold_themselves_are_refused(
    home: Path, atlas_setup: Setup, content: str
) -> None:
    config = write(home, ".continue/config.yaml", content)
    before = files_under(home)

    message = refused(atlas_setup("continue"))

    assert f"{config} uses YAML aliases that repeat more than 100000 values" in message
    assert files_under(home) == before


def test_yaml_anchors_used_a_few_times_are_fine(home: Path, atlas_setup: Setup) -> None:
    content = "name: x\nenv: &env {A: 1}\nmodels:\n  - {name: m, env: *env}\n"
    config = write(home, ".continue/config.yaml", content)

    done = atlas_setup("continue")

    assert done.returncode == 0, done.stderr
    assert config.read_text().startswith(content)


CRLF = [
    ("codex", ".codex/config.toml", 'model = "o3"\r\n\r\n[mcp_servers.web]\r\ncommand = "w"\r\n'),
    ("cursor", ".cursor/mcp.json", '{\r\n  "mcpServers": {\r\n    "web": {}\r\n  }\r\n}\r\n'),
    ("continue", ".continue/config.yaml", "name: x\r\nmcpServers:\r\n  - name: web\r\n"),
]


@pytest.mark.parametrize(("client", "relative", "content"), CRLF, ids=[c[0] for c in CRLF])
def test_a_windows_file_is_edited_again_in_place_and_keeps_its_line_endings(
    home: Path, atlas_setup: Setup, client: str, relative: str, content: str
) -> None:
    config = write(home, relative, content)
    (home / "bundle").mkdir()

    first = atlas_setup(client)
    changed = atlas_setup(client, "--bundle", "bundle")  # the entry there must be found and updated
    edited = config.read_bytes()
    again = atlas_setup(client, "--bundle", "bundle")

    assert first.returncode == 0, first.stderr
    assert changed.returncode == 0, changed.stderr
    assert again.returncode == 0, again.stderr
    assert "nothing changed" in again.stdout
    assert config.read_bytes() == edited
    assert edited.startswith(content.encode()[: content.rindex("web")])
    assert edited.count(ATLAS_MCP.encode()) == 1  # one entry, updated in place
    assert edited.count(str(home / "bundle").encode()) == 1
    assert edited.count(b"\n") == edited.count(b"\r\n")


def test_a_file_mixing_line_endings_keeps_each_users_line_as_it_was(
    home: Path, atlas_setup: Setup
) -> None:
    content = 'model = "o3"\r\n# from a Unix editor\n[mcp_servers.web]\r\ncommand = "w"\n'
    config = write(home, ".codex/config.toml", content)

    assert atlas_setup("codex").returncode == 0
    again = atlas_setup("codex")

    assert "nothing changed" in again.stdout
    assert config.read_bytes().startswith(content.encode())


def test_a_yaml_config_with_a_control_character_is_refused(home: Path, atlas_setup: Setup) -> None:
    config = write(home, ".continue/config.yaml", "name: x\x00\nmcpServers: []\n")
    before = files_under(home)

    message = refused(atlas_setup("continue"))

    assert f"{config} is not valid YAML: unacceptable character #x0000" in message
    assert files_under(home) == before
