"""Hover on a parameter or property name: the language server (a subprocess driven by pytest-lsp,
with VS Code's captured capabilities: see lsp_support.ONE_CLIENT) over a bundle built from the Teapot spec shows
what it belongs to, its type, values, default and description as markdown, and the other
operations that take it."""

from __future__ import annotations

import re
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
from tests.parameter_fixtures import PORTAL, build_teapot_bundle

pytestmark = pytest.mark.asyncio(loop_scope="module")

RAW_TAG = re.compile(r"</?(?:b|i|code|p|br|ul|li|a)\b[^>]*>", re.IGNORECASE)
CLIENT_SCRIPT = """import requests

BASE = "https://pot.example.test/rest/2.0"
pots = requests.get(BASE + "/pots", params={"nameMatchMode": "EXACT", "limit": 5})
new = requests.post(BASE + "/pots", json={"capacity": 2, "name": "Brown Betty"})
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(
    tmp_path_factory: pytest.TempPathFactory, workdir: Path
) -> AsyncIterator[LanguageClient]:
    bundle = build_teapot_bundle(tmp_path_factory.getbasetemp())
    lsp = await start_client(
        ONE_CLIENT, ["--bundle", str(bundle)], server_env(workdir / "home"), root=workdir
    )
    open_document(lsp, (workdir / "pots.py").as_uri(), CLIENT_SCRIPT, "python")
    yield lsp
    await stop_client(lsp)


async def test_parameter_hover_shows_type_values_default_and_markdown(
    client: LanguageClient, workdir: Path
) -> None:
    uri = (workdir / "pots.py").as_uri()
    value = await hover_text(client, uri, position_of(CLIENT_SCRIPT, "nameMatchMode", delta=3))
    assert value is not None
    assert value.startswith("`nameMatchMode` — *query parameter of GET /")
    assert "Type: `string` · optional" in value
    assert "Values: `START`, `END`, `ANYWHERE`, `EXACT`" in value
    assert "Default: `ANYWHERE`" in value
    # The spec's <code> and <b> as markdown, never as tags.
    assert "The match mode used to compare `name`." in value and "**EXACT**" in value
    assert not RAW_TAG.search(value), value
    # Two operations take it (the spec's page and the client's page of GET /pots count once).
    assert "- Query parameter of 2 operations: `GET /kettles`, `GET /pots`" in value


async def test_property_hover_names_its_schema(client: LanguageClient, workdir: Path) -> None:
    uri = (workdir / "pots.py").as_uri()
    value = await hover_text(client, uri, position_of(CLIENT_SCRIPT, '"capacity"', delta=3))
    assert value is not None
    assert value.startswith("`capacity` — *property of AddPotRequest*")
    assert "Type: `integer (int64)`" in value and "- in litres" in value
    assert "teapot-api/schemas.md:" in value  # the link to its row
    assert not RAW_TAG.search(value), value


async def test_a_plain_word_in_code_is_not_a_parameter(
    client: LanguageClient, workdir: Path
) -> None:
    text = "limit = 5\nprint(limit)\n"
    uri = (workdir / "plain.py").as_uri()
    open_document(client, uri, text, "python")
    # `limit` is a query parameter in the spec, but a bare variable named so is not it.
    assert await hover_text(client, uri, position_of(text, "limit", occurrence=1)) is None


async def test_parameter_hover_shows_its_example_and_the_portal_link(
    client: LanguageClient, workdir: Path
) -> None:
    uri = (workdir / "pots.py").as_uri()
    value = await hover_text(client, uri, position_of(CLIENT_SCRIPT, '"limit"', delta=3))
    assert value is not None
    assert value.startswith("`limit` — *query parameter of GET /pots*")
    assert "Default: `100` · Example: `25`" in value
    # The web link is the operation's place on the developer portal the bundle was built with.
    assert f"[Open on the web]({PORTAL}/pots#get-pots)" in value


async def test_endpoint_hover_lists_each_parameters_values_default_and_example(
    client: LanguageClient, workdir: Path
) -> None:
    uri = (workdir / "pots.py").as_uri()
    value = await hover_text(client, uri, position_of(CLIENT_SCRIPT, '"/pots"', delta=3))
    assert value is not None
    row = next(line for line in value.split("\n") if line.startswith("| `limit` |"))
    assert row.endswith("At most this many results. Default: `100`. Example: `25`. |"), row
    row = next(line for line in value.split("\n") if line.startswith("| `nameMatchMode` |"))
    assert "Values: `START`, `END`, `ANYWHERE`, `EXACT`. Default: `ANYWHERE`." in row
    assert "| `session` | cookie | string | no | **Deprecated.** |" in value
    assert f"[Open on the web]({PORTAL}/pots#get-pots)" in value
