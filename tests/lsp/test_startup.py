"""Language-server startup: the first hover needs neither numpy nor pyarrow, and the cyclic
garbage collector, off while the protocol library is imported, is back on afterwards."""

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


async def test_first_hover_loads_neither_numpy_nor_pyarrow(client: LanguageClient) -> None:
    uri = (client.root / "first.py").as_uri()  # type: ignore[attr-defined]
    text = "page = api.findAssets(name='x')\n"
    open_document(client, uri, text, "python")
    value = await hover_text(client, uri, position_of(text, "findAssets"))
    assert value is not None and "`findAssets`" in value
    modules = (await _debug_info(client))["modules"]
    assert modules["numpy"] is False and modules["pyarrow"] is False, modules


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
