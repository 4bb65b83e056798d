"""Python calls made through the code's own functions and methods (wrapper summaries), URLs built
across lines, and the bad input such summaries must survive: each call site is read with its
arguments put into the helper's request."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize.calls.scan import scan_calls
from tests.apicheck_bundle import build_apicheck_bundle

HELPERS = """\
import functools
import requests

HOST = "https://dg.example.org"
http = requests.Session()


def fetch(host, route, query=None):
    return requests.get(host + route, params=query, timeout=20)


def send(route, payload, verb="POST"):
    return http.request(verb, f"{HOST}{route}", json=payload)


def remove(verb, route):
    return send(route, None, verb=verb)


class Glossary:
    API = "/rest/2.0"

    def __init__(self, host):
        self.host = host.rstrip("/")
        self.http = requests.Session()

    def _call(self, verb, route, query=None, body=None):
        target = f"{self.host}{self.API}{route}"
        options = {"timeout": 9}
        if query:
            options["params"] = query
        if body:
            options["json"] = body
        return self.http.request(verb, target, **options)

    def read(self, route, query=None):
        return self._call("GET", route, query=query)

    def create(self, route, body):
        return self._call("POST", route, body=body)

    def statuses(self):
        return self.read("/statuses", query={"offset": 10})


terms = fetch(HOST, "/rest/2.0/assets", {"nameMatchMode": "START"})
made = send("/rest/2.0/domains", {"name": "Finance", "communityId": "c-1"})
gone = remove("DELETE", "/rest/2.0/relations/bulk")
g = Glossary("https://dg.example.org")
page = g.read("/attributes", query={"page": 2, "size": 100})
asset = g.create("/assets", {"nmae": "Revenue", "domainId": "d-1"})
one = functools.partial(http.request, "GET")
tags = one(HOST + "/rest/2.0/tags")
"""


def _sites(code: str) -> list[tuple[int, str, str, str, str]]:
    return [
        (s.line, s.site.role, s.site.method, s.site.url, s.site.name)
        for s in scan_calls(code, "python", budget_s=30)
    ]


def _line(code: str, needle: str) -> int:
    return next(i for i, line in enumerate(code.splitlines()) if needle in line)


def test_a_module_helper_gives_the_endpoint_and_query_keys_at_its_call() -> None:
    line = _line(HELPERS, "terms = fetch")
    assert (line, "endpoint", "GET", "https://dg.example.org/rest/2.0/assets", "") in _sites(
        HELPERS
    )
    query = (line, "query", "GET", "https://dg.example.org/rest/2.0/assets", "nameMatchMode")
    assert query in _sites(HELPERS)


def test_a_default_method_and_a_helper_calling_a_helper() -> None:
    sites = _sites(HELPERS)
    made = _line(HELPERS, "made = send")
    assert (made, "body", "POST", "https://dg.example.org/rest/2.0/domains", "communityId") in sites
    gone = _line(HELPERS, "gone = remove")
    endpoint = (gone, "endpoint", "DELETE", "https://dg.example.org/rest/2.0/relations/bulk", "")
    assert endpoint in sites


def test_methods_of_a_class_defined_in_the_file_through_an_instance() -> None:
    sites = _sites(HELPERS)
    page = _line(HELPERS, "page = g.read")
    assert (page, "query", "GET", "{}/rest/2.0/attributes", "size") in sites
    asset = _line(HELPERS, "asset = g.create")
    assert (asset, "body", "POST", "{}/rest/2.0/assets", "nmae") in sites
    own = _line(HELPERS, '"/statuses"')
    assert (own, "endpoint", "GET", "{}/rest/2.0/statuses", "") in sites


def test_a_partial_of_a_session_request() -> None:
    line = _line(HELPERS, "tags = one")
    assert (line, "endpoint", "GET", "https://dg.example.org/rest/2.0/tags", "") in _sites(HELPERS)


def test_the_helpers_own_bodies_and_kwargs_dicts_are_no_calls() -> None:
    body_lines = range(_line(HELPERS, "def fetch"), _line(HELPERS, "def statuses"))
    assert [s for s in _sites(HELPERS) if s[0] in body_lines] == []


def test_a_helper_with_its_own_path_after_a_base_parameter_is_a_call() -> None:
    code = (
        "import requests\n"
        "def views(base, query):\n"
        '    return requests.get(base + "/rest/2.0/views", params=query)\n'
    )
    assert (2, "endpoint", "GET", "{}/rest/2.0/views", "") in _sites(code)


def test_a_method_only_a_parameter_gives_stays_unknown() -> None:
    code = (
        "import requests\n"
        "def call(verb, route):\n"
        '    return requests.request(verb, "https://h" + route)\n'
        "def run(verb):\n"
        '    return call(verb, "/rest/2.0/assets")\n'
    )
    assert (4, "endpoint", "", "https://h/rest/2.0/assets", "") in _sites(code)


def test_a_helper_with_a_url_only_known_at_runtime_gives_nothing() -> None:
    code = (
        "import requests\n"
        "def get(route, query):\n"
        '    return requests.get("https://h" + route, params=query)\n'
        "def run(config):\n"
        '    get(config["assets"], {"typeId": "x"})\n'
        '    get("/rest/2.0/assets", {"typeId": "x"})\n'
    )
    sites = _sites(code)
    assert [s for s in sites if s[0] == 4 and (s[1] == "endpoint" or "/rest" in s[3])] == []
    assert (5, "query", "GET", "https://h/rest/2.0/assets", "typeId") in sites


URLS = """\
import requests
from urllib.parse import urljoin

