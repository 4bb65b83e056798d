"""Hover, go-to-doc and the open-docs action inside API calls in client code, through the real
server (pytest-lsp, Neovim's capabilities) over the bundle of tests/calls_bundle.py: the call's
method picks the operation, and a key of its query or body is that operation's parameter."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.calls_bundle import build_calls_bundle
from tests.lsp_support import (
    hover_text,
    mirror_line,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

SCRIPT = """\
import requests

BASE = "https://acme.example.com/rest/2.0"
session = requests.Session()


def find(domain_id):
    return requests.get(BASE + "/assets", params={"domainId": domain_id})


def start(definition_id):
    body = {"workflowDefinitionId": definition_id, "businessItemType": "ASSET"}
    return session.post(BASE + "/workflowInstances", json=body)


def relate(source, target):
    return session.post(f"{BASE}/relations", json={"sourceId": source, "targetId": target})


def related(source):
    return session.get(f"{BASE}/relations", params={"sourceId": source})


def add(name, domain_id, type_id):
    return session.post(BASE + "/assets", json={"name": name, "domainId": domain_id, "typeId": type_id})


def remove(ids):
    return requests.delete(f"{BASE}/domains/bulk", json=ids)


PAGE = "/assets"
"""

FETCH = """\
export async function addAsset(base, name, domainId) {
  const response = await fetch(`${base}/rest/2.0/assets`, {
    method: "POST",
    body: JSON.stringify({ name, domainId, typeId: "00000000-0000-0000-0000-000000031302" }),
  });
  return response.json();
}
"""

GROOVY = """\
def found = assetApi.findAssets(FindAssetsRequest.builder()
        .name("Customer")
        .nameMatchMode("EXACT")
        .build())
