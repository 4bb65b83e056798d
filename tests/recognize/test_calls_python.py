"""Python client code: requests, httpx, session wrappers, dicts built before the call, URLs built
from bases, and generated clients."""

from __future__ import annotations

import pytest

from atlas_core.engine import Engine
from tests.recognize.cursor import line_with, read

SYNC_SCRIPT = '''\
"""Nightly glossary sync. Use POST /communities/removalJobs to clean up by hand."""
import os
from urllib.parse import urljoin

import requests

BASE = os.environ.get("COLLIBRA_URL", "https://acme.collibra.com") + "/rest/2.0"
session = requests.Session()


def find_terms(domain_id, prefix):
    # requests.get("/rest/2.0/assets") used to be called here
    params = {"domainId": domain_id, "name": prefix}
    params["nameMatchMode"] = "START"
    response = session.get(f"{BASE}/assets", params=params, timeout=30)
    return response.json()["results"]


def rename(asset_id, name):
    return requests.patch(BASE + "/assets/" + asset_id, json={"name": name, "statusId": None})


def upload(asset_id, payload):
    return session.post(urljoin(BASE + "/", "attachments"), data={"fileName": "a.csv"})


def relate(source, target):
    return requests.request(
        "POST", "/".join([BASE, "relations"]), json={"sourceId": source, "targetId": target}
    )


def remove(ids):
    return requests.delete(f"{BASE}/domains/bulk", json=ids, headers={"X-Requested-By": "sync"})
'''


def test_query_keys_of_a_dict_built_before_the_call() -> None:
    site = read(SYNC_SCRIPT, "python", '"domainId"')
    assert site is not None
    assert (site.method, site.role, site.name, site.client) == ("GET", "query", "domainId", "http")
    assert site.url == "{}/rest/2.0/assets"
    assert site.path_keys == ("domainId", "name", "nameMatchMode")


def test_a_key_added_by_subscript_maps_to_the_same_call() -> None:
    site = read(SYNC_SCRIPT, "python", '"nameMatchMode"')
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "query", "nameMatchMode")
    assert site.url.endswith("/rest/2.0/assets")
    line = line_with(SYNC_SCRIPT, 'params["nameMatchMode"]')
    assert line[site.start : site.end] == "nameMatchMode"


def test_the_endpoint_under_the_cursor() -> None:
    site = read(SYNC_SCRIPT, "python", '{BASE}/assets"', into=8)
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "endpoint", "")
    line = line_with(SYNC_SCRIPT, "{BASE}/assets")
    assert line[site.start : site.end] == "{BASE}/assets"


def test_concatenated_url_with_a_path_parameter() -> None:
    site = read(SYNC_SCRIPT, "python", "asset_id, json")
    assert site is not None
    assert (site.method, site.role, site.name) == ("PATCH", "path", "asset_id")
    assert site.url == "{}/rest/2.0/assets/{}"
    body = read(SYNC_SCRIPT, "python", '"statusId"')
    assert body is not None
    assert (body.method, body.role, body.name) == ("PATCH", "body", "statusId")
    assert body.path_keys == ("name", "statusId")


def test_data_keys_and_urljoin() -> None:
    site = read(SYNC_SCRIPT, "python", '"fileName"')
    assert site is not None
    assert (site.method, site.role, site.name) == ("POST", "body", "fileName")
    assert site.url == "{}/rest/2.0/attachments"


def test_request_with_the_method_as_an_argument_and_a_joined_url() -> None:
    site = read(SYNC_SCRIPT, "python", '"targetId"')
    assert site is not None
    assert (site.method, site.role, site.url) == ("POST", "body", "{}/rest/2.0/relations")


def test_the_http_method_of_the_call_is_kept() -> None:
    site = read(SYNC_SCRIPT, "python", "bulk")
    assert site is not None
    assert (site.method, site.role, site.url) == ("DELETE", "endpoint", "{}/rest/2.0/domains/bulk")
    header = read(SYNC_SCRIPT, "python", "X-Requested-By")
    assert header is not None
    assert (header.role, header.name) == ("header", "X-Requested-By")


def test_comments_and_docstrings_are_not_calls() -> None:
    assert read(SYNC_SCRIPT, "python", '/rest/2.0/assets")') is None
    assert read(SYNC_SCRIPT, "python", "removalJobs") is None
    assert read(SYNC_SCRIPT, "python", "POST /communities") is None