ROOT = "https://dg.example.org/rest/2.0"


def listing(offset):
    url = ROOT + "/assets/" + str(offset)
    url += "/tags"
    formatted = requests.get("{}/{}".format(ROOT, "domains"))
    percent = requests.get("%s/communities/%s" % (ROOT, offset))
    joined = requests.get(urljoin(ROOT + "/", "users"))
    return requests.get(url)
"""


def test_urls_built_across_lines_and_with_format_and_percent() -> None:
    sites = _sites(URLS)
    tags = f"{ROOT_URL}/assets/{{}}/tags"
    assert (_line(URLS, "url = ROOT"), "endpoint", "GET", tags, "") in sites
    assert (_line(URLS, 'url += "/tags"'), "endpoint", "GET", tags, "") in sites
    assert (_line(URLS, '"{}/{}"'), "endpoint", "GET", f"{ROOT_URL}/domains", "") in sites
    assert (
        _line(URLS, "%s/communities"),
        "endpoint",
        "GET",
        f"{ROOT_URL}/communities/{{}}",
        "",
    ) in sites


ROOT_URL = "https://dg.example.org/rest/2.0"

ASYNC = """\
import aiohttp
import httpx

BASE = "https://dg.example.org"

async def fetch(session: aiohttp.ClientSession, route, query):
    async with session.get(BASE + route, params=query) as response:
        return await response.json()

async def create(route, body):
    async with httpx.AsyncClient() as client:
        return await client.post(f"{BASE}{route}", json=body)

async def main(session):
    found = await fetch(session, "/rest/2.0/assets", {"typeId": "t"})
    made = await create("/rest/2.0/domains", {"name": "n"})
