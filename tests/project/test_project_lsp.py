"""The language server with a project index beside the docs: the project's definitions are
workspace symbols only when `atlas.workspaceSymbols.project` asks for them, they open the file
in the repository, and hover on an operation says where the project calls it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp_support import (
    hover_text,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
)
from tests.project.conftest import SYNC_PY, make_repo

pytestmark = pytest.mark.asyncio(loop_scope="module")
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("lsp-project") / "acme-sync")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(hash_bundle: Path, repo: Path) -> AsyncIterator[LanguageClient]:
    env = server_env(repo.parent / "home")
    done = subprocess.run(
        [str(BIN / "atlas"), "index", str(repo), "--model", "hash", "--quiet"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    args = ["--bundle", str(hash_bundle), "--project", str(repo)]
    lsp = await start_client("visual-studio-code", args, env, root=repo)
    yield lsp
    await stop_client(lsp)


async def _symbols(client: LanguageClient, query: str) -> list[types.SymbolInformation]:
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    return [s for s in found or [] if isinstance(s, types.SymbolInformation)]


async def test_project_symbols_only_when_asked_and_at_the_real_file(
    client: LanguageClient, repo: Path
) -> None:
    async def project_symbols() -> list[types.SymbolInformation]:
        found = await _symbols(client, "find_assets")
        return [s for s in found if s.name == "AssetSync.find_assets"]

    docs = await _symbols(client, "findAssets")  # the bundle is served
    assert any(s.name == "findAssets" for s in docs)
    assert await project_symbols() == []
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"atlas": {"workspaceSymbols": {"project": True}}}
        )
    )
    (symbol,) = await project_symbols()
    assert symbol.kind == types.SymbolKind.Method
    assert symbol.location.uri == (repo / "src" / "sync.py").as_uri()
    line = SYNC_PY.split("\n").index("    def find_assets(self, name):")
    assert symbol.location.range.start.line == line
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"atlas": {"workspaceSymbols": {"project": False}}}
        )
    )
    assert await project_symbols() == []  # handled in order: the next request sees it


async def test_hover_on_an_operation_says_where_the_project_calls_it(
    client: LanguageClient, repo: Path
) -> None:
    uri = (repo / "notes.py").as_uri()
    text = "page = api.findAssets(name='x')\n"
    open_document(client, uri, text, "python")
    hover = await hover_text(client, uri, position_of(text, "findAssets"))
    assert hover is not None and "`findAssets`" in hover
    call = SYNC_PY.split("\n").index(
        '        response = requests.get(BASE + "/assets", params={"name": name, '
        '"nameMatchMode": "EXACT"})'
    )
    target = f"{(repo / 'src' / 'sync.py').as_uri()}#L{call + 1}"
    assert f"Used in your project at [src/sync.py:{call + 1}]({target})" in hover
