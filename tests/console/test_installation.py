"""How Atlas was installed, read from real environment folders laid out as uv and venv leave them,
and the commands each kind of install is told to run."""

from __future__ import annotations

import sys
from pathlib import Path

from atlas_core.console.installation import PIP, UV_PROJECT, UV_TOOL, installation

ROOT = Path(__file__).resolve().parents[2]
PYTHON = "/envs/x/bin/python"


def _receipt(prefix: Path, requirement: str) -> Path:
    prefix.mkdir(parents=True)
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nuv = 0.13.9\n")
    (prefix / "uv-receipt.toml").write_text(
        f"[tool]\nrequirements = [{requirement}]\nentrypoints = []\n"
    )
    return prefix


def test_a_uv_tool_installed_from_a_checkout(tmp_path: Path) -> None:
    checkout = tmp_path / "src" / "atlas"
    prefix = _receipt(
        tmp_path / "tools" / "atlas-docs", f'{{ name = "atlas-docs", directory = "{checkout}" }}'
    )
    found = installation(prefix, PYTHON)
    assert (found.kind, found.root) == (UV_TOOL, checkout)
    assert found.add_extra("mlx") == (
        f"uv tool install --compile-bytecode --force '.[mlx]' (in {checkout})"
    )
    assert found.repair("ripgrep") == (
        f"uv tool install --compile-bytecode --reinstall . (in {checkout})"
    )
    assert found.atlas("doctor") == "atlas doctor"


def test_a_uv_tool_installed_by_name(tmp_path: Path) -> None:
    prefix = _receipt(tmp_path / "tools" / "atlas-docs", '{ name = "atlas-docs" }')
    found = installation(prefix, PYTHON)
    assert (found.kind, found.root) == (UV_TOOL, None)
    assert found.add_extra("gpu") == "uv tool install --compile-bytecode --force 'atlas-docs[gpu]'"


def test_a_uv_project_environment(tmp_path: Path) -> None:
    project = tmp_path / "atlas"
    prefix = project / ".venv"
    prefix.mkdir(parents=True)
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nuv = 0.13.9\nversion_info = 3.11.7\n")
    (project / "pyproject.toml").write_text('[project]\nname = "atlas-docs"\n')
    (project / "uv.lock").write_text("version = 1\n")
    found = installation(prefix, PYTHON)
    assert (found.kind, found.root) == (UV_PROJECT, project)
    assert found.add_extra("gpu") == f"uv sync --extra gpu (in {project})"
    assert found.repair("onnxruntime") == f"uv sync (in {project})"
    assert found.atlas("search x") == "uv run atlas search x"


def test_a_pip_virtual_environment(tmp_path: Path) -> None:
    prefix = tmp_path / "venv"
    prefix.mkdir()
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    found = installation(prefix, PYTHON)
    assert (found.kind, found.root) == (PIP, None)
    assert found.add_extra("mlx") == f"{PYTHON} -m pip install 'atlas-docs[mlx]'"
    assert found.repair("ripgrep") == f"{PYTHON} -m pip install ripgrep"
    assert found.atlas("demo") == "atlas demo"


def test_a_damaged_receipt_still_reads_as_a_uv_tool(tmp_path: Path) -> None:
    prefix = tmp_path / "tool"
    prefix.mkdir()
    (prefix / "uv-receipt.toml").write_text("[tool\nrequirements = ")
    found = installation(prefix, PYTHON)
    assert (found.kind, found.root) == (UV_TOOL, None)


def test_this_checkouts_environment() -> None:
    found = installation()
    if Path(sys.prefix).parent == ROOT and (ROOT / "uv.lock").is_file():
        assert (found.kind, found.root) == (UV_PROJECT, ROOT)
        assert found.atlas("demo") == "uv run atlas demo"
    assert found.python == sys.executable