"""


def test_aiohttp_and_httpx_async_helpers() -> None:
    sites = _sites(ASYNC)
    base = "https://dg.example.org/rest/2.0"
    assert (_line(ASYNC, "found ="), "query", "GET", f"{base}/assets", "typeId") in sites
    assert (_line(ASYNC, "made ="), "body", "POST", f"{base}/domains", "name") in sites
    assert [s for s in sites if s[0] < _line(ASYNC, "async def main")] == []


def test_generated_internals_call_api() -> None:
    code = (
        "class AssetApi:\n"
        "    def find_assets_with_http_info(self, **kwargs):\n"
        "        header_params = {}\n"
        "        header_params['Accept'] = 'application/json'\n"
        "        return self.api_client.call_api(\n"
        "            '/assets/{assetId}', 'GET', path_params, query_params, header_params)\n"
    )
    assert _sites(code) == [(5, "endpoint", "GET", "{}/assets/{assetId}", "")]


def test_generated_internals_by_keyword_and_openapi_generator_7() -> None:
    """``call_api(resource_path=..., method=...)`` and the newer generators'
    ``param_serialize(method=..., resource_path=...)``; their map arguments are no keys."""
    code = (
        "class TagApi:\n"
        "    def get_tag_with_http_info(self, tag_id):\n"
        "        return self.api_client.call_api(resource_path='/tags/{tagId}', method='GET',\n"
        "                                        path_params=path_params, auth_settings=auth)\n"
        "    def _add_tag_serialize(self, add_tag_request):\n"
        "        return self.api_client.param_serialize(\n"
        "            method='POST',\n"
        "            resource_path='/tags',\n"
        "            body=_body_params,\n"
        "        )\n"
    )
    assert _sites(code) == [
        (2, "endpoint", "GET", "{}/tags/{tagId}", ""),
        (7, "endpoint", "POST", "{}/tags", ""),
    ]


# --- bad input -------------------------------------------------------------------------------


def test_recursive_and_mutually_recursive_helpers_end_and_say_nothing_wrong() -> None:
    code = (
        "import requests\n"
        "def loop(route):\n"
        "    return loop(route)\n"
        "def ping(route, n):\n"
        "    return pong(route, n - 1) if n else requests.get('https://h' + route)\n"
        "def pong(route, n):\n"
        "    return ping(route, n)\n"
        "loop('/rest/2.0/assets')\n"
        "pong('/rest/2.0/domains', 3)\n"
    )
    sites = _sites(code)
    assert [s for s in sites if s[0] == 7] == []  # `loop` sends nothing
    assert (8, "endpoint", "GET", "https://h/rest/2.0/domains", "") in sites


def test_a_long_file_of_helpers_calling_helpers_is_bounded() -> None:
    parts = [
        "import requests\n",
        "def h0(r, q):\n    return requests.get('https://h' + r, params=q)\n",
    ]
    for i in range(1, 400):
        parts.append(f"def h{i}(r, q):\n    return h{i - 1}(r, q)\n")
    for i in range(6000):
        parts.append(f"x{i} = h{i % 400}('/rest/2.0/assets', {{'limit': {i}}})\n")
    code = "".join(parts) * 1
    start = time.monotonic()
    sites = scan_calls(code, "python")
    assert time.monotonic() - start < 30  # bounded by the scan budget, not by the file
    # Only helpers at most four calls deep are followed to the request.
    lines = code.splitlines()
    helpers = [re.search(r"= h(\d+)\(", lines[s.line]) for s in sites if s.site.role == "endpoint"]
    assert helpers and all(h is not None and int(h.group(1)) < 4 for h in helpers)


# --- through the checks ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


CHECKED = """\
import requests

BASE = "https://acme.collibra.com/rest/2.0"


class Catalog:
    def __init__(self, token):
        self.session = requests.Session()

    def _send(self, verb, route, query=None, body=None):
        return self.session.request(verb, BASE + route, params=query, json=body)

    def get(self, route, query=None):
        return self._send("GET", route, query=query)

    def post(self, route, body):
        return self._send("POST", route, body=body)


c = Catalog("t")
c.get("/assets", query={"name": "Revenue", "pageSize": 50})
c.post("/assets", {"nmae": "Revenue", "domainId": "d", "typeId": "t"})
c.get("/asset")
"""


def test_mistakes_behind_a_helper_are_flagged_at_the_call(engine: Engine) -> None:
    found = engine.check_code(CHECKED, "python")
    lines = CHECKED.splitlines()
    named = {(f.line, f.check, lines[f.line][f.start : f.end]) for f in found}
    assert (_line(CHECKED, '"pageSize"'), "unknown-param", "pageSize") in named
    assert (_line(CHECKED, '"nmae"'), "unknown-param", "nmae") in named
    assert any(
        f.line == _line(CHECKED, '"/asset"') and f.check == "unknown-endpoint" for f in found
    )
    # The helpers' own bodies are not calls of their own.
    assert all(f.line > _line(CHECKED, "c = Catalog") for f in found)


WORD_PATHS = """\
import logging
import requests


