"""Hover and go-to-definition give one answer: through the real server (pytest-lsp, Neovim's
capabilities) over the bundle of tests/calls_bundle.py, the definition of every kind of name
opens the page and line that the hover links as its own: the hover's first file link, the page a
reader meets first, above any other page the hover names."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.calls_bundle import build_calls_bundle
from tests.lsp_support import (
    first_file_link,
    hover_text,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CODE = """\
import requests

BASE = "https://acme.example.com/rest/2.0"


def look(domain_id):
    return requests.get(BASE + "/assets", params={"domainId": domain_id})


def begin(definition_id):
    body = {"workflowDefinitionId": definition_id, "businessItemType": "ASSET"}
    return requests.post(BASE + "/workflowInstances", json=body)


def stray(domain_id):
    return requests.get(BASE + "/assets", params={"domainUuid": domain_id})


page = assets_api.find_assets(name="Customer", name_match_mode="EXACT")
request = AddAssetRequest(name="Customer")
"""

# (what the cursor is on, the text it is in, characters into that text)
CURSORS = {
    "operation name": ("find_assets", 2),
    "schema name": ("AddAssetRequest", 2),
    "path in a call": ('"/assets", params={"domainId"', 3),
    "query key of a call": ('"domainId": domain_id', 3),
    "body key of a call": ('"businessItemType"', 3),
    "enum value in a call": ('"ASSET"', 3),
    "keyword of a client call": ("name_match_mode", 3),
    "key the call does not take": ('"domainUuid"', 3),
}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(
    tmp_path_factory: pytest.TempPathFactory, workdir: Path
) -> AsyncIterator[LanguageClient]:
    bundle = build_calls_bundle(tmp_path_factory.getbasetemp())
    lsp = await start_client(
        "neovim", ["--bundle", str(bundle)], server_env(workdir / "home"), root=workdir
    )
    yield lsp
    await stop_client(lsp)


def _page(uri: str, line: int) -> tuple[str, int]:
    return unquote(urlparse(uri).path), line


def _hover_page(value: str) -> tuple[str, int]:
    """The file and line of the hover's first `(file://...#Ln)` link."""
    return _page(*first_file_link(value))


@pytest.mark.parametrize("kind", list(CURSORS))
async def test_definition_opens_the_page_and_line_the_hover_links(
    client: LanguageClient, workdir: Path, kind: str
) -> None:
    uri = (workdir / "one_answer.py").as_uri()
    open_document(client, uri, CODE, "python")
    needle, delta = CURSORS[kind]
    position = position_of(CODE, needle, delta=delta)
    value = await hover_text(client, uri, position)
    assert value is not None, kind
    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), position)
    )
    assert isinstance(location, types.Location), (kind, location)
    landed = _page(location.uri, location.range.start.line + 1)
    assert landed == _hover_page(value), (kind, value)
