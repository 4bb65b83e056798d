"""JavaScript and TypeScript request shapes beyond fetch and axios verbs: option objects of
request, got, ky, superagent, AngularJS `$http` and jQuery `$.ajax`; TypeScript type arguments,
casts and optional chaining; class-field URLs; inline scripts of an HTML page; and input that
must stay bounded."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import Located, scan_calls
from tests.recognize.cursor import read

BASE = "https://acme.collibra.com/rest/2.0"


def _rows(code: str, language: str = "javascript") -> set[tuple[int, str, str, str, str]]:
    return {_row(item) for item in scan_calls(code, language)}


def _row(item: Located) -> tuple[int, str, str, str, str]:
    site = item.site
    return item.line, site.role, site.method, site.url, site.name


LIBRARIES = f"""\
const url = "{BASE}/assets";
const payload = {{ name: "n", domainId: "d" }};
request({{ url, method: "POST", json: true, body: payload }}, (err, res) => done(err));
request.post({{ url: "{BASE}/domains", json: {{ communityId: "c" }} }});
got("{BASE}/roles", {{ method: "GET", searchParams: {{ userId: "u" }} }});
got.post("{BASE}/communities", {{ json: {{ parentId: "p" }} }});
ky.put("{BASE}/tags", {{ json: {{ label: "x" }} }});
superagent.post("{BASE}/relations").set("Accept", "json").send({{ sourceId: "s" }}).query({{ dryRun: 1 }});
$http({{ method: "DELETE", url: "{BASE}/assets/bulk", data: {{ ids: [] }} }});
$http.get("{BASE}/statuses", {{ params: {{ offset: 0 }} }});
$.ajax({{ url: "{BASE}/users", type: "GET", data: {{ firstName: "a" }} }});
$.ajax({{ url: "{BASE}/users", type: "POST", data: {{ lastName: "b" }} }});
axios.create({{ baseURL: "{BASE}" }}).get("/views", {{ params: {{ viewId: "v" }} }});
"""


def test_option_objects_of_the_common_libraries() -> None:
    rows = _rows(LIBRARIES)
    expected = {
        (1, "body", "POST", f"{BASE}/assets", "name"),
        (3, "body", "POST", f"{BASE}/domains", "communityId"),
        (4, "query", "GET", f"{BASE}/roles", "userId"),
        (5, "body", "POST", f"{BASE}/communities", "parentId"),
        (6, "body", "PUT", f"{BASE}/tags", "label"),
        (7, "body", "POST", f"{BASE}/relations", "sourceId"),
        (7, "query", "POST", f"{BASE}/relations", "dryRun"),
        (8, "endpoint", "DELETE", f"{BASE}/assets/bulk", ""),
        (8, "body", "DELETE", f"{BASE}/assets/bulk", "ids"),
        (9, "query", "GET", f"{BASE}/statuses", "offset"),
        (10, "query", "GET", f"{BASE}/users", "firstName"),
        (11, "body", "POST", f"{BASE}/users", "lastName"),
        (12, "endpoint", "GET", f"{BASE}/views", ""),
        (12, "query", "GET", f"{BASE}/views", "viewId"),
    }
    assert expected <= rows
    shorthand_url = read(LIBRARIES, "javascript", "/assets")
    assert shorthand_url is not None
    assert (shorthand_url.method, shorthand_url.role) == ("POST", "endpoint")


TYPED = f"""\
interface Asset {{ id: string }}
export class Catalog {{
  private readonly assetsUrl: string = "{BASE}/assets";
  constructor(private http: HttpClient, private client?: AxiosInstance) {{}}

  async find(name: string): Promise<Asset[]> {{
    const page = await axios.get<Asset[]>(this.assetsUrl, {{ params: {{ name }} }});
    const again = (await this.client?.get<Asset[]>("/domains", {{ params: {{ limit: 5 }} }}))!;
    return (await fetch(`${{BASE}}/roles` as string, {{ method: "POST" as const }})).json();
  }}
}}
const BASE = "{BASE}";
"""


def test_type_arguments_casts_optional_chaining_and_class_fields() -> None:
    rows = _rows(TYPED, "typescript")
    assert (2, "endpoint", "GET", f"{BASE}/assets", "") in rows
    assert (6, "query", "GET", f"{BASE}/assets", "name") in rows
    assert (7, "query", "GET", "/domains", "limit") in rows
    assert (8, "endpoint", "POST", f"{BASE}/roles", "") in rows


PAGE = f"""\
<!doctype html>
<html><head><title>Assets</title>
<script src="vendor.js"></script>
<script type="text/template"><a href="/rest/2.0/assets/{{id}}">x</a></script>
</head><body>
<p>Calls <code>fetch("/rest/2.0/assets")</code> on load.</p>
<script>
  const API = "{BASE}";
  async function load() {{
    return fetch(API + "/communities?offset=0", {{ method: "GET" }});
  }}