class Catalog:
    def __init__(self, host):
        self.host = host
        self.http = requests.Session()

    def _fetch(self, endpoint, params=None):
        return self.http.get(f"{self.host}/rest/2.0/{endpoint}", params=params)

    def tags(self):
        logging.info("tags")
        return self._fetch("tags", params={"limit": 5})
"""


def test_a_word_a_wrapper_joins_after_its_own_slash_is_the_endpoint() -> None:
    sites = _sites(WORD_PATHS)
    line = _line(WORD_PATHS, 'self._fetch("tags"')
    assert (line, "endpoint", "GET", "{}/rest/2.0/tags", "") in sites
    assert [s for s in sites if s[0] == _line(WORD_PATHS, "logging.info")] == []


HELD = """\
import httpx


class Transport:
    def __init__(self, base):
        self.base = base + "/rest/2.0"
        self.client = httpx.Client()

    def _send(self, verb, path, **options):
        for _ in range(3):
            reply = self.client.request(verb, f"{self.base}{path}", **options)
        return reply


class Resource:
    def __init__(self, transport):
        self._transport = transport

    def _read(self, path, params=None):
        return self._transport._send("GET", path, params=params)


class Statuses(Resource):
    def one(self, status_id):
        return self._read(f"/statuses/{status_id}")
"""


def test_an_inherited_method_forwarding_to_a_held_transport() -> None:
    line = _line(HELD, "self._read(f")
    assert (line, "endpoint", "GET", "{}/rest/2.0/statuses/{}", "") in _sites(HELD)


def test_a_method_two_classes_define_is_no_guess_for_a_held_object() -> None:
    code = HELD + (
        "\n\nclass Other:\n"
        "    def _send(self, verb, path, **options):\n"
        '        return httpx.request(verb, "https://elsewhere.example" + path)\n'
    )
    line = _line(code, "self._read(f")
    assert [s for s in _sites(code) if s[0] == line and "/rest/2.0" in s[3]] == []


IMPORTED = """\
from catalog.settings import GOVERNANCE_URL
from catalog.transport import api_get_json, postRequest, get_url, cache_get

def domains_of(community_id):
    address = f"{GOVERNANCE_URL}/domains?communityId={community_id}"
    return api_get_json(address)

def new_tag(name):
    return postRequest(url=f"{GOVERNANCE_URL}/tags", payload={"name": name})

def not_sent(route):
    return get_url(f"{GOVERNANCE_URL}/tags"), cache_get(f"{GOVERNANCE_URL}/tags")
"""


def test_a_helper_imported_from_another_module_is_read_by_its_name() -> None:
    """Its body is not in view: the verb its name says and the URL it is given are the call.
    A helper named for building a URL or for a cache sends nothing."""
    endpoints = [
        (line, method, url) for line, role, method, url, _ in _sites(IMPORTED) if role == "endpoint"
    ]
    assert [(line, method) for line, method, _ in endpoints] == [
        (_line(IMPORTED, "address = "), "GET"),
        (_line(IMPORTED, "postRequest(url"), "POST"),
    ]
    assert endpoints[0][2].endswith("/domains") and endpoints[1][2].endswith("/tags")


DISPATCH = """\
import requests

SITE = "https://dg.example.org/rest/2.0"


def call_api(route, verb="get", payload=None):
    if verb.lower() == "get":
        return requests.get(SITE + route, timeout=10)
    elif verb == "post":
        return requests.post(SITE + route, json=payload, timeout=10)


call_api("/domains", verb="post", payload={"name": "Sales"})
call_api("/domains")
"""


def test_a_helper_that_branches_on_its_method_argument_sends_that_method() -> None:
    """Not its first branch's: the argument (or its default) picks the branch."""
    found = {(line, role, method) for line, role, method, _, _ in _sites(DISPATCH)}
    posted, listed = _line(DISPATCH, 'verb="post"'), _line(DISPATCH, 'call_api("/domains")')
    assert {(posted, "endpoint", "POST"), (posted, "body", "POST")} <= found
    assert (listed, "endpoint", "GET") in found
    assert not any(line == posted and method == "GET" for line, _, method in found)


