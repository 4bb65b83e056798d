"""`lookup_identifier`'s parameter view, through the MCP SDK client against `atlas-mcp` over a
bundle built from the Teapot spec: each operation or schema that takes a name, with its location,
type, required, values, default, example and markdown description, and the developer portal's
address of each operation in lookups and search results."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.mcp_client import McpClient, stdio_client_for, structured
from tests.parameter_fixtures import PORTAL, build_teapot_bundle

RAW_TAG = re.compile(r"</?(?:b|i|code|p|br|ul|li|a)\b[^>]*>", re.IGNORECASE)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    bundle = build_teapot_bundle(tmp_path_factory.getbasetemp())
    with stdio_client_for(["atlas-mcp", "--bundle", str(bundle)]) as c:
        yield c


def test_a_parameter_lists_the_operations_that_take_it(client: McpClient) -> None:
    result = client.call("lookup_identifier", {"identifier": "nameMatchMode"})
    data = structured(result)
    assert data["candidates"][0]["kind"] == "parameter"
    assert data["definitions_total"] == 3  # GET /pots (spec and client pages), GET /kettles
    by_page = {(d["file"], d["of"]): d for d in data["definitions"]}
    pots = by_page[("teapot-api/pots.md", "query parameter of GET /pots")]
    assert (pots["location"], pots["method"], pots["path"]) == ("query", "GET", "/pots")
    assert (pots["operation_id"], pots["type"], pots["required"]) == ("findPots", "string", False)
    assert pots["enum"] == ["START", "END", "ANYWHERE", "EXACT"] and pots["default"] == "ANYWHERE"
    assert (
        pots["description"]
        == "The match mode used to compare `name`.\n\nUse **EXACT** for one pot."
    )
    assert pots["same_meaning"] == 3 and pots["line"] > 0
    assert ("teapot-api/kettles.md", "query parameter of GET /kettles") in by_page
    assert not any(RAW_TAG.search(d["description"]) for d in data["definitions"])
    # The text a model reads says the same.
    text = result.content[0].text
    assert "nameMatchMode is defined by 3 operations or schemas:" in text
    assert "- query parameter of GET /pots (string; optional; one of START, END" in text


def test_a_property_names_its_schema_and_candidates_carry_details(client: McpClient) -> None:
    data = structured(client.call("lookup_identifier", {"identifier": '"capacity"'}))
    (capacity,) = data["definitions"]
    assert capacity["of"] == "property of AddPotRequest"
    assert (capacity["schema_name"], capacity["location"]) == ("AddPotRequest", "body")
    assert (capacity["type"], capacity["format"]) == ("integer (int64)", "int64")
    best = data["candidates"][0]
    assert best["owner"] == "AddPotRequest" and best["params"][0]["format"] == "int64"

    # An operation's candidate carries each parameter's values and default.
    op = structured(client.call("lookup_identifier", {"identifier": "findPots"}))["candidates"][0]
    mode = next(p for p in op["params"] if p["name"] == "nameMatchMode")
    assert mode["enum"] == ["START", "END", "ANYWHERE", "EXACT"] and mode["default"] == "ANYWHERE"
    assert (
        structured(client.call("lookup_identifier", {"identifier": "findPots"}))["definitions"]
        == []
    )


def test_bad_identifiers_get_an_empty_parameter_view(client: McpClient) -> None:
    # (A lone surrogate cannot be sent as JSON text; the engine test covers it.)
    for identifier in ("x" * 10_000, "name\x00Match\x1fMode", "{}[]()"):
        data = structured(client.call("lookup_identifier", {"identifier": identifier}))
        assert data["definitions"] == [] or data["definitions_total"] >= len(data["definitions"])


def test_an_endpoint_is_one_candidate_with_its_other_pages(client: McpClient) -> None:
    data = structured(client.call("lookup_identifier", {"identifier": "GET /pots"}))
    gets = [c for c in data["candidates"] if c["name"] == "GET /pots"]
    assert len(gets) == 1 and gets[0]["file"] == "teapot-api/pots.md"
    assert [p["file"] for p in gets[0]["also_documented_in"]] == ["client/pots-api.md"]


def test_examples_deprecations_and_web_addresses_reach_an_agent(client: McpClient) -> None:
    result = client.call("lookup_identifier", {"identifier": "findPots"})
    op = structured(result)["candidates"][0]
    assert op["url"] == f"{PORTAL}/pots#get-pots"  # the portal's anchor, not the page's
    params = {p["name"]: p for p in op["params"]}
    assert params["limit"]["example"] == "25" and params["session"]["deprecated"]
    # The text a model reads lists what a call needs to write each parameter, and the link.
    text = result.content[0].text
    assert f"{PORTAL}/pots#get-pots" in text
    assert "nameMatchMode (query; START|END|ANYWHERE|EXACT; default ANYWHERE)" in text
    assert "limit (query; default 100; e.g. 25)" in text and "session (cookie; deprecated)" in text

    limit = client.call("lookup_identifier", {"identifier": "limit"})
    (definition,) = structured(limit)["definitions"]
    assert (definition["example"], definition["url"]) == ("25", f"{PORTAL}/pots#get-pots")
    assert "(integer (int32); optional; default 100; e.g. 25)" in limit.content[0].text

    search = client.call(  # the whole passage: answers cut passages at 300 characters by default
        "search_docs", {"query": "Find pots", "mode": "keyword", "top_k": 10, "max_chars": 4000}
    )
    hit = next(h for h in structured(search)["hits"] if h["heading"] == "Pots > Find pots")
    assert hit["url"] == f"{PORTAL}/pots#get-pots"
    assert f"{PORTAL}/pots#get-pots" in search.content[0].text
    assert "Example: `25`." in hit["text"]  # the page's row, as the passage shows it