CLIENT_CLASS = """\
import httpx


class CatalogClient:
    def __init__(self, api: str, token: str):
        self.base = api + "/assets"
        self.http = httpx.Client(headers={"Authorization": f"Bearer {token}"})

    def _request(self, method, path, **kwargs):
        return self.http.request(method, self.base + path, **kwargs)

    def attributes(self, asset_id, type_id):
        return self.http.get(f"{self.base}/{asset_id}/attributes", params={"typeIds": [type_id]})

    def tags(self, asset_id):
        return self._request("GET", f"/{asset_id}/tags", params={"limit": 100})


catalog = httpx.Client(base_url="https://acme.collibra.com/rest/2.0")
statuses = catalog.get("/statuses", params={"name": "Approved"})
changed = httpx.Client().put("https://acme.collibra.com/rest/2.0/statuses/bulk", json=[{"id": 1}])
"""


def test_a_base_assigned_on_self_in_the_constructor() -> None:
    site = read(CLIENT_CLASS, "python", 'attributes"')
    assert site is not None
    assert (site.method, site.role, site.url) == ("GET", "endpoint", "{}/assets/{}/attributes")
    key = read(CLIENT_CLASS, "python", '"typeIds"')
    assert key is not None
    assert (key.method, key.role, key.name) == ("GET", "query", "typeIds")
    path = read(CLIENT_CLASS, "python", "{asset_id}/attributes")
    assert path is not None
    assert (path.role, path.name) == ("path", "asset_id")


def test_a_request_wrapper_of_the_same_class() -> None:
    site = read(CLIENT_CLASS, "python", '"limit"')
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "query", "limit")
    assert site.url == "{}/assets/{}/tags"


def test_an_httpx_client_base_url() -> None:
    site = read(CLIENT_CLASS, "python", '"Approved"', into=-3)
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "query", "name")
    assert site.url == "https://acme.collibra.com/rest/2.0/statuses"
    put = read(CLIENT_CLASS, "python", '"id"')
    assert put is not None
    assert (put.method, put.role, put.name) == ("PUT", "body", "id")


GENERATED = """\
from collibra_core import ApiClient, AssetApi

api = AssetApi(ApiClient())
page = api.find_assets(name="Customer", name_match_mode="EXACT", limit=10)
"""


def test_a_generated_python_client() -> None:
    site = read(GENERATED, "python", "name_match_mode")
    assert site is not None
    assert (site.client, site.operation, site.role, site.name) == (
        "sdk",
        "find_assets",
        "query",
        "name_match_mode",
    )
    assert site.path_keys == ("name", "name_match_mode", "limit")
    operation = read(GENERATED, "python", "find_assets")
    assert operation is not None
    assert (operation.role, operation.name, operation.method) == ("operation", "find_assets", "")


def test_ordinary_code_is_no_call() -> None:
    code = (
        'settings = {"timeout": 30}\n'
        'value = settings.get("timeout")\n'
        "routes = {}\n"
        'handler = routes.get("/rest/2.0/assets")\n'
        'print("/tmp")\n'
        '@app.get("/rest/2.0/assets")\n'
        "def list_assets(): ...\n"
    )
    assert read(code, "python", '"timeout"') is None
    assert read(code, "python", "get") is None
    assert read(code, "python", "/tmp") is None
    # A REST path in a string no request takes is still a path, read as the text reader reads
    # it (the method from the words around it), never tied to a call's keys.
    for occurrence in (1, 2):
        loose = read(code, "python", "/rest/2.0/assets", occurrence=occurrence, into=11)
        assert loose is not None
        assert (loose.role, loose.url, loose.path_keys) == ("endpoint", "/rest/2.0/assets", ())


@pytest.mark.parametrize("prefix", ["ü", "日本語", "😀😀", "é\u0301"])
def test_columns_are_code_points_after_non_ascii_text(prefix: str) -> None:
    code = f'import requests\nr = requests.get("/rest/2.0/assets", params={{"{prefix}": 1, "nameMatchMode": "EXACT"}})\n'
    site = read(code, "python", "nameMatchMode")
    assert site is not None
    assert (site.role, site.name) == ("query", "nameMatchMode")
    assert line_with(code, "nameMatchMode")[site.start : site.end] == "nameMatchMode"


