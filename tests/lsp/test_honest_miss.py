"""Honest misses in the editor (issue 12, item 6): hovering a name the bundle never writes shows
no hover, where lookup once offered an unrelated heading; a name the docs write only in a heading
and a code span still hovers, through the mention index. The server runs as a subprocess under
VS Code's captured capabilities (hover text does not depend on them: see lsp_support.ONE_CLIENT)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient

from tests.lsp_support import (
    ONE_CLIENT,
    hover_text,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGES = {
    "ops/server.md": "# Operations\n\n## Server Modes\n\nA server runs in one of three modes.\n\n"
    "## Running gadgetReindex\n\nStart `gadgetReindex` after an upgrade.\n\n"
    "## Housekeeping\n\nThe nightly job calls `gadgetPurge` with the retention days.\n",
}


@pytest.fixture(scope="module")
def miss_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from atlas_core.build import build_bundle

    base = tmp_path_factory.mktemp("miss")
    for rel, text in PAGES.items():
        (base / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "docs" / rel).write_text(text, encoding="utf-8")
    build_bundle([f"local={base / 'docs'}"], base / "bundle", model="hash", progress=False)
    return base / "bundle"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(miss_bundle: Path, workdir: Path) -> AsyncIterator[LanguageClient]:
    args = ["--bundle", str(miss_bundle)]
    lsp = await start_client(ONE_CLIENT, args, server_env(workdir / "home"), root=workdir)
    yield lsp
    await stop_client(lsp)


TEXT = (
    'job = client.run("gadgetReindex")\nmode = client.configure("serverModeMatcher")\n'
    'purge = client.run("gadgetPurge")\n'
)


async def test_no_hover_for_a_name_the_bundle_never_writes(
    client: LanguageClient, workdir: Path
) -> None:
    uri = (workdir / "jobs.py").as_uri()
    open_document(client, uri, TEXT, "python")
    found = await hover_text(client, uri, position_of(TEXT, "gadgetReindex"))
    assert found is not None and "ops/server.md" in found
    assert await hover_text(client, uri, position_of(TEXT, "serverModeMatcher")) is None


async def test_a_name_only_mentioned_hovers_the_page_that_names_it(
    client: LanguageClient, workdir: Path
) -> None:
    uri = (workdir / "purge.py").as_uri()
    open_document(client, uri, TEXT, "python")
    found = await hover_text(client, uri, position_of(TEXT, "gadgetPurge"))
    # No heading or table defines it: the hover says the page names it, and links the line.
    assert found is not None and "ops/server.md" in found
    assert "named on this page" in found and "*mention*" not in found