</script>
</body></html>
"""


def test_inline_scripts_of_an_html_page_are_javascript() -> None:
    rows = _rows(PAGE, "html")
    assert (9, "endpoint", "GET", f"{BASE}/communities", "") in rows
    assert (9, "query", "GET", f"{BASE}/communities", "offset") in rows
    assert {row[0] for row in rows} <= {7, 9}  # nothing from the template, the prose, the tags
    hovered = read(PAGE, "html", "/communities")
    assert hovered is not None
    assert (hovered.method, hovered.role, hovered.url) == ("GET", "endpoint", f"{BASE}/communities")
    assert _rows(PAGE.replace("<script>", "<script type='text/x-template'>"), "html") == set()


TEMPLATED_PAGE = """\
<script>
  const API = "{{ collibra_url }}/rest/2.0";
  {% if editable %}
  const rows = {{ rows|tojson }};
  {% endif %}
  fetch(API + "/domains", { method: "POST", body: JSON.stringify({ name: n, communityId: c }) });
  <% if (admin) { %>
  fetch("<%= base %>/rest/2.0/users/" + id, { method: "DELETE" });
  <% } %>
</script>
"""


def test_a_server_template_page_keeps_its_script_readable() -> None:
    """Jinja and EJS tags inside a page's script: statement tags are no JavaScript, a value tag
    stands for a value, and a placeholder inside a URL string is an unknown part of it."""
    rows = _rows(TEMPLATED_PAGE, "html")
    assert (5, "endpoint", "POST", "{}/rest/2.0/domains", "") in rows
    assert (5, "body", "POST", "{}/rest/2.0/domains", "communityId") in rows
    assert (7, "endpoint", "DELETE", "{}/rest/2.0/users/{}", "") in rows


HANDLERS_PAGE = """\
<button onclick="show('/rest/2.0/communities')">Communities</button>
<button onclick='show("/rest/2.0/domains?limit=5")' onmouseover="hint()">Domains</button>
<a href="#" onclick="fetch(API + '/tags/' + id, {method: 'DELETE'}); return false;">x</a>
<p>Writing onclick="show('/rest/2.0/users')" in prose is no handler.</p>
<script>
  const API = "https://acme.collibra.com/rest/2.0";
  function show(path) { return fetch(API.replace("/rest/2.0", "") + path); }
