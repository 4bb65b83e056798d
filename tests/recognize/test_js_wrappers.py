"""JavaScript and TypeScript calls through the code's own functions and methods: each call site of
a wrapper reads as the request the wrapper sends, with the site's arguments in place."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize.calls.scan import Located, scan_calls
from tests.apicheck_bundle import build_apicheck_bundle
from tests.recognize.cursor import read

BASE = "https://acme.collibra.com/rest/2.0"

CLIENT = f"""\
class CatalogClient {{
  constructor(token) {{
    this.base = "{BASE}";
    this.token = token;
  }}

  async request(method, path, body) {{
    const res = await fetch(this.base + path, {{
      method,
      headers: {{ Authorization: `Bearer ${{this.token}}` }},
      body: body ? JSON.stringify(body) : undefined,
    }});
    return res.json();
  }}

  list(path, query = {{}}) {{
    return this.send("GET", path, query);
  }}

  send(verb, path, query) {{
    return fetch(`${{this.base}}${{path}}?` + new URLSearchParams(query), {{ method: verb }});
  }}

  addAsset(name, domainId) {{
    return this.request("POST", "/assets", {{ name, domainId, typeId: "t-1" }});
  }}

  findAssets(name) {{
    const defaults = {{ limit: 10, nameMatchMode: "EXACT" }};
    return this.list("/assets", {{ ...defaults, name }});
  }}

  anything(verb) {{
    return this.request(verb, "/roles");
  }}
}}
"""


def _sites(code: str, language: str = "javascript") -> list[tuple[int, str, str, str, str]]:
    return [_row(item) for item in scan_calls(code, language)]


def _endpoints(rows: list[tuple[int, str, str, str, str]]) -> set[tuple[int, str, str]]:
    """(line, method, URL) of the endpoint sites among `rows` (`_sites`)."""
    return {(line, method, url) for line, role, method, url, _ in rows if role == "endpoint"}


def _row(item: Located) -> tuple[int, str, str, str, str]:
    site = item.site
    return item.line, site.role, site.method, site.url, site.name


def test_a_class_method_wrapper_is_read_at_its_call_site() -> None:
    endpoint = read(CLIENT, "javascript", '"/assets", {')
    assert endpoint is not None
    assert (endpoint.method, endpoint.role, endpoint.url) == ("POST", "endpoint", f"{BASE}/assets")
    body = read(CLIENT, "javascript", "domainId, typeId")
    assert body is not None
    assert (body.method, body.role, body.name, body.url) == (
        "POST",
        "body",
        "domainId",
        f"{BASE}/assets",
    )
    assert body.path_keys == ("name", "domainId", "typeId")


def test_a_wrapper_of_a_wrapper_passes_query_keys_through_spreads() -> None:
    limit = read(CLIENT, "javascript", "limit: 10")
    assert limit is not None
    assert (limit.method, limit.role, limit.name, limit.url) == (
        "GET",
        "query",
        "limit",
        f"{BASE}/assets",
    )
    endpoint = read(CLIENT, "javascript", '"/assets", {', occurrence=2)
    assert endpoint is not None
    assert (endpoint.method, endpoint.role) == ("GET", "endpoint")


def test_a_method_from_a_parameter_with_no_literal_is_no_guess() -> None:
    site = read(CLIENT, "javascript", '"/roles"')
    assert site is not None
    assert (site.method, site.role, site.url) == ("", "endpoint", f"{BASE}/roles")


def test_the_wrappers_own_bodies_are_no_calls() -> None:
    rows = _sites(CLIENT)
    assert [r for r in rows if r[0] < 24] == []  # `request`, `list` and `send` forward paths
    assert (24, "endpoint", "POST", f"{BASE}/assets", "") in rows


ARROWS = f"""\
import axios from "axios";

const BASE = "{BASE}";
const get = (p, params) => axios.get(BASE + p, {{ params }});
const fetchRoles = (q) => get("/roles", q);

