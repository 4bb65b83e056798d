"""`atlas setup` runs as a subprocess against a temporary HOME, so every client's default config
location resolves inside it and the user's real configs are never read."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The command the entry must name: the atlas-mcp script installed beside the Python running Atlas.
ATLAS_MCP = str(Path(os.path.abspath(sys.executable)).parent / "atlas-mcp")
# Variables that would move a client's config out of the temporary HOME.
LOCATION_VARIABLES = ("XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "CONTINUE_GLOBAL_DIR")

Setup = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def atlas_setup(home: Path) -> Setup:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in LOCATION_VARIABLES}
        env["HOME"] = str(home)
        env["PYTHONPATH"] = str(ROOT)
        return subprocess.run(
            [sys.executable, "-m", "atlas_ls.cli", "setup", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=home,
            timeout=60,
        )

    return run


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` and its bytes: what a failed setup must leave untouched."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }
