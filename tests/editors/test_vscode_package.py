"""The VS Code extension packages without prompts: `vsce package` asks about a missing
`repository` and a missing LICENSE, so both are there (the project's own license), and the
extension compiles itself before packaging. Runs `vsce package` where npm can install it;
otherwise the manifest fields vsce checks are checked here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"


def _manifest() -> dict:  # type: ignore[type-arg]
    return json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))


def test_the_manifest_has_what_vsce_would_prompt_for() -> None:
    manifest = _manifest()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert manifest["license"] == project["license"] == "Apache-2.0"
    repository = manifest["repository"]
    assert repository["type"] == "git" and repository["url"].startswith("https://")
    assert repository["directory"] == "editors/vscode"
    assert manifest["publisher"] and manifest["engines"]["vscode"]
    assert manifest["scripts"]["vscode:prepublish"] == "npm run build"
    assert manifest["main"] == "./out/extension.js"


def test_the_extension_ships_the_projects_license() -> None:
    license_text = (VSCODE / "LICENSE").read_text(encoding="utf-8")
    assert license_text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.lstrip().startswith("Apache License")
    assert "Version 2.0, January 2004" in license_text
    ignored = (VSCODE / ".vscodeignore").read_text(encoding="utf-8").split()
    assert not [pattern for pattern in ignored if "LICENSE" in pattern or pattern in ("*", "**")]


VSCE = "@vscode/vsce@3.9.2"  # pinned: the last line that supports Node.js 20


@pytest.mark.slow
@pytest.mark.stress
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm (Node.js) is not installed: no vsce")
def test_vsce_packages_the_extension_without_a_prompt(tmp_path: Path) -> None:
    """`vsce package` as the README says, on a copy of the extension, with no terminal to answer
    a prompt: it compiles (the prepublish script) and writes the .vsix."""
    copy = tmp_path / "vscode"
    shutil.copytree(VSCODE, copy, ignore=shutil.ignore_patterns("node_modules", "out", "*.vsix"))
    env = {**os.environ, "npm_config_fund": "false", "npm_config_audit": "false",
           "npm_config_update_notifier": "false", "npm_config_prefer_offline": "true"}  # fmt: skip
    steps = (["npm", "ci"], ["npx", "-y", VSCE, "package"])
    for command in steps:
        out = subprocess.run(
            command, cwd=copy, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=240,
        )  # fmt: skip
        if out.returncode != 0 and "ENOTFOUND" in out.stderr + out.stdout:
            pytest.skip("npm cannot reach its registry from here")
        assert out.returncode == 0, (command, out.stdout[-2000:], out.stderr[-2000:])
    version = _manifest()["version"]
    assert (copy / f"atlas-collibra-docs-{version}.vsix").is_file()
    assert (copy / "out" / "extension.js").is_file()  # built by the prepublish script
