"""Resolving a call in client code to its operation and parameter (`Engine.resolve_call`), over
a bundle built from a small OpenAPI spec (tests/calls_bundle.py). The calls are read by the real
tree-sitter readers."""

from __future__ import annotations

import pytest

from atlas_core.engine import Engine
from atlas_core.identifiers.lookup.call_target import CallTarget
from atlas_core.recognize.calls import CallSite
from tests.recognize.cursor import read


def resolve(engine: Engine, code: str, language: str, needle: str, into: int = 1) -> CallTarget:
    site = read(code, language, needle, into=into)
    assert site is not None, f"no call read at {needle!r}"
    target = engine.resolve_call(site)
    assert target is not None, f"{site} resolved to nothing"
    return target


REQUESTS = """\
import requests

BASE = "https://acme.example.com/rest/2.0"


def find(domain_id):
    return requests.get(BASE + "/assets", params={"domainId": domain_id, "nameMatchMode": "EXACT"})


def remove(ids):
    return requests.delete(f"{BASE}/domains/bulk", json=ids)


def add(domains):
    return requests.post(f"{BASE}/domains/bulk", json=domains)
"""


def test_a_params_key_is_the_query_parameter_of_the_get_operation(engine: Engine) -> None:
    target = resolve(engine, REQUESTS, "python", "domainId")
    assert target.endpoint == "GET /assets"
    assert target.param is not None
    assert (target.param.name, target.param.location) == ("domainId", "query")
    assert target.param.type == "string (uuid)"
    assert "domain" in target.param.description
    assert target.label == "query parameter of GET /assets"
    assert target.client_name == ""  # a REST call writes the wire name


def test_a_rest_call_shows_the_spec_page_and_lists_each_other_page_once(engine: Engine) -> None:
    target = resolve(engine, REQUESTS, "python", "/assets", into=2)
    # The Python client's page (find_assets, domain_id) ranks first for the bare path; a
    # requests call writes the API's names, so the spec's page leads.
    assert (target.endpoint, target.operation.operation_id) == ("GET /assets", "findAssets")
    files = [page.file for page in target.pages]
    assert files == ["assets-api.md"], files
    param = resolve(engine, REQUESTS, "python", "domainId")
    assert param.operation.operation_id == "findAssets" and param.param is not None
    assert param.param.name == "domainId"


def test_the_calls_method_picks_the_operation_of_a_path(engine: Engine) -> None:
    assert resolve(engine, REQUESTS, "python", "bulk", into=2).endpoint == "DELETE /domains/bulk"
    add = read(REQUESTS, "python", "bulk", into=2)
    assert add is not None and add.method == "DELETE"
    post = read(REQUESTS, "python", '"{BASE}/domains/bulk", json=domains', into=5)
    assert post is not None
    target = engine.resolve_call(post)
    assert target is not None and target.endpoint == "POST /domains/bulk"


SESSION = """\
import requests

API = "https://acme.example.com/rest/2.0"
session = requests.Session()


def start(definition_id, asset_ids):
    body = {
        "workflowDefinitionId": definition_id,
        "businessItemIds": asset_ids,
        "businessItemType": "ASSET",
    }
    return session.post(API + "/workflowInstances", json=body)


def relate(source, target):
    return session.post(f"{API}/relations", json={"sourceId": source, "targetId": target})
"""


def test_a_json_key_built_before_the_call_is_a_request_body_property(engine: Engine) -> None:
    target = resolve(engine, SESSION, "python", "businessItemType")
    assert target.endpoint == "POST /workflowInstances"  # not GET, the find operation
    assert target.param is not None
    assert (target.param.name, target.param.location) == ("businessItemType", "body")
    assert target.schema == "StartWorkflowInstancesRequest"
    assert target.label == "request body property of POST /workflowInstances"
    # The table's row of that property: its values, and where it is documented.
    d = target.definition
    assert d is not None
    assert (d.kind, d.owner, d.enum) == (
        "property",
        "StartWorkflowInstancesRequest",
        ("ASSET", "DOMAIN", "COMMUNITY"),
    )
    assert d.file.endswith("schemas.md") and d.line > 0


def test_a_parameter_carries_its_definition_for_that_operation(engine: Engine) -> None:
    code = 'requests.get(BASE + "/relations", params={"sourceId": s})\n'
    d = resolve(engine, code, "python", "sourceId").definition
    assert d is not None
    assert (d.kind, d.location, d.method, d.path) == ("parameter", "query", "GET", "/relations")
    sdk = 'page = assets_api.find_assets(name_match_mode="EXACT")\n'
    d = resolve(engine, sdk, "python", "name_match_mode").definition
    assert d is not None and (d.name, d.default) == ("nameMatchMode", "ANYWHERE")
    assert d.enum == ("START", "END", "ANYWHERE", "EXACT")


def test_a_post_to_a_path_with_a_get_is_the_post(engine: Engine) -> None:
    target = resolve(engine, SESSION, "python", "sourceId")
    assert target.endpoint == "POST /relations"
    assert target.param is not None and target.param.location == "body"
    endpoint = resolve(engine, SESSION, "python", "/relations", into=2)
    assert endpoint.endpoint == "POST /relations" and endpoint.param is None


