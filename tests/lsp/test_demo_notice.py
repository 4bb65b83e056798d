"""The embedded demo is never taken for Collibra's docs: served, it closes every hover with a
footer and the server says so once per session, through pytest-lsp on the demo bundle. A real
bundle shows neither (tests/lsp/test_bundles.py and test_config.py check that side)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from atlas_core.demo import DEMO_NOTE
from atlas_ls.lsp.bundles import SERVING_DEMO
from tests.lsp_support import (
    hover_text,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CODE = "page = api.findAssets(name='x')\n"
FOOTER = f"*Atlas demo: {DEMO_NOTE}.*"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(demo_bundle: Path, workdir: Path) -> AsyncIterator[LanguageClient]:
    args = ["--bundle", str(demo_bundle)]
    lsp = await start_client("visual-studio-code", args, server_env(workdir / "home"), root=workdir)
    yield lsp
    await stop_client(lsp)


def _demo_messages(client: LanguageClient) -> list[types.ShowMessageParams]:
    return [m for m in client.messages if m.message == SERVING_DEMO]


async def test_hover_on_the_demo_ends_with_the_demo_footer(
    client: LanguageClient, workdir: Path
) -> None:
    uri = (workdir / "demo_hover.py").as_uri()
    open_document(client, uri, CODE, "python")
    value = await hover_text(client, uri, position_of(CODE, "findAssets"))
    assert value is not None and "`findAssets`" in value, value
    assert value.rstrip().endswith("---\n" + FOOTER), value
    assert value.count(FOOTER) == 1


async def test_the_server_says_once_that_it_serves_the_demo(client: LanguageClient) -> None:
    shown = await wait_until(lambda: _demo_messages(client))
    assert shown[0].type == types.MessageType.Warning
    assert "not Collibra's documentation" in shown[0].message
    assert "atlas download" in shown[0].message and "atlas.bundle" in shown[0].message

    # A reload of the same demo bundle does not say it again.
    ended = len(client.log_messages)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="atlas.reload")
    )
    assert result["reloading"] is True
    await wait_until(
        lambda: [m for m in client.log_messages[ended:] if m.message.startswith("Atlas: loaded")]
    )
    assert len(_demo_messages(client)) == 1
