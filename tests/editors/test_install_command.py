"""One install command across every README: the main README and each editor's give the same way
to put Atlas's commands on PATH, the one that works from this repository (Atlas installs from its
checkout), and the same one Atlas's own hints print."""

from __future__ import annotations

import re
from pathlib import Path

from atlas_core.console.installation import INSTALL_COMMAND

ROOT = Path(__file__).resolve().parents[2]
READMES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "editors").glob("*/README.md")),
]
# Every way a README could tell a user to install a Python package, in a code span.
INSTALL = re.compile(
    r"`((?:uv tool install|uv tool upgrade|uv pip install|pipx install|pip install)\b[^`]*)`"
)
NOT_ATLAS = {"pip install uv"}  # installs uv itself


def _install_commands() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for readme in READMES:
        for match in INSTALL.finditer(readme.read_text(encoding="utf-8")):
            if match.group(1) not in NOT_ATLAS:
                found.setdefault(match.group(1), []).append(str(readme.relative_to(ROOT)))
    return found


def test_every_readme_gives_the_same_install_command() -> None:
    found = _install_commands()
    assert set(found) == {INSTALL_COMMAND}, found
    # The main README and every editor README that starts Atlas's servers say it.
    readers = set(found[INSTALL_COMMAND])
    assert {"README.md", "editors/vscode/README.md", "editors/neovim/README.md"} <= readers
    assert "editors/zed/README.md" in readers


def test_the_command_installs_from_this_checkout() -> None:
    # `uv tool install .` needs a buildable project here that provides the servers' commands.
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert INSTALL_COMMAND.endswith(" .")
    assert "[build-system]" in pyproject
    for script in ("atlas", "atlas-ls", "atlas-mcp"):
        assert re.search(rf"^{re.escape(script)} = ", pyproject, re.M), script