def test_a_generated_client_call_maps_its_names_to_the_wire_names(engine: Engine) -> None:
    code = 'page = assets_api.find_assets(name="Customer", name_match_mode="EXACT")\n'
    target = resolve(engine, code, "python", "name_match_mode")
    assert target.endpoint == "GET /assets"
    assert "assets-api.md" in [target.operation.file, *(p.file for p in target.pages)]
    assert target.param is not None and target.param.name == "nameMatchMode"
    assert target.client_name == "name_match_mode"
    operation = resolve(engine, code, "python", "find_assets")
    assert operation.endpoint == "GET /assets" and operation.param is None
    # The client's own page first: it spells the operation as the code does.
    assert operation.operation.operation_id == "find_assets"


def test_a_fetch_body_key_is_a_request_body_property(engine: Engine) -> None:
    code = """\
async function addAsset(base, name, domainId) {
  const response = await fetch(`${base}/rest/2.0/assets`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, domainId, typeId: "00000000-0000-0000-0000-000000031302" }),
  });
  return response.json();
}
"""
    target = resolve(engine, code, "javascript", "typeId")
    assert target.endpoint == "POST /assets"
    assert target.param is not None and (target.param.name, target.schema) == (
        "typeId",
        "AddAssetRequest",
    )


def test_a_groovy_builder_method_is_the_parameter_of_the_client_operation(engine: Engine) -> None:
    code = """\
def found = assetApi.findAssets(FindAssetsRequest.builder()
        .name("Customer")
        .nameMatchMode("EXACT")
        .build())
"""
    target = resolve(engine, code, "groovy", "nameMatchMode")
    assert target.endpoint == "GET /assets"
    assert target.param is not None and target.param.location == "query"


def test_a_path_parameter_and_a_base_the_docs_do_not_spell(engine: Engine) -> None:
    code = 'r = httpx.get(f"https://acme.example.com/api/v1/domains/{domain_id}")\n'
    target = resolve(engine, code, "python", "domains")
    assert target.endpoint == "GET /domains/{domainId}"
    curl = "curl -X DELETE https://acme.example.com/rest/2.0/domains/bulk -d @ids.json\n"
    assert resolve(engine, curl, "shell", "bulk").endpoint == "DELETE /domains/bulk"


def test_a_resource_name_is_never_dropped_as_a_base(engine: Engine) -> None:
    # GET /relations exists, GET /assets/{id}/relations does not.
    code = 'requests.get(f"{BASE}/assets/{asset_id}/relations", params={"sourceId": s})\n'
    site = read(code, "python", "sourceId")
    assert site is not None and site.role == "query"
    assert engine.resolve_call(site) is None


def test_a_method_the_path_does_not_document_resolves_nothing(engine: Engine) -> None:
    code = 'requests.patch(BASE + "/relations", json={"sourceId": s})\n'
    site = read(code, "python", "relations")
    assert site is not None and site.method == "PATCH"
    assert engine.resolve_call(site) is None


def test_an_undocumented_key_leaves_the_operation_without_a_parameter(engine: Engine) -> None:
    code = 'requests.get(BASE + "/assets", params={"colour": "blue"})\n'
    target = resolve(engine, code, "python", "colour")
    assert target.endpoint == "GET /assets" and target.param is None


@pytest.mark.parametrize(
    "name", ["x" * 10_000, "name\x00\x07Match", "\ud800domainId", "", "{}", "../.."]
)
def test_bad_names_and_urls_answer_empty(engine: Engine, name: str) -> None:
    for role, url in (("query", "/rest/2.0/assets"), ("body", name), ("endpoint", name)):
        site = CallSite("GET", url, role, name, 0, 1, "http", "python")
        target = engine.resolve_call(site)
        assert target is None or target.param is None
    sdk = CallSite("", "", "query", name, 0, 1, "sdk", "python", operation=name)
    assert engine.resolve_call(sdk) is None


def test_a_path_joined_to_an_unseen_base_without_its_slash(engine: Engine) -> None:
    """``cfg.base + "assets"``: the base (from a config module) ends in the slash."""
    code = 'import requests\nimport cfg\nrequests.get(cfg.base + "assets?domainId=" + d)\n'
    target = resolve(engine, code, "python", "assets?")
    assert target.endpoint == "GET /assets"


def test_another_rest_apis_path_names_no_operation(engine: Engine) -> None:
    """Atlassian's ``/rest/api/2/...`` and Collibra's older ``/rest/1.0/...`` are other APIs: a
    path ending like a documented one under them is not that operation."""
    for url in (
        "https://tracker.example.com/rest/api/2/assets",
        "https://tracker.example.com/rest/latest/relations",
        "https://acme.example.com/rest/1.0/assets",
    ):
        code = f'import requests\nrequests.get("{url}")\n'
        site = read(code, "python", url.rsplit("/", 1)[1])
        assert site is not None and engine.resolve_call(site) is None, url
    code = 'import requests\nrequests.get("https://acme.example.com/rest/2.0/assets")\n'
    site = read(code, "python", "assets")
    assert site is not None and engine.resolve_call(site) is not None