export async function load(id) {{
  await get(`/assets/${{id}}`);
  await fetchRoles({{ userId: id }});
  await get(lookupPath(id));
}}
"""


def test_arrow_function_wrappers_and_their_wrappers() -> None:
    rows = _sites(ARROWS)
    assert (7, "endpoint", "GET", f"{BASE}/assets/{{}}", "") in rows
    assert (4, "endpoint", "GET", f"{BASE}/roles", "") in rows
    assert (8, "query", "GET", f"{BASE}/roles", "userId") in rows
    # `get(lookupPath(id))`: a URL the code computes at run time gives nothing; nor does the
    # wrapper's own body, whose path is all its caller's.
    assert not [r for r in rows if r[0] in (3, 9)]


RECURSIVE = """\
function ping(path) { return pong(path); }
function pong(path) { return ping(path); }
function self(path, n) { return n > 0 ? self(path, n - 1) : fetch(API + path); }
const API = "https://acme.collibra.com/rest/2.0";
ping("/assets");
self("/roles", 3);
"""


def test_recursive_and_mutually_recursive_wrappers_are_bounded() -> None:
    rows = _sites(RECURSIVE)
    assert not [r for r in rows if r[0] == 4]  # the ping/pong cycle makes no request
    assert (5, "endpoint", "GET", f"{BASE}/roles", "") in rows


def test_a_deep_chain_of_wrappers_stops_without_an_error() -> None:
    chain = [f"function w0(p) {{ return fetch('{BASE}' + p); }}"]
    chain += [f"function w{i}(p) {{ return w{i - 1}(p); }}" for i in range(1, 40)]
    code = "\n".join([*chain, 'w39("/assets");', 'w2("/roles");', ""])
    rows = _sites(code)
    assert (41, "endpoint", "GET", f"{BASE}/roles", "") in rows
    assert not [r for r in rows if r[0] == 40]  # past the depth the chain is not followed


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_a_misspelled_body_key_behind_a_helper_is_flagged(checks: Engine) -> None:
    code = CLIENT.replace("domainId, typeId", "domainID, typeId")
    found = checks.check_code(code, "javascript")
    [unknown] = [f for f in found if f.check == "unknown-param"]
    assert unknown.line == 24 and unknown.fixes[0] == "domainId"
    assert code.splitlines()[24][unknown.start : unknown.end] == "domainID"
    assert checks.check_code(CLIENT, "javascript") == []


def test_a_helper_with_a_runtime_url_gives_nothing(checks: Engine) -> None:
    code = (
        f'const BASE = "{BASE}";\n'
        "async function call(url, body) {\n"
        "  return fetch(url, { method: 'POST', body: JSON.stringify(body) });\n"
        "}\n"
        "call(process.env.TARGET, { nmae: 'x' });\n"
        "call(window.location.href + suffix, { nmae: 'x' });\n"
        "call(BASE + '/assets', { name: 'x', domainId: 'd', typeId: 't', statu: 'x' });\n"
    )
    found = checks.check_code(code, "javascript")
    assert {(f.line, f.check) for f in found} == {(6, "unknown-param")}


PAGED = """\
export async function* eachPage(fetchOne, route, query) {
  for (let at = 0; ; at += 100) {
    const page = await fetchOne(route + "?offset=" + at, query);
    if (!page.results.length) return;
    yield page.results;
  }
}

export async function collect(fetchOne, route, query) {
  const out = [];
  for await (const rows of eachPage(fetchOne, route, query)) out.push(...rows);
  return out;
}

export async function first(fetchOne, route, query) {
  return (await fetchOne(route, query)).results[0];
}

export async function count(fetchOne, route, query) {
  const head = await fetchOne(route + "?limit=0", query);
  return head.total ?? (await fetchOne(route, query)).results.length;
}

export function catalogApi(http) {
  const fetchOne = (p, o) => http.get(p, o);
  const every = (route, query) => collect(fetchOne, route, query);
  return {
    tags: () => every("/rest/2.0/tags", {}),
    user: (userId) => fetchOne(`/rest/2.0/users/${userId}`),
    role: (roleId) => fetchOne(`/rest/2.0/roles/${roleId}`),
  };
}
"""


def test_a_local_wrapper_named_like_many_parameters_before_it_is_still_read() -> None:
    """`fetchOne` is a parameter of three functions above its definition (ten uses): the local
    arrow is still the function the calls below it call, and a chain through it that ends too
    deep does not spoil the direct calls."""
    endpoints = {
        (line, method, url) for line, role, method, url, _ in _sites(PAGED) if role == "endpoint"
    }
    lines = PAGED.splitlines()
    user = next(i for i, text in enumerate(lines) if "user: (userId)" in text)
    assert (user, "GET", "/rest/2.0/users/{}") in endpoints
    assert (user + 1, "GET", "/rest/2.0/roles/{}") in endpoints


DEEP = """\
async function send(p) { return fetch("https://dg.example.org" + p); }
async function hop4(p) { return send(p); }
async function hop3(p) { return hop4(p); }
async function hop2(p) { return hop3(p); }
async function hop1(p) { return hop2(p); }
hop1("/rest/2.0/tags");
send("/rest/2.0/users");
hop4("/rest/2.0/roles");
"""


def test_a_chain_too_deep_to_follow_does_not_hide_its_shallow_wrappers() -> None:
    """`hop1` is past the depth followed, so its call says nothing; what that cut reading found
    about `send` and `hop4` holds for that chain only, not for their own calls below."""
    endpoints = {(line, url) for line, role, _, url, _ in _sites(DEEP) if role == "endpoint"}
    assert endpoints == {
        (6, "https://dg.example.org/rest/2.0/users"),
        (7, "https://dg.example.org/rest/2.0/roles"),
    }


HANDED = """\
function toQuery(params = {}) {
  const q = new URLSearchParams(params).toString();
  return q ? `?${q}` : "";
}

