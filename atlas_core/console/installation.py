"""How this copy of Atlas was installed, so the commands Atlas suggests work as printed.

Three shapes are told apart by what the running interpreter's environment holds: a uv tool (uv
writes ``uv-receipt.toml`` into each tool's environment), a uv project's virtual environment (a
``pyvenv.cfg`` that uv wrote, beside the project's ``pyproject.toml`` and ``uv.lock``), and
anything else, which is served by pip.
"""

from __future__ import annotations

import shlex
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "atlas-docs"
# The one install command every README gives: Atlas installs from its checkout.
INSTALL_COMMAND = "uv tool install --compile-bytecode ."
UV_TOOL = "uv tool"
UV_PROJECT = "uv project"
PIP = "pip"


@dataclass(frozen=True, slots=True)
class Installation:
    """Where Atlas runs from and how to change that environment."""

    kind: str  # UV_TOOL | UV_PROJECT | PIP
    root: Path | None = None  # the checkout a uv tool was installed from, or the uv project
    python: str = sys.executable

    def describe(self) -> str:
        where = f" from {self.root}" if self.kind == UV_TOOL and self.root else ""
        where = f" at {self.root}" if self.kind == UV_PROJECT and self.root else where
        return f"{self.kind}{where} ({self.python})"

    def atlas(self, arguments: str) -> str:
        """The `atlas` command line for this install: ``uv run atlas ...`` inside a uv project,
        where `atlas` is on no PATH, else ``atlas ...``."""
        return f"{'uv run ' if self.kind == UV_PROJECT else ''}atlas {arguments}"

    def add_extra(self, extra: str) -> str:
        """The command that adds Atlas's optional `extra` (``mlx``, ``gpu``) to this install."""
        if self.kind == UV_PROJECT:
            return self._in_root(f"uv sync --extra {extra}")
        if self.kind == UV_TOOL:
            if self.root is not None:
                return self._in_root(f"uv tool install --compile-bytecode --force '.[{extra}]'")
            return f"uv tool install --compile-bytecode --force '{PACKAGE}[{extra}]'"
        return f"{shlex.quote(self.python)} -m pip install '{PACKAGE}[{extra}]'"

    def repair(self, package: str) -> str:
        """The command that puts back `package`, a dependency of Atlas missing from this install."""
        if self.kind == UV_PROJECT:
            return self._in_root("uv sync")
        if self.kind == UV_TOOL:
            source = "." if self.root is not None else PACKAGE
            return self._in_root(f"uv tool install --compile-bytecode --reinstall {source}")
        return f"{shlex.quote(self.python)} -m pip install {package}"

    def _in_root(self, command: str) -> str:
        return f"{command} (in {self.root})" if self.root is not None else command


def installation(prefix: Path | None = None, python: str | None = None) -> Installation:
    """How the environment at `prefix` (default: this interpreter's) was installed."""
    prefix = Path(sys.prefix if prefix is None else prefix)
    python = python or sys.executable
    receipt = prefix / "uv-receipt.toml"
    if receipt.is_file():
        return Installation(UV_TOOL, _tool_source(receipt), python)
    if _written_by_uv(prefix / "pyvenv.cfg"):
        project = prefix.parent
        if (project / "pyproject.toml").is_file() and (project / "uv.lock").is_file():
            return Installation(UV_PROJECT, project, python)
    return Installation(PIP, None, python)


def _tool_source(receipt: Path) -> Path | None:
    """The directory a uv tool receipt says Atlas was installed from (None: from an index)."""
    try:
        data = tomllib.loads(receipt.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    requirements = data.get("tool", {}).get("requirements", [])
    for requirement in requirements if isinstance(requirements, list) else []:
        if isinstance(requirement, dict) and requirement.get("name") == PACKAGE:
            directory = requirement.get("directory") or requirement.get("editable")
            return Path(directory) if isinstance(directory, str) else None
    return None


def _written_by_uv(config: Path) -> bool:
    try:
        lines = config.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.partition("=")[0].strip() == "uv" for line in lines)
