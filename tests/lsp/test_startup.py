"""Language-server startup: the first hover needs none of the modules only a build, the MCP
server or a model needs (numpy, pyarrow, yaml, mcp, ...), and the cyclic garbage collector, off
while the protocol library is imported, is back on afterwards."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

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

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(
    hash_bundle: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LanguageClient]:
    workdir = tmp_path_factory.mktemp("lsp-startup")
    env = server_env(workdir / "home")
    lsp = await start_client("neovim", ["--bundle", str(hash_bundle)], env, root=workdir)
    lsp.root = workdir  # type: ignore[attr-defined]
    yield lsp
    await stop_client(lsp)


async def _debug_info(client: LanguageClient) -> dict[str, Any]:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="atlas.debugInfo")
    )


# What a server that imported them again would have regressed into (atlas.debugInfo reports them).
NOT_FOR_THE_LANGUAGE_SERVER = (
    "numpy",
    "pyarrow",
    "onnxruntime",
    "tokenizers",
    "mcp",
    "uvicorn",
    "starlette",
    "yaml",
    "atlas_core.build",
    "atlas_core.crawl",
    "atlas_core.embed",
    "atlas_core.markdown.chunker",
    "atlas_core.sources.code_chunks",
    "importlib.metadata",
    "email",
    "zipfile",
    "importlib.resources",
    "tempfile",
    "atlas_core.identifiers.extract.mention_scan",
    "atlas_ls.lsp.typed_call",
    "atlas_core.recognize.typed",
    "atlas_core.pages.grep",
    "argparse",
    "shutil",
    "hashlib",
)


async def test_first_hover_loads_nothing_only_a_build_or_mcp_needs(client: LanguageClient) -> None:
    uri = (client.root / "first.py").as_uri()  # type: ignore[attr-defined]
    # An API call too, so the hover and the diagnostics it starts go through the call readers.
    text = "page = api.findAssets(name='x')\nrequests.get(BASE + '/rest/2.0/assets')\n"
    open_document(client, uri, text, "python")
    value = await hover_text(client, uri, position_of(text, "findAssets"))
    assert value is not None and "`findAssets`" in value
    modules = (await _debug_info(client))["modules"]
    loaded = [name for name in NOT_FOR_THE_LANGUAGE_SERVER if modules[name] is not False]
    assert loaded == [], modules


async def test_garbage_collector_is_back_on_after_startup(client: LanguageClient) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    info = await _debug_info(client)
    while not info["gc"]["enabled"]:
        assert loop.time() < deadline, info
        await asyncio.sleep(0.2)
        info = await _debug_info(client)
    # What lived through startup (modules, protocol classes, the engine) is out of later
    # collections.
    assert info["gc"]["frozen"] > 10_000, info