async function* walkPages(send, route, filters = {}, opts = {}) {
  for (let start = 0; ; start += 25) {
    const page = await send(route + toQuery({ ...filters, limit: 25, offset: start }), opts);
    if (!page.results.length) return;
    yield page.results;
  }
}

async function gather(send, route, filters = {}, opts = {}) {
  const rows = [];
  for await (const batch of walkPages(send, route, filters, opts)) rows.push(...batch);
  return rows;
}

export function governanceApi(apiClient) {
  const read = (p, o) => apiClient.get(p, o);
  const every = (route, filters, o) => gather(read, route, filters, o);
  const howMany = async (route, filters, o) =>
    (await read(route + toQuery({ ...filters, limit: 1 }), o))?.total ?? null;
  return {
    domains: (o) => every("/rest/2.0/domains", { sortField: "NAME" }, o),
    countTags: (ids, o) => howMany("/rest/2.0/tags", { assetIds: ids }, o),
    owners: (id, o) => read(`/rest/2.0/responsibilities${toQuery({ resourceIds: id })}`, o),
  };
}
"""


def test_a_paging_helper_handed_the_sending_function_reads_as_its_request() -> None:
    """`gather` and `walkPages` call their parameter `send`; the call site passes `read`, a
    local arrow that sends a GET: the site is that GET of the route it passes, and the keys of
    the filters it passes, spread into the query, are query keys."""
    rows = _sites(HANDED)
    assert (25, "endpoint", "GET", "/rest/2.0/domains", "") in rows
    assert (25, "query", "GET", "/rest/2.0/domains", "sortField") in rows


def test_a_query_string_helper_ends_the_path_and_its_keys_are_query_keys() -> None:
    """`route + toQuery({...})` and `${...}${toQuery({...})}`: the path ends where the helper's
    `?...` starts (no unknown glued onto the last segment); a helper returning the response's
    `?.total ?? null` builds no URL."""
    rows = _sites(HANDED)
    assert (26, "endpoint", "GET", "/rest/2.0/tags", "") in rows
    assert (26, "query", "GET", "/rest/2.0/tags", "assetIds") in rows
    assert (27, "endpoint", "GET", "/rest/2.0/responsibilities", "") in rows
    assert (27, "query", "GET", "/rest/2.0/responsibilities", "resourceIds") in rows


HANDED_ODDLY = """\
function page(send, route) { return send(route + "?limit=10"); }
const unknownSender = makeSender();
page(unknownSender, "/rest/2.0/assets");
page(window.send, "/rest/2.0/assets");
function viaParameter(fn) { return page(fn, "/rest/2.0/communities"); }
function spin(route, again) { return again(route, again); }
spin("/rest/2.0/roles", spin);
const post = (url, body) => fetch(url, { method: "POST", body: JSON.stringify(body) });
page(post, "/rest/2.0/domains");
page((u) => fetch("https://dg.example.org" + u), "/rest/2.0/users");
"""


def test_only_a_handed_function_the_document_defines_makes_a_call() -> None:
    """A function the document does not define (a runtime value, someone else's method, a
    parameter nothing binds) makes no call; a function that hands itself on stops at the depth
    limit; the method is the handed function's own."""
    endpoints = _endpoints(_sites(HANDED_ODDLY))
    assert endpoints == {
        (8, "POST", "/rest/2.0/domains"),
        (9, "GET", "https://dg.example.org/rest/2.0/users"),
    }


