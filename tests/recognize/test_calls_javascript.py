"""JavaScript and TypeScript client code: fetch, axios (verbs, config calls, instances)."""

from __future__ import annotations

import pytest

from tests.recognize.cursor import line_with, read

FETCH = """\
const base = process.env.COLLIBRA_URL || "https://acme.collibra.com";
const API = `${base}/rest/2.0`;

// fetch(`${API}/assets`) is what the old version did
export async function createAsset(name, domainId) {
  const response = await fetch(`${API}/assets`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: name, domainId, typeId: "00000000-0000-0000-0000-000000031302" }),
  });
  return response.json();
}

export async function searchAssets(name) {
  const url = API + "/assets?" + new URLSearchParams({ name, nameMatchMode: "ANYWHERE" });
  return (await fetch(url)).json();
}

export async function getAsset(id) {
  return (await fetch(`${API}/assets/${id}`)).json();
}
"""


def test_fetch_body_keys_and_the_method_from_the_options() -> None:
    site = read(FETCH, "javascript", "name: name")
    assert site is not None
    assert (site.method, site.role, site.name, site.client) == ("POST", "body", "name", "http")
    # `a || b`: the literal side is the URL the code falls back to.
    assert site.url == "https://acme.collibra.com/rest/2.0/assets"
    assert site.path_keys == ("name", "domainId", "typeId")
    shorthand = read(FETCH, "javascript", "domainId, typeId")
    assert shorthand is not None
    assert (shorthand.role, shorthand.name) == ("body", "domainId")
    header = read(FETCH, "javascript", '"Content-Type"')
    assert header is not None
    assert (header.role, header.name) == ("header", "Content-Type")


def test_fetch_defaults_to_get_and_reads_path_parameters() -> None:
    site = read(FETCH, "javascript", "${id}", into=2)
    assert site is not None
    assert (site.method, site.role, site.name, site.url) == (
        "GET",
        "path",
        "id",
        "https://acme.collibra.com/rest/2.0/assets/{}",
    )
    endpoint = read(FETCH, "javascript", "/assets/${id}")
    assert endpoint is not None
    assert (endpoint.method, endpoint.role) == ("GET", "endpoint")


def test_url_search_params_in_the_url_are_query_keys() -> None:
    site = read(FETCH, "javascript", "nameMatchMode")
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "query", "nameMatchMode")
    assert site.url == "https://acme.collibra.com/rest/2.0/assets"
    assert line_with(FETCH, "nameMatchMode")[site.start : site.end] == "nameMatchMode"


def test_a_comment_is_no_call() -> None:
    assert read(FETCH, "javascript", "/assets`) is what") is None


AXIOS = """\
import axios from "axios";

const BASE_URL = "https://acme.collibra.com/rest/2.0";
const collibra = axios.create({ baseURL: BASE_URL, timeout: 10000 });

export async function run(communityId: string, ids: string[]): Promise<void> {
  await axios.post(`${BASE_URL}/domains`, { name: "Sales", communityId }, { params: { validate: true } });
  await axios.get(`${BASE_URL}/domains`, { params: { communityId, excludeMeta: true } });
  await axios({ method: "delete", url: `${BASE_URL}/domains/bulk`, data: { domainIds: ids } });
  const filters = { typeIds: ids };
  await collibra.get("/assets", { params: filters });
  const lookup = new Map<string, string>();
  lookup.get("/assets");
}
"""


@pytest.mark.parametrize("language", ["typescript", "javascript"])
def test_axios_body_and_config_params(language: str) -> None:
    code = (
        AXIOS
        if language == "typescript"
        else AXIOS.replace(": string[]", "")
        .replace(": string", "")
        .replace("): Promise<void>", ")")
        .replace("<string, string>", "")
    )
    body = read(code, language, 'name: "Sales"')
    assert body is not None
    assert (body.method, body.role, body.name) == ("POST", "body", "name")
    assert body.url == "https://acme.collibra.com/rest/2.0/domains"
    assert body.language == language
    query = read(code, language, "validate")
    assert query is not None
    assert (query.method, query.role, query.name) == ("POST", "query", "validate")
    get = read(code, language, "excludeMeta")
    assert get is not None
    assert (get.method, get.role, get.name) == ("GET", "query", "excludeMeta")


def test_an_axios_config_call() -> None:
    site = read(AXIOS, "typescript", "domainIds")
    assert site is not None
    assert (site.method, site.role, site.name) == ("DELETE", "body", "domainIds")
    assert site.url == "https://acme.collibra.com/rest/2.0/domains/bulk"
    endpoint = read(AXIOS, "typescript", "/domains/bulk")
    assert endpoint is not None
    assert (endpoint.method, endpoint.role) == ("DELETE", "endpoint")


def test_an_axios_instance_base_url_and_params_built_before() -> None:
    site = read(AXIOS, "typescript", "typeIds")
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "query", "typeIds")
    assert site.url == "https://acme.collibra.com/rest/2.0/assets"


def test_a_map_get_and_a_server_route_are_no_requests() -> None:
    assert read(AXIOS, "typescript", '"/assets");') is None
    route = 'router.get("/rest/2.0/assets", (req, res) => res.json([]));\n'
    assert read(route, "javascript", "assets") is None


def test_a_generated_typescript_client() -> None:
    code = "const page = await assetApi.findAssets({ name: 'x', nameMatchMode: 'EXACT' });\n"
    site = read(code, "typescript", "nameMatchMode")
    assert site is not None
    assert (site.client, site.operation, site.role, site.name) == (
        "sdk",
        "findAssets",
        "query",
        "nameMatchMode",
    )
    operation = read(code, "typescript", "findAssets")
    assert operation is not None
    assert (operation.role, operation.name) == ("operation", "findAssets")