INHERITED = """\
from catalog.base import RestBase

class Glossary(RestBase):
    def add_term(self, name):
        return self._post(url=f"{self.base}/rest/2.0/assets", data={"name": name})

    def terms(self):
        return self._get(f"{self.base}/rest/2.0/assets")
"""


def test_a_verb_method_of_a_base_class_in_another_module_sends_that_verb() -> None:
    endpoints = [
        (line, method) for line, role, method, _, _ in _sites(INHERITED) if role == "endpoint"
    ]
    assert endpoints == [(4, "POST"), (7, "GET")]


HELD_SESSION = """\
import requests


class Reports:
    def __init__(self, config):
        self.s = requests.Session()
        self.url_base = config.base_url
        self.cache = {}

    def groups_of(self, user_id):
        url = self.url_base + "userGroups?userId=" + user_id
        return self.s.get(url).json()

    def cached(self, key):
        return self.cache.get("roles?" + key)
"""


def test_a_session_held_under_any_name_sends_a_path_glued_to_its_base() -> None:
    """`self.s = requests.Session()`: `self.s.get(url)` is a request whatever the attribute is
    called, and a one-word path with its query, added to a base ending in its slash, is the
    endpoint; a dict's `get` of a look-alike key is none."""
    rows = _sites(HELD_SESSION)
    assert (10, "endpoint", "GET", "{}userGroups", "") in rows
    assert (10, "query", "GET", "{}userGroups", "userId") in rows
    assert not [row for row in rows if row[0] == 14]


BY_KEYWORD = """\
import requests

API = "https://dg.example.org/rest/2.0/"


def get_objects(kind="roles", limit=100, verbose=False):
    return requests.get(API + kind, params={"limit": limit}).json()


get_objects("communities")
get_objects(kind="domains", limit=5)
get_objects(verbose="users")
"""


def test_a_helpers_path_given_by_keyword_is_the_endpoint() -> None:
    """`get_objects(kind="domains")`: a keyword argument the helper builds its URL from is read
    like a positional one; a keyword the URL does not use says nothing."""
    endpoints = {(r[0], r[3]) for r in _sites(BY_KEYWORD) if r[1] == "endpoint" and r[0] > 6}
    assert endpoints == {
        (9, "https://dg.example.org/rest/2.0/communities"),
        (10, "https://dg.example.org/rest/2.0/domains"),
    }


METHOD_IN_A_NAME = """\
import requests
import urllib.request

BASE = "https://dg.example.org/rest/2.0"
verb = "PATCH"
requests.request(verb, f"{BASE}/domains/{domain_id}", json={"name": n})
kind = "DELETE"
urllib.request.urlopen(urllib.request.Request(f"{BASE}/tags/{tag_id}", method=kind))
log(verb, f"{BASE}/roles")
"""


def test_a_method_held_in_a_name_is_that_method() -> None:
    """`session.request(verb, url)` and `Request(url, method=kind)` with the method assigned to a
    name before; any other function handed such a name sends nothing."""
    endpoints = {(r[0], r[2], r[3]) for r in _sites(METHOD_IN_A_NAME) if r[1] == "endpoint"}
    assert endpoints == {
        (5, "PATCH", "https://dg.example.org/rest/2.0/domains/{}"),
        (7, "DELETE", "https://dg.example.org/rest/2.0/tags/{}"),
    }


SESSION_FIRST = """\
import requests

API_ROOT = "https://dg.example.org/rest/2.0"


def paged(session: requests.Session, endpoint: str, params: dict | None = None) -> list:
    return session.get(f"{API_ROOT}/{endpoint}", params=params).json()["results"]


def domains_of(session, community_id):
    return paged(session, "domains", {"communityId": community_id})
"""


def test_a_word_path_after_the_session_argument_is_the_endpoint() -> None:
    """`paged(session, "domains", {...})`: the helper's path comes second, after the session it
    sends with; the word is read as the endpoint there, its dict as the query."""
    rows = _sites(SESSION_FIRST)
    assert (10, "endpoint", "GET", "https://dg.example.org/rest/2.0/domains", "") in rows
    assert (10, "query", "GET", "https://dg.example.org/rest/2.0/domains", "communityId") in rows