HANDED_OPTIONS = """\
const API = "https://dg.example.org/rest/2.0";
async function send(route, init = {}) { return fetch(API + route, init); }
async function call(route, options) {
  const res = await fetch(`${API}${route}`, { ...options, headers: { ...auth, ...options.headers } });
  return res.json();
}
function fixed(route, options) { return fetch(API + route, { ...options, method: "GET" }); }
function verb(route, how) { return fetch(API + route, { method: how.toUpperCase() }); }
send("/domains", { method: "POST", body: JSON.stringify(domain) });
call("/communities/" + id, { method: "DELETE" });
call("/roles");
fixed("/users", { method: "POST" });
verb("/assets", "post");
"""


def test_the_method_comes_from_the_options_a_caller_hands_on() -> None:
    """`fetch(url, init)` and `fetch(url, {...options, headers})` in a wrapper send the method
    its caller's options ask for (GET when they ask for none); a method written after the
    spread wins; `how.toUpperCase()` of a passed verb is that verb."""
    endpoints = _endpoints(_sites(HANDED_OPTIONS))
    assert endpoints == {
        (8, "POST", "https://dg.example.org/rest/2.0/domains"),
        (9, "DELETE", "https://dg.example.org/rest/2.0/communities/{}"),
        (10, "GET", "https://dg.example.org/rest/2.0/roles"),
        (11, "GET", "https://dg.example.org/rest/2.0/users"),
        (12, "POST", "https://dg.example.org/rest/2.0/assets"),
    }


ROUTE_TABLE = """\
const ROUTES = { communities: "/rest/2.0/communities", api: { tags: "/rest/2.0/tags" } };
async function load(base) {
  const a = await fetch(base + ROUTES.communities);
  return fetch(`${base}${ROUTES.api.tags}?limit=5`);
}
"""


def test_a_path_kept_in_an_object_of_routes_is_read_where_it_is_sent() -> None:
    endpoints = _endpoints(_sites(ROUTE_TABLE))
    assert endpoints == {
        (0, "GET", "{}/rest/2.0/communities"),
        (0, "GET", "{}/rest/2.0/tags"),
    }


IMPORTED_HELPERS = """\
import { apiGet, postJson, loadAll } from "./collibra";
const { httpDelete } = require("./http");
const BASE = "https://dg.example.org/rest/2.0";
apiGet(`${BASE}/assets/${id}`, { nameMatch: "x" });
postJson(BASE + "/communities", { name: n });
httpDelete(BASE + "/domains/" + id);
loadAll(BASE + "/roles");
getUrl(BASE + "/users");
function apiPut(p) { return cache.set(p, 1); }
apiPut(BASE + "/tags");
"""


def test_a_helper_out_of_view_sends_the_verb_its_name_says() -> None:
    """`apiGet(url)` imported from another module: its name says the method, its argument the
    endpoint, and nothing is said of its other arguments; a name with no verb, one that builds
    a URL, and a helper the document defines (and that sends nothing) make no call."""
    rows = _sites(IMPORTED_HELPERS)
    endpoints = _endpoints(rows)
    assert endpoints == {
        (3, "GET", "https://dg.example.org/rest/2.0/assets/{}"),
        (4, "POST", "https://dg.example.org/rest/2.0/communities"),
        (5, "DELETE", "https://dg.example.org/rest/2.0/domains/{}"),
    }
    assert not [row for row in rows if row[1] != "endpoint"]


OUT_OF_VIEW = """\
import { DgClient } from "./dg-client";
const client = new DgClient(cfg);
await client.restCall(`/rest/2.0/domains/${id}`);
await client.restCallWithBody("/rest/2.0/communities", "post", { name: n });
await client.sendRequest("/rest/2.0/roles", { method: "DELETE" });
await client.describe("/rest/2.0/users");
await cache.getItem("/rest/2.0/tags");
await client.restCall(path);
"""


def test_a_helper_method_out_of_view_sends_to_the_rest_path_it_is_given() -> None:
    """`client.restCall("/rest/2.0/...")` of a class another file defines: the endpoint is the
    literal REST path, the method the one an argument names, else none (not guessed); a name
    that says no request, a cache's `getItem` and a path the call does not show give nothing."""
    rows = _sites(OUT_OF_VIEW, "typescript")
    endpoints = _endpoints(rows)
    assert endpoints == {
        (2, "", "/rest/2.0/domains/{}"),
        (3, "POST", "/rest/2.0/communities"),
        (4, "DELETE", "/rest/2.0/roles"),
    }
    assert not [row for row in rows if row[1] in ("query", "body")]
