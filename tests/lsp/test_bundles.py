"""Several bundles in the language server, through pytest-lsp: the Collibra-like fixture bundle
beside a team's own (tests/team_bundle.py), whose manifest name collides with the first's so the
engine calls it ``fixture-2``, and one of whose pages has a path the first bundle also has. Hover's
link, go-to-doc and the open-docs action must open the page of the bundle that documents the
identifier."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp_support import (
    first_file_link,
    hover_text,
    mirror_line,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
)
from tests.team_bundle import SHARED_PATH, TEAM_ENDPOINT

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEAM_CALL = f'r = requests.post(f"{{base}}{TEAM_ENDPOINT}", json=ids)\n'
FIXTURE_CALL = "page = api.findAssets(name='x')\n"


@pytest.fixture(scope="module")
def bundles(hash_bundle: Path, team_bundle: Path) -> tuple[Path, Path]:
    return hash_bundle, team_bundle


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(bundles: tuple[Path, Path], workdir: Path) -> AsyncIterator[LanguageClient]:
    args = ["--bundle", str(bundles[0]), "--bundle", str(bundles[1])]
    lsp = await start_client("neovim", args, server_env(workdir / "home"), root=workdir)
    yield lsp
    await stop_client(lsp)


def page_uri(bundle: Path) -> str:
    return (bundle / "mirror" / SHARED_PATH).resolve().as_uri()


def _open(client: LanguageClient, workdir: Path, name: str, text: str) -> str:
    uri = (workdir / name).as_uri()
    open_document(client, uri, text, "python")
    return uri


async def test_hover_links_the_page_of_the_bundle_that_documents_it(
    client: LanguageClient, workdir: Path, bundles: tuple[Path, Path]
) -> None:
    uri = _open(client, workdir, "team_hover.py", TEAM_CALL)
    value = await hover_text(client, uri, position_of(TEAM_CALL, "teamAssets"))
    assert value is not None and "**POST** `/teamAssets/archive`" in value, value
    assert "Atlas demo" not in value  # real bundles carry no demo footer
    link, line = first_file_link(value)
    assert link == page_uri(bundles[1]), value
    assert TEAM_ENDPOINT in mirror_line(link, line - 1)


async def test_definition_and_open_docs_go_to_the_right_bundle(
    client: LanguageClient, workdir: Path, bundles: tuple[Path, Path]
) -> None:
    uri = _open(client, workdir, "team_definition.py", TEAM_CALL)
    position = position_of(TEAM_CALL, "teamAssets")
    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), position)
    )
    assert isinstance(location, types.Location), location
    assert location.uri == page_uri(bundles[1])
    assert TEAM_ENDPOINT in mirror_line(location.uri, location.range.start.line)

    result: list[Any] = (
        await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri),
                range=types.Range(position, position),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        or []
    )
    opens = [a["command"] for a in result if a["command"]["command"] == "atlas.openDocs"]
    assert opens and opens[0]["arguments"][0] == page_uri(bundles[1])

    # The fixture bundle's identifiers still open the fixture bundle's pages.
    ours = _open(client, workdir, "fixture_definition.py", FIXTURE_CALL)
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(ours), position_of(FIXTURE_CALL, "findAssets")
        )
    )
    assert isinstance(location, types.Location), location
    assert location.uri.startswith((bundles[0] / "mirror").resolve().as_uri())
    assert "findAssets" in mirror_line(location.uri, location.range.start.line, 4)
