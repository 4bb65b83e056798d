"""The README's newcomer path, run as written in a fresh HOME, section by section: "Install" and
"Getting the Collibra docs" are at most four commands from `git clone` to an answer from the
downloaded bundle, and then a hover in an editor (the language server as an editor starts it, with
nothing configured), with the release server on 127.0.0.1 standing in for GitHub through
ATLAS_RELEASE_API; "Quick start" answers from the demo docs and says so; the offline route installs
a release archive copied by hand."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from atlas_core.demo import BUNDLE_PREFIX
from atlas_core.distribution.source import DEFAULT_RELEASE_REPO
from tests.lsp_support import hover_text, open_document, position_of, start_client, stop_client
from tests.release_server import ReleaseServer

ROOT = Path(__file__).resolve().parents[2]


def readme_commands(section: str) -> list[str]:
    """The command lines of the first code block under the README heading `section`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = re.split(r"\n##+ ", text.split(f"\n{section}\n", 1)[1], maxsplit=1)[0]
    block = re.search(r"```\n(.*?)```", body, re.S)
    assert block, f"{section} has no command block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def run_atlas(line: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """One README line as the installed `atlas` runs it: this environment's package, same argv."""
    argv = shlex.split(line, comments=True)
    assert argv[0] == "atlas", line
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *argv[1:]],
        capture_output=True, text=True, timeout=300, env=env, cwd=cwd,
    )  # fmt: skip


def fresh_home_env(home: Path, api_url: str) -> dict[str, str]:
    """This environment less every Atlas and XDG location, so only HOME decides where things go."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ATLAS_", "XDG_")) and k not in ("GITHUB_TOKEN", "GH_TOKEN")
    }
    return env | {"HOME": str(home), "ATLAS_RELEASE_API": api_url}


def test_readme_path_from_clone_to_an_answer(
    server: ReleaseServer, archives: dict[str, bytes], tmp_path: Path
) -> None:
    commands = readme_commands("## Install") + readme_commands("## Getting the Collibra docs")
    assert len(commands) <= 4, commands
    clone, install, *atlas_commands = commands
    # The clone is the repository the bundles are released from.
    assert clone.startswith(f"git clone https://github.com/{DEFAULT_RELEASE_REPO} ")
    # `uv tool install .` puts this checkout's `atlas` on PATH; the test runs the same package
    # from this environment instead of installing it again.
    assert install.startswith("uv tool install") and install.endswith(" .")
    assert atlas_commands[0] == "atlas download"  # no flags: the default release source

    name = "atlas-bundle-v2026.11.tar.zst"
    data = archives["v2"]
    digest = hashlib.sha256(data).hexdigest()
    server.add_release("v2026.11", {name: data, f"{name}.sha256": f"{digest}  {name}\n".encode()})
    home = tmp_path / "home"
    home.mkdir()
    env = fresh_home_env(home, server.api_url)
    outputs = []
    for line in atlas_commands:
        result = run_atlas(line, env, home)
        assert result.returncode == 0, f"{line}: {result.stderr}"
        outputs.append(result.stdout)

    assert f"/api/repos/{DEFAULT_RELEASE_REPO}/releases/latest" in [p for p, _ in server.seen]
    assert f"from {DEFAULT_RELEASE_REPO} (default)" in outputs[0]
    installed = home / ".local" / "share" / "atlas" / "current"
    assert (installed / "manifest.json").is_file()
    # The answer comes from the downloaded bundle, not from the embedded demo.
    assert "Assets v2" in outputs[-1] and "docs.example.invalid" not in outputs[-1]
    assert not list((home / ".cache" / "atlas").glob(f"{BUNDLE_PREFIX}*"))
    # The editor: hover over a call the downloaded docs document, as a user's client code makes it.
    hover = asyncio.run(_hover(home, env))
    assert hover is not None and "GET" in hover and "(v2)" in hover, hover
    assert "demo" not in hover.lower() and str(installed.resolve()) in hover  # links the download


async def _hover(home: Path, env: dict[str, str]) -> str | None:
    project = home / "project"
    project.mkdir()
    text = 'import requests\n\nrequests.get(f"{base}/rest/2.0/assets", params={"name": "x"})\n'
    uri = (project / "sync.py").as_uri()
    client = await start_client("neovim", [], env, root=project)
    try:
        open_document(client, uri, text, "python")
        return await hover_text(client, uri, position_of(text, "/assets", delta=2))
    finally:
        await stop_client(client)


# It builds the demo with the real embedding model in the fresh HOME (about 30 s on 2 cores), so
# the quick suite leaves it to .ci/run.
@pytest.mark.stress
def test_readme_quick_start_answers_from_the_demo_and_says_so(tmp_path: Path) -> None:
    commands = readme_commands("## Quick start")
    assert commands[0] == "atlas demo" and len(commands) <= 4, commands
    home = tmp_path / "home"
    home.mkdir()
    env = fresh_home_env(home, "http://127.0.0.1:9/api")  # nothing is downloaded here
    for line in commands:
        result = run_atlas(line, env, home)
        assert result.returncode == 0, f"{line}: {result.stderr}"
        assert "Traceback" not in result.stderr and result.stdout.strip(), line
        # Every answer names the demo docs it came from (on stdout or, after it, on stderr).
        assert "demo" in (result.stdout + result.stderr).lower(), line
    # The demo was built once into the fresh HOME's cache, and nothing was installed.
    assert list((home / ".cache" / "atlas").glob(f"{BUNDLE_PREFIX}*"))
    assert not (home / ".local" / "share" / "atlas" / "current").exists()


def test_readme_offline_route_installs_an_archive_copied_by_hand(
    archives: dict[str, bytes], tmp_path: Path
) -> None:
    (line,) = readme_commands("### Offline: install an archive by hand")
    argv = shlex.split(line)
    assert argv[:2] == ["atlas", "install"], line
    home = tmp_path / "home"
    home.mkdir()
    archive = home / argv[2]
    archive.write_bytes(archives["v2"])
    digest = hashlib.sha256(archives["v2"]).hexdigest()
    Path(f"{archive}.sha256").write_text(f"{digest}  {archive.name}\n", encoding="utf-8")
    env = fresh_home_env(home, "http://127.0.0.1:9/api")  # no network: nothing may be fetched
    result = run_atlas(line, env, home)
    assert result.returncode == 0, result.stderr
    assert (home / ".local" / "share" / "atlas" / "current" / "manifest.json").is_file()
    answer = run_atlas('atlas search "find assets"', env, home)
    assert answer.returncode == 0 and "Assets v2" in answer.stdout, answer.stderr
