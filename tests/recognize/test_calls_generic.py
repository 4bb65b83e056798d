"""Calls in languages with no reader of their own (C#, Ruby, PHP, Kotlin, Rust, Ballerina,
CoffeeScript), read as text: verb calls and requests naming their verb whose URL visibly targets
Collibra; comments, route definitions, other services and junk give nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize.calls.reader import call_at
from atlas_core.recognize.calls.scan import scan_calls
from atlas_core.recognize.text_scan import normalize_language
from tests.apicheck_bundle import build_apicheck_bundle

HOST = "https://acme.collibra.com"

SNIPPETS = {
    "csharp": f"""\
var root = "{HOST}";
// await http.GetAsync("/rest/2.0/comments");
var res = await http.GetAsync($"{{root}}/rest/2.0/tables/{{tableId}}?limit=5");
var msg = new HttpRequestMessage(HttpMethod.Post, root + "/rest/2.0/tables");
""",
    "ruby": f"""\
ROOT = "{HOST}/rest/2.0"
# RestClient.get "#{{ROOT}}/comments"
rows = RestClient.get "#{{ROOT}}/tables?name=x", headers
target = URI("#{{ROOT}}/tables")
req = Net::HTTP::Post.new(target)
get "/rest/2.0/tables" do
  "a route this app serves"
end
""",
    "php": f"""<?php
$root = '{HOST}/rest/2.0';
$r = $http->get($root . '/tables');
$r = $http->request('DELETE', "$root/tables/{{$id}}");
""",
    "kotlin": f"""\
val root = "{HOST}/rest/2.0"
val one = client.get("$root/tables/${{id}}")
val req = HttpRequest.newBuilder()
    .uri(URI.create("$root/tables"))
    .POST(BodyPublishers.ofString(json))
    .build()
""",
    "rust": f"""\
let root = "{HOST}/rest/2.0";
let one = reqwest::get(format!("{{}}/tables/{{}}", root, id)).await?;
fn pick<'a>(x: &'a str) -> char {{ 'x' }}
let made = client.put(&format!("{{root}}/tables")).json(&body).send().await?;
""",
    "ballerina": f"""\
http:Client tablesClient = check new ("{HOST}");
json rows = check tablesClient->get("/rest/2.0/tables?offset=0");
""",
    "coffeescript": """\
tables_uri = "rest/2.0/tables"
msg.http(process.env.ROOT + tables_uri)
  .headers("Accept": "application/json")
  .post(payload) (err, res, body) ->
    msg.reply "done"
