"""OpenAPI source: tags become reference pages, operations and schemas become identifier entries
pointing at their sections; `$ref`s resolve; invalid specs are clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from atlas_core.errors import OpenAPIError
from atlas_core.markdown.chunker import chunk_documents, heading_anchors
from atlas_core.sources import load_sources
from tests.parameter_fixtures import PORTAL, write_spec

SPEC = Path(__file__).resolve().parents[1] / "fixtures" / "sources" / "kettle-api.yaml"


def entries(source_set):
    return {(e.kind, e.name): e for doc in source_set.documents for e in doc.identifiers}


def test_pages_per_tag_schemas_and_untagged(kettle):
    docs = {doc.path: doc for doc in kettle.documents}
    assert set(docs) == {
        "kettle-api/brews.md",
        "kettle-api/kettle-settings.md",
        "kettle-api/schemas.md",
        "kettle-api/untagged.md",
    }
    brews = docs["kettle-api/brews.md"]
    assert brews.publication == "kettle-control-api"
    assert brews.source == "openapi"
    assert brews.title.startswith("Brews")
    assert brews.url == "https://docs.example.test/api/kettle"
    assert brews.text.startswith("# Brews\n")
    assert "Start, watch and stop **brews**." in brews.text  # HTML in the spec cleaned
    assert "`GET /brews/{brewId}` · operationId `getBrew`" in brews.text
    assert "| `brewId` | path | `string (uuid)` | yes | The ID of the brew |" in brews.text
    assert "| `limit` | query | `integer (int32)` | no |" in brews.text  # $ref parameter
    assert "`StartBrewRequest`" in brews.text  # $ref requestBody -> schema name
    assert "| 201 | The new brew | `Brew` |" in brews.text  # $ref response
    assert "**Deprecated.** Use `POST /brews/{brewId}/stop` instead." in brews.text
    assert "## Ping" in docs["kettle-api/untagged.md"].text

    (description,) = kettle.descriptions
    assert description["kind"] == "openapi"
    assert description["title"] == "Kettle Control API"
    assert description["version"] == "1.4"
    assert description["base_path"] == "/rest/1.0"
    assert (description["paths"], description["operations"], description["schemas"]) == (4, 6, 6)


def test_identifier_entries_point_at_their_sections(kettle):
    found = entries(kettle)
    for doc in kettle.documents:
        anchors = heading_anchors(doc.text)
        lines = doc.text.split("\n")
        for entry in doc.identifiers:
            if entry.kind in ("parameter", "property"):
                # A parameter points at its own table row, in the section of its owner.
                assert lines[entry.line - 1].startswith(f"| `{entry.name}` |"), entry
                section = max(n for n in anchors if n < entry.line)
                assert anchors[section] == entry.anchor
            else:
                assert lines[entry.line - 1].startswith("## "), entry
                assert anchors[entry.line] == entry.anchor

    get = found[("endpoint", "GET /brews/{brewId}")]
    assert (get.method, get.path, get.operation_id) == ("GET", "/brews/{brewId}", "getBrew")
    assert get.response_schema == "Brew"
    assert get.params[0].name == "brewId" and get.params[0].required  # path-level parameter
    assert get.url == "https://docs.example.test/api/kettle#get-brew"
    assert found[("operation", "getBrew")].line == get.line

    start = found[("operation", "startBrew")]
    assert start.request_schema == "StartBrewRequest"
    assert [(p.name, p.location, p.required) for p in start.params] == [("body", "body", True)]

    settings = found[("endpoint", "PATCH /settings")]
    assert [(p.name, p.location) for p in settings.params] == [("unit", "body")]

    cancel = found[("endpoint", "DELETE /brews/{brewId}")]
    assert cancel.deprecated and cancel.replacement == "POST /brews/{brewId}/stop"

    brew = found[("schema", "Brew")]
    assert brew.file == "kettle-api/schemas.md" and brew.anchor == "brew"
    assert brew.summary == "One brew of the kettle."
    assert {p.name: p.type for p in brew.params}["previous"] == "Brew"  # self-reference is fine
    assert found[("schema", "BrewPage")].params[0].type == "array[Brew]"
    start_request = found[("schema", "StartBrewRequest")]
    # allOf: the $ref'd part's properties are listed with the schema's own, required as stated.
    assert [(p.name, p.required) for p in start_request.params] == [
        ("quiet", False),
        ("target", True),
    ]


def test_generated_pages_chunk_one_operation_per_chunk(kettle):
    brews = next(doc for doc in kettle.documents if doc.path.endswith("brews.md"))
    chunks = chunk_documents([brews], count_tokens=lambda t: len(t.split()), max_tokens=400)
    headings = [c.heading for c in chunks]
    assert headings == [
        "Brews",
        "Brews > Find brews",
        "Brews > Start a brew",
        "Brews > Get brew",
        "Brews > Cancel brew",
    ]
    ids = {e.anchor for e in brews.identifiers}
    assert {c.anchor for c in chunks[1:]} == ids


# --- web addresses ------------------------------------------------------------------------------


def _entries(result) -> list:
    return [e for doc in result.documents for e in doc.identifiers]


def test_a_portal_gives_each_operation_and_schema_its_web_address(tmp_path: Path):
    result = load_sources([f"openapi={write_spec(tmp_path)}#{PORTAL}"])
    found = entries(result)
    assert found[("endpoint", "GET /pots")].url == f"{PORTAL}/pots#get-pots"
    assert found[("operation", "changePot")].url == f"{PORTAL}/pots#patch-pots-potid"
    assert found[("schema", "AddPotRequest")].url == f"{PORTAL}/models#the-addpotrequest-object"
    by_owner = {(e.name, e.method or e.owner): e.url for e in _entries(result)}
    assert by_owner[("nameMatchMode", "GET")] in (
        f"{PORTAL}/pots#get-pots",
        f"{PORTAL}/kettles#get-kettles",
    )
    assert by_owner[("capacity", "AddPotRequest")] == f"{PORTAL}/models#the-addpotrequest-object"
    assert all(e.url.startswith(PORTAL) for e in _entries(result))
    docs = {doc.path: doc for doc in result.documents}
    assert docs["teapot-api/pots.md"].url == f"{PORTAL}/pots"
    assert docs["teapot-api/schemas.md"].url == f"{PORTAL}/models"
    (description,) = result.descriptions
    assert (description["web"], description["web_url"]) == ("portal", PORTAL)

    # A passage of an operation's or a schema's section links where the portal documents it,
    # not the generated page's own anchor.
    chunks = chunk_documents(
        list(docs.values()), count_tokens=lambda t: len(t.split()), max_tokens=400
    )
    urls = {c.heading: c.url for c in chunks}
    assert urls["Pots > Find pots"] == f"{PORTAL}/pots#get-pots"
    assert urls["Kettles > Find kettles"] == f"{PORTAL}/kettles#get-kettles"
    assert urls["Schemas of the Teapot API > Pot"] == f"{PORTAL}/models#the-pot-object"


def test_the_spec_files_own_address_links_by_json_pointer(tmp_path: Path):
    url = "https://pot.example.test/specs/teapot-api.json"
    result = load_sources([f"openapi={write_spec(tmp_path)}#{url}"])
    found = entries(result)
    assert found[("endpoint", "GET /pots")].url == f"{url}#/paths/~1pots/get"
    assert found[("endpoint", "PATCH /pots/{potId}")].url == f"{url}#/paths/~1pots~1{{potId}}/patch"
    assert found[("schema", "Pot")].url == f"{url}#/components/schemas/Pot"
    assert result.descriptions[0]["web"] == "spec"

    # Without a URL or externalDocs nothing is made up; a `#` not followed by a web address is
    # part of the file name.
    plain = load_sources([f"openapi={_write(tmp_path, MINIMAL, 'my#api.json')}"])
    assert all(e.url == "" for e in _entries(plain))
    assert "web" not in plain.descriptions[0]


COLLIBRA_IMPORT = {
    "openapi": "3.0.0",
    "info": {"title": "Collibra Import API", "version": "2.0"},
    "paths": {
        "/import/json-job": {
            "post": {"tags": ["Import"], "responses": {"200": {"description": "ok"}}}
        }
    },
}


def test_collibras_specs_link_to_its_developer_portal_by_title(tmp_path: Path):
    portal = "https://developer.collibra.com/api/references/import"
    (endpoint,) = _entries(load_sources([f"openapi={_write(tmp_path, COLLIBRA_IMPORT)}"]))
    assert endpoint.url == f"{portal}/import#post-import-json-job"
    # The source's own URL wins.
    own = load_sources([f"openapi={_write(tmp_path, COLLIBRA_IMPORT)}#{PORTAL}/"])
    assert _entries(own)[0].url == f"{PORTAL}/import#post-import-json-job"


# --- bad input ----------------------------------------------------------------------------------


def _write(tmp_path: Path, spec: dict, name: str = "api.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(spec) if name.endswith(".json") else yaml.safe_dump(spec))
    return path


MINIMAL = {
    "openapi": "3.0.0",
    "info": {"title": "T", "version": "1"},
    "paths": {"/x": {"get": {"responses": {"200": {"description": "ok"}}}}},
}


def test_swagger_2_is_refused(tmp_path: Path):
    path = _write(tmp_path, {"swagger": "2.0", "info": {}, "paths": {"/x": {}}})
    with pytest.raises(OpenAPIError) as err:
        load_sources([f"openapi={path}"])
    assert "not OpenAPI 3" in err.value.message and "swagger 2.0" in err.value.message
    assert "swagger2openapi" in (err.value.hint or "")


def test_no_paths(tmp_path: Path):
    path = _write(tmp_path, {**MINIMAL, "paths": {}}, "api.yaml")
    with pytest.raises(OpenAPIError, match="no paths"):
        load_sources([f"openapi={path}"])


def test_broken_ref_names_the_pointer(tmp_path: Path):
    spec = json.loads(json.dumps(MINIMAL))
    spec["paths"]["/x"]["get"]["responses"]["200"]["content"] = {
        "application/json": {"schema": {"$ref": "#/components/schemas/Missing"}}
    }
    path = _write(tmp_path, spec)
    with pytest.raises(OpenAPIError) as err:
        load_sources([f"openapi={path}"])
    assert "#/components/schemas/Missing" in err.value.message
    assert "#/paths/~1x/get/responses/200/content/application~1json/schema" in err.value.message


def test_circular_ref_chain(tmp_path: Path):
    spec = json.loads(json.dumps(MINIMAL))
    spec["components"] = {
        "parameters": {
            "A": {"$ref": "#/components/parameters/B"},
            "B": {"$ref": "#/components/parameters/A"},
        }
    }
    spec["paths"]["/x"]["get"]["parameters"] = [{"$ref": "#/components/parameters/A"}]
    path = _write(tmp_path, spec)
    with pytest.raises(OpenAPIError, match="circular \\$ref"):
        load_sources([f"openapi={path}"])


def test_syntax_errors_name_the_line(tmp_path: Path):
    bad_json = tmp_path / "api.json"
    bad_json.write_text('{\n  "openapi": "3.0.0",\n  "paths": {,\n}\n')
    with pytest.raises(OpenAPIError) as err:
        load_sources([f"openapi={bad_json}"])
    assert "api.json:3" in err.value.message
    bad_yaml = tmp_path / "api.yaml"
    bad_yaml.write_text("openapi: 3.0.0\npaths:\n  /x: [unclosed\n")
    with pytest.raises(OpenAPIError) as err:
        load_sources([f"openapi={bad_yaml}"])
    assert "api.yaml:" in err.value.message and "YAML" in err.value.message


def test_missing_and_empty_spec(tmp_path: Path):
    with pytest.raises(OpenAPIError, match="no such file"):
        load_sources([f"openapi={tmp_path / 'absent.yaml'}"])
    empty = tmp_path / "empty.yaml"
    empty.write_text("   \n")
    with pytest.raises(OpenAPIError, match="empty"):
        load_sources([f"openapi={empty}"])


def test_operation_without_tags_ids_or_summaries(tmp_path: Path):
    path = _write(tmp_path, MINIMAL, "api.yaml")
    result = load_sources([f"openapi={path}"])
    (doc,) = result.documents
    assert doc.path == "api/untagged.md"
    found = entries(result)
    assert set(found) == {("endpoint", "GET /x")}  # no operationId, no operation entry
    assert doc.text.split("\n")[found[("endpoint", "GET /x")].line - 1] == "## GET /x"


def test_description_cannot_break_page_structure(tmp_path: Path):
    spec = json.loads(json.dumps(MINIMAL))
    spec["paths"]["/x"]["get"]["summary"] = "Get x"
    spec["paths"]["/x"]["get"]["description"] = (
        "# Not a heading\n\nUnderlined\n---\n\n```\nopen fence"
    )
    spec["paths"]["/y"] = {"get": {"summary": "Get y", "responses": {"200": {"description": "y"}}}}
    path = _write(tmp_path, spec)
    (doc,) = load_sources([f"openapi={path}"]).documents
    assert list(heading_anchors(doc.text).values()) == ["untagged-operations", "get-x", "get-y"]


# --- the real Collibra specs ----------------------------------------------------------------------


@pytest.mark.shared
def test_collibra_core_api(shared_dir: Path):
    spec_path = shared_dir / "collibra-openapi" / "dgc-rest.json"
    raw = json.loads(spec_path.read_text())
    operations = sum(
        1
        for item in raw["paths"].values()
        for method in item
        if method in ("get", "post", "put", "patch", "delete", "head")
    )
    result = load_sources([f"openapi={spec_path}"])
    (description,) = result.descriptions
    assert description["paths"] == 167
    assert description["operations"] == operations
    assert description["base_path"] == "/rest/2.0"
    found = entries(result)
    endpoints = [e for (kind, _), e in found.items() if kind == "endpoint"]
    assert len(endpoints) == operations
    assert len({e.path for e in endpoints}) == 167
    assert sum(1 for kind, _ in found if kind == "schema") == len(raw["components"]["schemas"])
    get_asset = found[("endpoint", "GET /assets/{assetId}")]
    assert get_asset.operation_id == "getAsset"
    assert get_asset.response_schema == "Asset"
    assert found[("operation", "findAssets")].path == "/assets"
    assert any(e.deprecated for e in endpoints)
    docs = {doc.path: doc for doc in result.documents}
    for entry in found.values():
        line = docs[entry.file].text.split("\n")[entry.line - 1]
        # Parameters and properties point at their own table row; the rest at a section heading.
        expected = f"| `{entry.name}` |" if entry.kind in ("parameter", "property") else "## "
        assert line.startswith(expected), entry

    # Values, defaults and the developer portal's address reach entries and pages.
    find = found[("endpoint", "GET /assets")]
    mode = next(p for p in find.params if p.name == "nameMatchMode")
    assert (mode.enum, mode.default) == (("START", "END", "ANYWHERE", "EXACT"), "ANYWHERE")
    portal = "https://developer.collibra.com/api/references/data-governance"
    assert find.url == f"{portal}/assets#get-assets"
    assert get_asset.url == f"{portal}/assets#get-assets-assetid"
    assert found[("schema", "Job")].url == f"{portal}/models#the-job-object"
    assert all(e.url.startswith(portal) for e in found.values())
    rows = [
        line for line in docs["dgc-rest/assets.md"].text.split("\n") if "`nameMatchMode`" in line
    ]
    assert rows and all(
        "Values: `START`, `END`, `ANYWHERE`, `EXACT`. Default: `ANYWHERE`." in row for row in rows
    )
    schemas = docs["dgc-rest/schemas.md"].text
    job_state = next(
        line
        for line in schemas.split("\n")[found[("schema", "Job")].line :]
        if line.startswith("| `state` |")
    )
    assert "`WAITING`, `RUNNING`, `CANCELING`, `COMPLETED`, `CANCELED`, `ERROR`" in job_state
    assert "Example: `COMPLETED`." in job_state


@pytest.mark.shared
def test_collibra_import_api(shared_dir: Path):
    result = load_sources([f"openapi={shared_dir / 'collibra-openapi' / 'dgc-importer-rest.json'}"])
    (description,) = result.descriptions
    assert description["paths"] == 16 and description["operations"] == 16
    pages = {doc.path for doc in result.documents}
    assert "dgc-importer-rest/import.md" in pages and "dgc-importer-rest/schemas.md" in pages
