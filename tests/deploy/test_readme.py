"""The deployment page (docs/deployment.md, "Running a shared endpoint"): every command it shows is one the code
accepts (the real argument parsers for atlas and atlas-mcp) and every file it names exists."""

from __future__ import annotations

import re
import shlex

from atlas_ls.cli import _build_parser
from atlas_ls.mcp.__main__ import build_parser
from tests.deploy.conftest import ROOT

PAGE = ROOT / "docs" / "deployment.md"


def section() -> str:
    return PAGE.read_text(encoding="utf-8")


def shell_lines() -> list[list[str]]:
    """Each command of the section's sh blocks, continuations joined, comments dropped."""
    commands: list[list[str]] = []
    for block in re.findall(r"```sh\n(.*?)```", section(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[-1] == "&":
                words.pop()
            if words:
                commands.append(words)
    return commands


def atlas_commands() -> list[list[str]]:
    """Every atlas / atlas-mcp command line, also those run inside the image by docker."""
    found = []
    for words in shell_lines():
        if words[:2] == ["docker", "run"]:
            words = words[words.index("atlas-mcp") + 1 :]  # the command after the image's name
        if words and words[0] in ("atlas", "atlas-mcp"):
            found.append(words)
    return found


def test_every_atlas_command_in_the_section_is_accepted() -> None:
    commands = atlas_commands()
    assert sum(c[0] == "atlas-mcp" for c in commands) >= 3
    assert ["atlas", "download", "--output", "/data"] in commands
    server = build_parser("atlas-mcp", "all")
    cli = _build_parser()[0]
    for words in commands:
        args = (server if words[0] == "atlas-mcp" else cli).parse_args(words[1:])
        if words[0] == "atlas-mcp":
            assert args.transport == "http" and args.stateless, words


def test_every_file_the_section_names_exists() -> None:
    named = set(re.findall(r"deploy/[\w./-]+\w", section()))
    named |= {f"deploy/kubernetes/{name}" for name in re.findall(r"`([\w-]+\.yaml)`", section())}
    assert len(named) >= 8
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, missing
