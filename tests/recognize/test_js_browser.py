"""Browser and Node request shapes written without an options object: `XMLHttpRequest`, jQuery's
shorthands, URL and query builders (`new URL` with `searchParams`, `URLSearchParams`, Angular's
`HttpParams`), a query appended with `+=`, Angular's `HttpClient` and ofetch/Nuxt `$fetch`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize.calls.javascript import JavaScriptCalls
from atlas_core.recognize.calls.scan import Located, scan_calls
from atlas_core.syntax import parse_once
from tests.apicheck_bundle import build_apicheck_bundle
from tests.recognize.cursor import read

BASE = "https://acme.collibra.com/rest/2.0"


def _rows(code: str, language: str = "javascript") -> set[tuple[int, str, str, str, str]]:
    return {_row(item) for item in scan_calls(code, language)}


def _row(item: Located) -> tuple[int, str, str, str, str]:
    site = item.site
    return item.line, site.role, site.method, site.url, site.name


XHR = f"""\
const API = "{BASE}";
function lookup(term) {{
  const xhr = new XMLHttpRequest();
  xhr.open("GET", API + "/tags?label=" + term + "&limit=5");
  xhr.send();
}}
function create(label) {{
  var req = new XMLHttpRequest();
  req.open("POST", `${{API}}/glossaries`, true);
  req.setRequestHeader("Content-Type", "application/json");
  req.send(JSON.stringify({{ label: label, parentId: "p" }}));
}}
class Uploader {{
  constructor() {{ this.xhr = new XMLHttpRequest(); }}
  put(body) {{
    this.xhr.open("PUT", API + "/glossaries/bulk");
    this.xhr.send(JSON.stringify({{ items: body }}));
  }}
}}
const popup = window.open("GET", API + "/popup");
const db = indexedDB.open("/rest/2.0/store", 1);
"""


def test_xml_http_request_open_and_send() -> None:
    rows = _rows(XHR)
    expected = {
        (3, "endpoint", "GET", f"{BASE}/tags", ""),
        (3, "query", "GET", f"{BASE}/tags", "label"),
        (3, "query", "GET", f"{BASE}/tags", "limit"),
        (8, "endpoint", "POST", f"{BASE}/glossaries", ""),
        (10, "body", "POST", f"{BASE}/glossaries", "label"),
        (10, "body", "POST", f"{BASE}/glossaries", "parentId"),
        (15, "endpoint", "PUT", f"{BASE}/glossaries/bulk", ""),
        (16, "body", "PUT", f"{BASE}/glossaries/bulk", "items"),
    }
    assert expected <= rows
    assert not [r for r in rows if r[0] >= 19]  # `open` of a window or a database is no request
    method = read(XHR, "javascript", "open", occurrence=2)
    assert method is not None and (method.method, method.role) == ("POST", "endpoint")


JQUERY = f"""\
const root = "{BASE}";
$.get(root + "/roles", {{ userId: "u", offset: 0 }}, function (data) {{ show(data); }});
$.getJSON(root + "/users", {{ firstName: "a" }});
$.post(root + "/tags", {{ label: "x" }}, (r) => done(r), "json");
jQuery.get(root + "/views", {{ viewId: "v" }});
$.get({{ url: root + "/statuses", data: {{ name: "s" }} }});
"""


def test_jquery_shorthands() -> None:
    rows = _rows(JQUERY)
    expected = {
        (1, "endpoint", "GET", f"{BASE}/roles", ""),
        (1, "query", "GET", f"{BASE}/roles", "userId"),
        (1, "query", "GET", f"{BASE}/roles", "offset"),
        (2, "query", "GET", f"{BASE}/users", "firstName"),
        (3, "endpoint", "POST", f"{BASE}/tags", ""),
        (3, "body", "POST", f"{BASE}/tags", "label"),
        (4, "query", "GET", f"{BASE}/views", "viewId"),
        (5, "endpoint", "GET", f"{BASE}/statuses", ""),
        (5, "query", "GET", f"{BASE}/statuses", "name"),
    }
    assert expected <= rows
    cache = 'const $ = new Map();\n$.get("/rest/2.0/assets", { name: "x" });\n'
    assert _rows(cache) == set()


BUILDERS = f"""\
const BASE = "{BASE}";
async function search(q: string) {{
  const url = new URL(BASE + "/assets");
  url.searchParams.append("name", q);
  url.searchParams.set("nameMatchMode", "EXACT");
  return fetch(url);
}}
async function people(q: string) {{
  const params = new URLSearchParams();
  params.append("firstName", q);
  const url = new URL(`${{BASE}}/users`);
  url.search = params.toString();
  return fetch(url.toString());
}}
async function related(q: string) {{
  let url = BASE + "/relations";
  url += "?sourceId=" + q;
  return fetch(url);
}}
function unrelated(q: string) {{
  const seen = new Map<string, string>();
  seen.set("name", q);
  const form = new FormData();
  form.append("domainId", q);
  return fetch(BASE + "/assets", {{ method: "POST", body: form }});
}}
"""


def test_url_builders_and_a_query_appended_with_plus_equals() -> None:
    rows = _rows(BUILDERS, "typescript")
    expected = {
        (2, "endpoint", "GET", f"{BASE}/assets", ""),
        (3, "query", "GET", f"{BASE}/assets", "name"),
        (4, "query", "GET", f"{BASE}/assets", "nameMatchMode"),
        (9, "query", "GET", f"{BASE}/users", "firstName"),
        (10, "endpoint", "GET", f"{BASE}/users", ""),
        (15, "endpoint", "GET", f"{BASE}/relations", ""),
        (16, "query", "GET", f"{BASE}/relations", "sourceId"),
    }
    assert expected <= rows
    assert not [r for r in rows if 20 <= r[0] <= 23]  # a Map's and a form's keys are no query


def test_a_path_appended_with_plus_equals_is_part_of_the_endpoint() -> None:
    code = (
        f'const BASE = "{BASE}";\n'
        "async function one(id, q) {\n"
        '  let url = BASE + "/assets";\n'
        '  url += "/" + id;\n'
        '  url += "/attributes";\n'
        '  if (q) url += "?name=" + q;\n'
        "  return fetch(url);\n"
        "}\n"
        "async function two(id) {\n"
        '  let url = BASE + "/assets";\n'
        '  if (id) { url += "/" + id; }\n'
        "  return fetch(url);\n"
        "}\n"
    )
    assert _rows(code) == {
        (2, "endpoint", "GET", f"{BASE}/assets/{{}}/attributes", ""),
        (5, "query", "GET", f"{BASE}/assets/{{}}/attributes", "name"),
        (9, "endpoint", "GET", f"{BASE}/assets{{}}", ""),  # a part under a condition: unknown
    }


ANGULAR = f"""\
const BASE = "{BASE}";
@Injectable({{ providedIn: "root" }})
export class AssetService {{
  constructor(private http: HttpClient) {{}}
  find(q: string): Observable<Asset[]> {{
    return this.http.get<Asset[]>(`${{BASE}}/assets`, {{ params: {{ name: q, limit: 10 }} }});
  }}
  byDomain(q: string) {{
    const params = new HttpParams().set("name", q).set("domainId", "d");
    return this.http.get<Asset[]>(`${{BASE}}/assets`, {{ params }});
  }}
  byType(q: string) {{
    let params = new HttpParams();
    params = params.set("typeId", q);
    params.set("dropped", q);
    return this.http.get<Asset[]>(`${{BASE}}/assets`, {{ params: params }});
  }}
}}
export async function nuxt(q: string) {{
  await $fetch(`${{BASE}}/domains`, {{ method: "POST", body: {{ name: q, communityId: "c" }} }});
  const {{ data }} = await useFetch("/roles", {{ baseURL: BASE, query: {{ offset: 0 }} }});
}}
"""


def test_angular_http_client_http_params_and_nuxt_fetch() -> None:
    rows = _rows(ANGULAR, "typescript")
    expected = {
        (5, "query", "GET", f"{BASE}/assets", "name"),
        (8, "query", "GET", f"{BASE}/assets", "name"),
        (8, "query", "GET", f"{BASE}/assets", "domainId"),
        (13, "query", "GET", f"{BASE}/assets", "typeId"),
        (19, "endpoint", "POST", f"{BASE}/domains", ""),
        (19, "body", "POST", f"{BASE}/domains", "communityId"),
        (20, "endpoint", "GET", f"{BASE}/roles", ""),
        (20, "query", "GET", f"{BASE}/roles", "offset"),
    }
    assert expected <= rows
    assert not [r for r in rows if r[0] == 14]  # HttpParams are immutable: `set` alone adds none


ANGULAR_JS = f"""\
angular.module("catalog").controller("EditCtrl", function ($scope, $http) {{
  $scope.rename = function (item) {{
    $http({{ method: "PATCH", url: "{BASE}/domains/" + item.id, data: {{ name: item.name }} }});
  }};
}});
"""


def test_angularjs_http_injected_as_a_parameter_is_the_service() -> None:
    rows = _rows(ANGULAR_JS)
    assert (2, "endpoint", "PATCH", f"{BASE}/domains/{{}}", "") in rows
    assert (2, "body", "PATCH", f"{BASE}/domains/{{}}", "name") in rows


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_mistakes_in_an_xhr_body_and_a_search_param_are_flagged(checks: Engine) -> None:
    code = (
        f'const API = "{BASE}";\n'
        "function add(n) {\n"
        "  const xhr = new XMLHttpRequest();\n"
        '  xhr.open("POST", API + "/assets");\n'
        "  xhr.send(JSON.stringify({ name: n, domainID: 'd', typeId: 't' }));\n"
        "}\n"
        "function find(q) {\n"
        '  const url = new URL(API + "/assets");\n'
        '  url.searchParams.set("nmae", q);\n'
        "  return fetch(url);\n"
        "}\n"
    )
    found = checks.check_code(code, "javascript")
    unknown = [f for f in found if f.check == "unknown-param"]
    assert {(f.line, f.fixes[0]) for f in unknown} == {(4, "domainId"), (8, "name")}
    assert code.splitlines()[8][unknown[-1].start : unknown[-1].end] == "nmae"
    clean = code.replace("domainID", "domainId").replace('"nmae"', '"name"')
    assert checks.check_code(clean, "javascript") == []


def test_long_builder_chains_and_many_url_objects_stay_bounded() -> None:
    links = "".join(f'.set("k{i}", v)' for i in range(3_000))
    chain = (
        f"const p = new HttpParams(){links};\nthis.http.get(`{BASE}/assets`, {{ params: p }});\n"
    )
    rows = _rows(chain, "typescript")
    assert rows == {(1, "endpoint", "GET", f"{BASE}/assets", "")}  # past the chain limit: no key
    body = 'const u = new URL("{B}/assets"); u.searchParams.set("name", q); return fetch(u);'
    code = "".join(f"function f{i}(q) {{ {body.format(B=BASE)} }}\n" for i in range(300))
    found = scan_calls(code, "javascript", budget_s=60)
    assert len([f for f in found if f.site.name == "name"]) == 300
    # One filter object for every read of a scan: the scan's name memo lists a name's nodes once.
    document, tree = parse_once(code, "javascript")
    assert tree is not None
    first = JavaScriptCalls(document, tree.root_node, "javascript", 0, 0)
    second = JavaScriptCalls(first.document, first.root, "javascript", 1, 5)
    assert first.is_use is second.is_use
