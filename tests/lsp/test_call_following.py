"""Hover follows the call it is in (issue 29, item 4), through the real server over the bundle of
tests/calls_bundle.py: a key the call's operation does not document says so with the names it
does take there (never another operation's parameter of the same name), and a literal value of
an enum parameter hovers that parameter with every value it takes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from pytest_lsp import LanguageClient

from tests.calls_bundle import build_calls_bundle
from tests.lsp_support import (
    hover_text,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

SCRIPT = """\
import requests

ROOT = "https://acme.example.com/rest/2.0"


def linked(asset):
    return requests.get(ROOT + "/relations", params={"domainId": asset})


def link(asset, other):
    return requests.post(ROOT + "/relations", json={"source": asset, "domainId": other})


def search(text):
    return requests.get(ROOT + "/assets", params={"name": text, "nameMatchMode": "EXACT"})
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(
    tmp_path_factory: pytest.TempPathFactory, workdir: Path
) -> AsyncIterator[LanguageClient]:
    bundle = build_calls_bundle(tmp_path_factory.getbasetemp())
    lsp = await start_client(
        "visual-studio-code", ["--bundle", str(bundle)], server_env(workdir / "home"), root=workdir
    )
    yield lsp
    await stop_client(lsp)


async def _hover(client: LanguageClient, workdir: Path, needle: str, occurrence: int = 0) -> str:
    uri = (workdir / "following.py").as_uri()
    open_document(client, uri, SCRIPT, "python")
    value = await hover_text(
        client, uri, position_of(SCRIPT, needle, occurrence=occurrence, delta=2)
    )
    assert value is not None, f"no hover on {needle!r}"
    return value


async def test_a_query_key_the_operation_does_not_take_names_its_own_parameters(
    client: LanguageClient, workdir: Path
) -> None:
    # domainId is a query parameter of GET /assets, not of the GET /relations this call makes.
    value = await _hover(client, workdir, '"domainId": asset')
    assert value.startswith("`domainId` is not a query parameter of **GET** `/relations`"), value
    assert "Closest query parameter names of GET /relations: `sourceId`" in value
    assert "GET /assets" not in value


async def test_a_body_key_the_operation_does_not_take_names_the_closest_properties(
    client: LanguageClient, workdir: Path
) -> None:
    value = await _hover(client, workdir, '"source"')
    assert value.startswith("`source` is not a request body property of **POST** `/relations`")
    assert "Closest request body property names of POST /relations: `sourceId`" in value
    other = await _hover(client, workdir, '"domainId": other')
    assert other.startswith("`domainId` is not a request body property of **POST** `/relations`")
    assert "AddAssetRequest" not in other


async def test_an_enum_value_hovers_its_parameter_with_every_value(
    client: LanguageClient, workdir: Path
) -> None:
    value = await _hover(client, workdir, '"EXACT"')
    assert value.startswith(
        "`EXACT` is one of the values of `nameMatchMode` (query parameter of GET /assets): "
        "`START`, `END`, `ANYWHERE`, `EXACT`."
    ), value
    assert "`nameMatchMode` — *query parameter of GET /assets*" in value