### robot.http("/rest/2.0/comments").get() ###
""",
}

EXPECTED = {
    "csharp": [(2, "GET", f"{HOST}/rest/2.0/tables/{{}}"), (3, "POST", f"{HOST}/rest/2.0/tables")],
    "ruby": [(2, "GET", f"{HOST}/rest/2.0/tables"), (3, "POST", f"{HOST}/rest/2.0/tables")],
    "php": [(2, "GET", f"{HOST}/rest/2.0/tables"), (3, "DELETE", f"{HOST}/rest/2.0/tables/{{}}")],
    "kotlin": [(1, "GET", f"{HOST}/rest/2.0/tables/{{}}"), (3, "POST", f"{HOST}/rest/2.0/tables")],
    "rust": [(1, "GET", f"{HOST}/rest/2.0/tables/{{}}"), (3, "PUT", f"{HOST}/rest/2.0/tables")],
    "ballerina": [(1, "GET", "/rest/2.0/tables")],
    "coffeescript": [(0, "POST", "{}/rest/2.0/tables")],
}


@pytest.mark.parametrize("language", sorted(SNIPPETS))
def test_endpoints_of_verb_calls_and_requests(language: str) -> None:
    found = [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(SNIPPETS[language], language)
        if i.site.role == "endpoint"
    ]
    assert found == EXPECTED[language]


def test_query_keys_and_hover_in_the_call() -> None:
    keys = [(i.line, i.site.name) for i in scan_calls(SNIPPETS["ruby"], "ruby") if i.site.name]
    assert keys == [(2, "name")]
    line = SNIPPETS["csharp"].split("\n")[2]
    site = call_at(SNIPPETS["csharp"], "csharp", 2, line.index("limit") + 1)
    assert site is not None and (site.role, site.name, site.method) == ("query", "limit", "GET")


BALLERINA_CONNECTOR = """\
public isolated client class Client {
    remote isolated function listTables(string? name = (), int 'limit = 0) returns Page|error {
        string resourcePath = string `/tables`;
        map<anydata> queryParam = {"name": name, "limit": 'limit};
        resourcePath = resourcePath + check getPathForQueryParam(queryParam);
        return self.clientEp->get(resourcePath);
    }
    remote isolated function getTable(string tableId) returns Table|error {
        string resourcePath = string `/tables/${getEncodedUri(tableId)}`;
        return self.clientEp-> get(resourcePath);
    }
}
json one = check cl->delete(string `/rest/2.0/tables/${id}`);
"""


def test_ballerina_string_templates_quoted_names_and_a_query_builder() -> None:
    """A Ballerina connector's calls: string templates are strings, ``'limit`` is a name (no
    string starts there), and a path joined to a query-building call ends at the call."""
    found = [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(BALLERINA_CONNECTOR, "ballerina")
        if i.site.role == "endpoint"
    ]
    assert found == [
        (2, "GET", "/tables"),
        (8, "GET", "/tables/{}"),
        (12, "DELETE", "/rest/2.0/tables/{}"),
    ]


def test_language_ids_of_editors_are_folded() -> None:
    assert [normalize_language(x) for x in ("cs", "rb", "rs", "coffee", "exs", "bal")] == [
        "csharp",
        "ruby",
        "rust",
        "coffeescript",
        "elixir",
        "ballerina",
    ]
    assert scan_calls(SNIPPETS["ruby"], "rb") == scan_calls(SNIPPETS["ruby"], "ruby")


def test_what_is_not_visibly_collibra_gives_nothing() -> None:
    code = (
        'cache.get("/tables")\n'  # a map, not a client
        'client.get("https://api.example.com/tables")\n'  # another service
        "client.get(config.url)\n"  # a value the file does not show
        'router.get("/rest/2.0/tables", handler -> ok())\n'  # a route
        '// client.get("/rest/2.0/comments")\n'  # a comment
        'client.get("/rest/2.0/tables")\n'  # the one call
    )
    found = [(i.line, i.site.url) for i in scan_calls(code, "kotlin")]
    assert found == [(5, "/rest/2.0/tables")]
    assert scan_calls('{"get": "/rest/2.0/tables"}', "json") == []


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_a_wrong_path_is_flagged_in_csharp_and_ruby(engine: Engine) -> None:
    csharp = (
        f'var root = "{HOST}/rest/2.0";\n'
        'await http.GetAsync($"{root}/asset/{id}");\n'
        'await http.GetAsync($"{root}/assets?nameMatchMode=EXACTLY");\n'
    )
    found = engine.check_code(csharp, "csharp")
    assert [(f.line, f.check) for f in found] == [(1, "unknown-endpoint"), (2, "bad-value")]
    ruby = f'ROOT = "{HOST}/rest/2.0"\nHTTParty.get("#{{ROOT}}/assets")\n'
    assert engine.check_code(ruby, "ruby") == []


def test_a_path_relative_to_the_clients_base_is_read(engine: Engine) -> None:
    """RestSharp's ``new RestRequest("rest/2.0/assets", Method.Get)`` on a client that holds the
    base URL (ending in its slash): the path alone is the request's."""
    csharp = (
        'var find = new RestRequest("rest/2.0/assets", Method.Get);\n'
        'var one = new RestRequest($"rest/2.0/assets/{id}", Method.Get);\n'
        'var wrong = new RestRequest("rest/2.0/asset", Method.Get);\n'
        'var other = new RestRequest("api/v2/assets", Method.Get);\n'
    )
    found = [(i.line, i.site.method, i.site.url) for i in scan_calls(csharp, "csharp")]
    assert found == [
        (0, "GET", "/rest/2.0/assets"),
        (1, "GET", "/rest/2.0/assets/{}"),
        (2, "GET", "/rest/2.0/asset"),
    ]
    assert [(f.line, f.check) for f in engine.check_code(csharp, "csharp")] == [
        (2, "unknown-endpoint")
    ]


def test_huge_and_junk_input_stays_bounded() -> None:
    many = 'x = client.GetAsync("/rest/2.0/assets"); // see the docs\n' * 100_000
    assert len(scan_calls(many, "csharp", budget_s=600)) == 5000  # the site limit
    junk = (
        "get(" * 50_000,
        'client.get("' + "x" * 100_000,
        "\x00" * 1000,
        '"/rest/' * 100_000,
        "a = b\nb = a\nclient.get(a + '/rest/2.0/x' + a)\n",  # names assigned to each other
    )
    for text in junk:
        start = time.monotonic()
        scan_calls(text, "ruby")
        assert time.monotonic() - start < 5  # far from a hang, whatever the machine