def test_a_wrapper_with_a_keyword_only_separator_is_read() -> None:
    # ``*`` (and ``/``) in a parameter list has no name: reading the wrapper used to raise.
    code = (
        "import requests\n\n"
        "class C:\n"
        "    def _request(self, method, path, *, params=None):\n"
        '        return requests.request(method, "https://x.collibra.com/rest/2.0" + path, params=params)\n\n'
        "    def assets(self):\n"
        '        return self._request("GET", "/assets", params={"name": "x"})\n'
    )
    from atlas_core.recognize import scan_calls

    found = [(i.line, i.site.role, i.site.method, i.site.url) for i in scan_calls(code, "python")]
    assert (7, "endpoint", "GET", "https://x.collibra.com/rest/2.0/assets") in found


GROWN = """\
import requests

ROOT = "https://catalog.example.invalid/rest/2.0"


def find(name, mode):
    url = f"{ROOT}/assets"
    url = f"{url}?nameMatchMode={mode}"
    url = url + "&name=" + name
    return requests.get(url)


def rename(url):
    url = url + "?domainId=" + "x"
    return requests.get(url)
"""


def test_query_keys_added_to_a_url_after_it_is_built() -> None:
    for needle, key in (("nameMatchMode", "nameMatchMode"), ('"&name="', "name")):
        site = read(GROWN, "python", needle, into=2)
        assert site is not None, needle
        assert (site.method, site.role, site.name) == ("GET", "query", key)
        assert site.url == "https://catalog.example.invalid/rest/2.0/assets"
    endpoint = read(GROWN, "python", "/assets", into=2)
    assert endpoint is not None and endpoint.role == "endpoint"
    assert endpoint.url == "https://catalog.example.invalid/rest/2.0/assets"
    # A parameter's URL is the caller's: its key belongs to no URL the reader can see.
    unseen = read(GROWN, "python", "domainId", into=2)
    assert unseen is None or unseen.url.startswith("{}")


def test_checks_of_query_keys_added_after_the_url(engine: Engine) -> None:
    code = GROWN.replace("{mode}", "EXACTLY").replace('"&name="', '"&nam="')
    found = engine.check_code(code, "python")
    lines = code.splitlines()
    assert [(f.line, f.check, lines[f.line][f.start : f.end]) for f in found] == [
        (7, "bad-value", "EXACTLY"),
        (8, "unknown-param", "nam"),
    ]


def test_an_adapter_defined_elsewhere_names_its_url_and_query_in_its_own_words() -> None:
    # `self._rest.get(endpoint="/assets", query_params={...})`: the adapter lives in another
    # module, but a verb method given a path is a request, and its query map's keys are query keys.
    from atlas_core.recognize import scan_calls

    code = (
        "class Api:\n"
        "    def assets(self, limit):\n"
        "        return self._rest.get(endpoint='/assets', query_params={'limit': limit})\n"
        "    def asset(self, asset_id):\n"
        "        return self._rest.get(endpoint=f'/assets/{asset_id}')\n"
        "    def setting(self):\n"
        "        return self.settings.get(path='name')\n"
    )
    found = [
        (i.line, i.site.role, i.site.method, i.site.url, i.site.name)
        for i in scan_calls(code, "python")
    ]
    assert (2, "endpoint", "GET", "/assets", "") in found
    assert (2, "query", "GET", "/assets", "limit") in found
    assert (4, "endpoint", "GET", "/assets/{}", "") in found
    assert not [f for f in found if f[0] == 6]  # a settings lookup, no path


def test_a_map_by_position_has_the_role_the_library_gives_it_or_none() -> None:
    # requests.get(url, params) and post(url, data); an imported helper's third argument could be
    # anything, so its keys are not judged.
    from atlas_core.recognize import scan_calls

    code = (
        "import requests\n"
        "from .client import api_call\n"
        'a = api_call("GET", "/rest/2.0/assets", {"name": n})\n'
        'b = requests.get("https://x.collibra.com/rest/2.0/assets", {"name": n})\n'
        'c = requests.post("https://x.collibra.com/rest/2.0/assets", {"name": n})\n'
    )
    keys = {(i.line, i.site.role) for i in scan_calls(code, "python") if i.site.name == "name"}
    assert keys == {(3, "query"), (4, "body")}