</script>
"""


def test_event_handler_attributes_are_code_of_the_page() -> None:
    """`onclick="show('/rest/2.0/...')"` calls a function of the page's scripts: each handler is
    a statement where it is written; text between tags is no code."""
    endpoints = {(r[0], r[2], r[3]) for r in _rows(HANDLERS_PAGE, "html") if r[1] == "endpoint"}
    assert endpoints == {
        # `API.replace("/rest/2.0", "")` is the host the page's API constant names
        (0, "GET", "https://acme.collibra.com/rest/2.0/communities"),
        (1, "GET", "https://acme.collibra.com/rest/2.0/domains"),
        (2, "DELETE", "{}/tags/{}"),  # the page sets API after the tag: not read there
    }


def test_a_minified_bundle_and_a_long_file_of_wrapper_calls() -> None:
    call = f'fetch("{BASE}/assets",{{method:"POST",body:JSON.stringify({{name:n}})}});'
    wrapper = "function w(p,q){return axios.get(B+p,{params:q})}"
    minified = "var B='" + BASE + "';" + (wrapper + call + 'w("/roles",{a:1});') * 40_000
    assert scan_calls(minified, "javascript") == []  # one 5 MB line: generated code, skipped
    lines = [f'get("/assets/{i}", {{ limit: {i} }});' for i in range(2_000)]
    head = "const get = (p, q) => axios.get(BASE + p, { params: q });\n"
    long_file = head + f"const BASE = '{BASE}';\n" + "\n".join(lines)
    found = scan_calls(long_file, "javascript", budget_s=60)
    endpoints = [item for item in found if item.site.role == "endpoint"]
    assert len(endpoints) == 2_000
    assert endpoints[-1].site.url == f"{BASE}/assets/1999"


def test_the_verb_of_an_awaited_typed_call_names_its_endpoint() -> None:
    code = f'async function f() {{ return await axios.get<Asset[]>("{BASE}/assets"); }}\n'
    verb = read(code, "typescript", "get<")
    assert verb is not None
    assert (verb.method, verb.role, verb.url) == ("GET", "endpoint", f"{BASE}/assets")


SHAPES = """\
const config = require("./config.json");
async function owners(kind, id) {
  const path = kind === "group" ? `/userGroups/${id}` : `/users/${id}`;
  return apiFetch(path);
}
async function apiFetch(path, body) {
  const init = { method: body ? "POST" : "GET", body: body && JSON.stringify(body) };
  return fetch(API + path, init);
}
const API = "https://acme.collibra.com/rest/2.0";
axios.get(`${config.apiUrl}communities`, { params: { offset: 0 } });
axios.get("https://cors-proxy.example.org/https://acme.collibra.com/rest/2.0/statuses");
"""


def test_ternary_paths_a_base_with_its_slash_and_a_cors_proxy() -> None:
    rows = _rows(SHAPES)
    assert (2, "endpoint", "GET", f"{BASE}/userGroups/{{}}", "") in rows
    assert (2, "endpoint", "GET", f"{BASE}/users/{{}}", "") in rows
    assert (10, "endpoint", "GET", "{}/communities", "") in rows
    assert (10, "query", "GET", "{}/communities", "offset") in rows
    assert (11, "endpoint", "GET", f"{BASE}/statuses", "") in rows


def test_node_request_options_and_generated_client_internals() -> None:
    """Node's ``https.request(options)`` with the options in a variable (its URL under
    ``path``), a generated TypeScript client's ``this.request({path, method})`` and a generated
    JavaScript client's ``apiClient.callApi(path, method, ...)``."""
    node = (
        "const https = require('https');\n"
        "const options = { hostname: host, path: '/rest/2.0/tags', method: 'DELETE' };\n"
        "https.request(options, (res) => res.resume()).end();\n"
    )
    assert (1, "endpoint", "DELETE", "/rest/2.0/tags", "") in _rows(node)
    generated_ts = (
        "export class TagsApi extends runtime.BaseAPI {\n"
        "  async findTagsRaw(init?: RequestInit) {\n"
        "    return this.request({ path: `/tags`, method: 'GET', query: q }, init);\n"
        "  }\n"
        "}\n"
    )
    assert (2, "endpoint", "GET", "/tags", "") in _rows(generated_ts, "typescript")
    generated_js = (
        "export default class TagsApi {\n"
        "  addTagWithHttpInfo(body) {\n"
        "    return this.apiClient.callApi('/tags', 'POST', {}, {}, {}, {}, body, ['basicAuth']);\n"
        "  }\n"
        "}\n"
    )
    assert (2, "endpoint", "POST", "{}/tags", "") in _rows(generated_js)


def test_a_url_object_a_script_changes_before_sending_it_is_that_calls() -> None:
    """At a script's top level, ``new URL(...)``, its ``searchParams`` set on the next lines and
    one ``fetch(url)``: the URL and its keys are that call's. A base shared by several calls
    is still no one call's."""
    script = (
        "const url = new URL(`${origin}/rest/2.0/tags`);\n"
        'url.searchParams.set("name", label);\n'
        "const reply = await fetch(url);\n"
    )
    rows = _rows(script)
    assert (0, "endpoint", "GET", "{}/rest/2.0/tags", "") in rows
    assert (1, "query", "GET", "{}/rest/2.0/tags", "name") in rows
    shared = (
        'const BASE = "https://acme.collibra.com/rest/2.0/tags";\n'
        "await fetch(BASE);\n"
        'await fetch(BASE, { method: "POST" });\n'
    )
    assert not any(row[0] == 0 for row in _rows(shared))