"""

CLIENT = 'page = assets_api.find_assets(name="Customer", name_match_mode="EXACT")\n'


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


def _open(client: LanguageClient, workdir: Path, name: str, text: str, language: str) -> str:
    uri = (workdir / name).as_uri()
    open_document(client, uri, text, language)
    return uri


async def _hover(client: LanguageClient, uri: str, text: str, needle: str, **kw: Any) -> str:
    value = await hover_text(client, uri, position_of(text, needle, **kw))
    assert value is not None, f"no hover on {needle!r}"
    return value


async def test_a_params_key_hovers_as_the_query_parameter_of_the_operation(
    client: LanguageClient, workdir: Path
) -> None:
    uri = _open(client, workdir, "params.py", SCRIPT, "python")
    value = await _hover(client, uri, SCRIPT, '"domainId"', delta=2)
    assert value.startswith("`domainId` — *query parameter of GET /assets*"), value
    assert "Type: `string (uuid)` · optional" in value
    # The spec's HTML is shown as markdown.
    assert "The ID of the domain to **find** the assets in." in value
    assert "<b>" not in value


async def test_the_call_decides_which_meaning_of_a_name_the_hover_shows(
    client: LanguageClient, workdir: Path
) -> None:
    uri = _open(client, workdir, "meanings.py", SCRIPT, "python")
    # sourceId: a query parameter of GET /relations and a property of POST /relations' body.
    query = await _hover(client, uri, SCRIPT, '"sourceId": source}', delta=2)
    assert query.startswith("`sourceId` — *query parameter of GET /relations*"), query
    body = await _hover(client, uri, SCRIPT, '"sourceId": source,', delta=2)
    assert body.startswith("`sourceId` — *property of AddRelationRequest*"), body
    assert "Request body of **POST** `/relations` · `addRelation`" in body
    # domainId: the query parameter of GET /assets above, a property of POST /assets' body here.
    added = await _hover(client, uri, SCRIPT, '"domainId": domain_id', occurrence=1, delta=2)
    assert added.startswith("`domainId` — *property of AddAssetRequest*"), added
    assert "Type: `string (uuid)` · required" in added


async def test_a_json_body_key_hovers_as_the_property_of_the_request_schema(
    client: LanguageClient, workdir: Path
) -> None:
    uri = _open(client, workdir, "body.py", SCRIPT, "python")
    value = await _hover(client, uri, SCRIPT, "businessItemType")
    assert value.startswith("`businessItemType` — *property of StartWorkflowInstancesRequest*")
    assert "Values: `ASSET`, `DOMAIN`, `COMMUNITY`" in value
    assert "Request body of **POST** `/workflowInstances` · `startWorkflowInstances`" in value


async def test_the_calls_method_picks_the_operation_hover_definition_and_action(
    client: LanguageClient, workdir: Path
) -> None:
    uri = _open(client, workdir, "method.py", SCRIPT, "python")
    relations = await _hover(client, uri, SCRIPT, "/relations", delta=2)
    assert relations.startswith("**POST** `/relations`"), relations
    position = position_of(SCRIPT, "/domains/bulk", delta=3)
    bulk = await hover_text(client, uri, position)
    assert bulk is not None and bulk.startswith("**DELETE** `/domains/bulk`"), bulk
    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), position)
    )
    assert isinstance(location, types.Location), location
    assert "DELETE" in mirror_line(location.uri, location.range.start.line, 3)
    actions: Any = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            types.Range(position, position),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [action["title"] for action in actions or []]
    assert "Open Collibra docs for DELETE /domains/bulk" in titles, json.dumps(actions)


async def test_an_edit_is_read_on_the_next_hover(client: LanguageClient, workdir: Path) -> None:
    uri = _open(client, workdir, "edited.py", SCRIPT, "python")
    assert (await _hover(client, uri, SCRIPT, "/relations", delta=2)).startswith("**POST**")
    line = position_of(SCRIPT, "session.post(f").line
    start = types.Position(line, SCRIPT.splitlines()[line].index("post"))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start, types.Position(line, start.character + 4)),
                    text="get",
                )
            ],
        )
    )
    edited = SCRIPT.replace('session.post(f"{BASE}/relations"', 'session.get(f"{BASE}/relations"')
    value = await _hover(client, uri, edited, "/relations", delta=2)
    assert value.startswith("**GET** `/relations`"), value


async def test_a_fetch_body_key_and_a_groovy_builder(client: LanguageClient, workdir: Path) -> None:
    uri = _open(client, workdir, "add.js", FETCH, "javascript")
    value = await _hover(client, uri, FETCH, "typeId")
    assert value.startswith("`typeId` — *property of AddAssetRequest*"), value
    assert "Request body of **POST** `/assets`" in value
    uri = _open(client, workdir, "find.groovy", GROOVY, "groovy")
    value = await _hover(client, uri, GROOVY, "nameMatchMode")
    assert value.startswith("`nameMatchMode` — *query parameter of GET /assets*"), value


async def test_a_generated_client_shows_its_own_names(
    client: LanguageClient, workdir: Path
) -> None:
    uri = _open(client, workdir, "client.py", CLIENT, "python")
    value = await _hover(client, uri, CLIENT, "name_match_mode")
    assert value.startswith("`name_match_mode` — *query parameter of GET /assets*"), value
    assert "the API's name is `nameMatchMode`" in value
    assert "Default: `ANYWHERE`" in value


async def test_without_a_call_the_name_hover_answers(client: LanguageClient, workdir: Path) -> None:
    uri = _open(client, workdir, "outside.py", SCRIPT, "python")
    value = await _hover(client, uri, SCRIPT, '"/assets"\n', delta=2)
    assert value.startswith("**GET** `/assets`"), value
    assert "parameter of" not in value


async def test_huge_documents_answer_and_the_server_keeps_serving(
    client: LanguageClient, workdir: Path
) -> None:
    minified = json.dumps(
        [{"href": f"/rest/2.0/assets/{i}", "name": "x" * 20} for i in range(90_000)],
        separators=(",", ":"),
    )[: 5 * 1024 * 1024]
    uri = _open(client, workdir, "blob.json", minified, "json")
    await hover_text(client, uri, types.Position(0, len(minified) // 2))
    long_line = "x = [" + ",".join(str(i) for i in range(30_000))[:100_000] + "]\n"
    text = 'import requests\nrequests.get("/rest/2.0/assets", params={"domainId": 1})\n' + long_line
    uri = _open(client, workdir, "long.py", text, "python")
    await hover_text(client, uri, types.Position(2, 50_000))
    value = await _hover(client, uri, text, '"domainId"', delta=2)
    assert value.startswith("`domainId` — *query parameter of GET /assets*"), value
