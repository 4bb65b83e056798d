"""API checks of client code (`Engine.check_code`) and of single requests (`Engine.check_request`)
against the small spec of `tests/apicheck_bundle.py`: endpoints, methods, keys, values, required keys and deprecations, in the call shapes
users write, and the code that must give nothing (prose, other APIs, nested maps, junk)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.errors import QueryError
from atlas_core.recognize import ENDPOINT, scan_calls
from atlas_core.types import ApiFinding
from tests.apicheck_bundle import build_apicheck_bundle

BASE = "https://acme.collibra.com/rest/2.0"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def _checks(found: list[ApiFinding]) -> list[tuple[int, str]]:
    return [(f.line, f.check) for f in found]


def _covered(code: str, finding: ApiFinding) -> str:
    return code.splitlines()[finding.line][finding.start : finding.end]


def test_unknown_endpoint_is_an_error_with_a_did_you_mean_fix(engine: Engine) -> None:
    code = f'import requests\nr = requests.get("{BASE}/asset", params={{"name": "x"}})\n'
    [found] = engine.check_code(code, "python")
    assert found.check == "unknown-endpoint" and found.severity == "error"
    assert "did you mean /assets" in found.message
    assert _covered(code, found) == f"{BASE}/asset"
    assert found.fixes[0] == f"{BASE}/assets"
    assert "api.yaml" in found.rule


def test_method_not_allowed_names_the_methods_the_path_takes(engine: Engine) -> None:
    code = f'import requests\nrequests.put(f"{BASE}/assets", json={{}})\n'
    [found] = engine.check_code(code, "python")
    assert found.check == "method-not-allowed" and found.severity == "error"
    assert "does not take PUT; it takes GET, POST" in found.message


def test_literal_segments_beat_parameter_segments(engine: Engine) -> None:
    # POST /communities/removalJobs is its own endpoint, never /communities/{communityId}.
    good = f'import requests\nrequests.post("{BASE}/communities/removalJobs", json=[cid])\n'
    assert engine.check_code(good, "python") == []
    wrong = f'import requests\nrequests.delete("{BASE}/communities/removalJobs")\n'
    [found] = engine.check_code(wrong, "python")
    assert found.check == "method-not-allowed" and "it takes POST" in found.message
    # An id the code computes is the parameter: DELETE /communities/{communityId}, deprecated.
    by_id = f'import requests\nrequests.delete(f"{BASE}/communities/{{cid}}")\n'
    [dep] = engine.check_code(by_id, "python")
    assert dep.check == "deprecated" and dep.endpoint == "DELETE /communities/{communityId}"


def test_missing_required_sits_where_the_literal_opens(engine: Engine) -> None:
    """The missing key is added to the literal, so the finding is on its opening ``{`` (a line
    above the first key when the literal is spread over lines), not on a key that is right."""
    code = (
        "async function add(n) {\n"
        "  const payload = {\n"
        "    name: n,\n"
        '    "displayName": n,\n'
        "  };\n"
        f'  return fetch("{BASE}/assets", {{ method: "POST", body: JSON.stringify(payload) }});\n'
        "}\n"
    )
    found = [f for f in engine.check_code(code, "javascript") if f.check == "missing-required"]
    lines = code.split("\n")
    assert [(f.line, lines[f.line][f.start], f.end_line) for f in found] == [(1, "{", 2)]
    assert lines[2][: found[0].end] == "    name"  # the range ends with the first key
    assert "'domainId', 'typeId'" in found[0].message


def test_unknown_query_parameter_and_bad_enum_value(engine: Engine) -> None:
    code = (
        "import requests\n"
        f'params = {{"nameMatchmode": "START", "limit": 5}}\n'
        f'requests.get("{BASE}/assets", params=params)\n'
        f'requests.get("{BASE}/assets", params={{"nameMatchMode": "EXACTLY"}})\n'
    )
    found = engine.check_code(code, "python")
    assert _checks(found) == [(1, "unknown-param"), (3, "bad-value")]
    unknown, value = found
    assert _covered(code, unknown) == "nameMatchmode" and unknown.fixes == ("nameMatchMode",)
    assert unknown.severity == "warning" and unknown.target == "params.nameMatchmode"
    assert _covered(code, value) == "EXACTLY" and value.fixes[0] == "EXACT"
    assert "START, END, ANYWHERE, EXACT" in value.message


def test_missing_required_only_where_the_whole_literal_is_in_view(engine: Engine) -> None:
    # In the call, or assigned to a name the same scope only sends (issue 29); not with a spread.
    code = (
        "import requests\n"
        f'requests.post("{BASE}/assets", json={{"name": "n", "domainId": d}})\n'
        "body = {'name': 'n'}\n"
        f'requests.post("{BASE}/assets", json=body)\n'
        f'requests.post("{BASE}/assets", json={{"name": "n", **extra}})\n'
    )
    found = engine.check_code(code, "python")
    assert _checks(found) == [(1, "missing-required"), (2, "missing-required")]
    assert "'typeId'" in found[0].message and "'name'" not in found[0].message
    assert "'domainId', 'typeId'" in found[1].message


def test_nested_maps_and_free_form_values_are_not_checked_as_keys(engine: Engine) -> None:
    code = (
        "import requests\n"
        f'requests.post("{BASE}/assets", json={{"name": "n", "domainId": d, "typeId": t,\n'
        '    "attributes": {"00000000-attr-type": ["v"], "anyKey": 1}, "status": "DRAFT"})\n'
    )
    assert engine.check_code(code, "python") == []


def test_bulk_bodies_check_their_items(engine: Engine) -> None:
    code = (
        "import requests\n"
        f'requests.post("{BASE}/assets/bulk", json=[{{"name": "n", "domainID": d, "typeId": t}}])\n'
    )
    found = engine.check_code(code, "python")
    assert ("unknown-param", ("domainId",)) in [(f.check, f.fixes) for f in found]


def test_deprecations_follow_what_the_docs_say(engine: Engine) -> None:
    code = (
        "import requests\n"
        f'requests.delete(f"{BASE}/communities/{{cid}}")\n'
        f'requests.post("{BASE}/assignments")\n'
        f'requests.get("{BASE}/roles", params={{"global": "true"}})\n'
        f'requests.post("{BASE}/assets", json={{"name": "n", "domainId": d, "typeId": t, '
        '"excludedFromAutoHyperlinking": True})\n'
    )
    found = {f.line: f for f in engine.check_code(code, "python")}
    assert sorted(found) == [1, 2, 3, 4]
    assert all(f.check == "deprecated" and f.deprecated for f in found.values())
    # "will be removed": a warning, with the replacement the docs name.
    assert found[1].severity == "warning"
    assert "use POST /communities/removalJobs instead" in found[1].message
    # A deprecated operation that still works: information.
    assert found[2].severity == "information"
    # A deprecated parameter or body key: a hint, struck through (the editor's deprecated
    # style, not a problem in its list), saying so where its note says it goes away.
    assert {found[n].severity for n in (3, 4)} == {"hint"}
    assert _covered(code, found[3]) == "global"
    going = engine.check_code(
        f'import requests\nrequests.get("{BASE}/roles", params={{"scope": "x"}})\n', "python"
    )
    assert [(f.check, f.severity) for f in going] == [("deprecated", "hint")]
    assert "will be removed" in going[0].message


def test_prose_comments_and_docstrings_are_never_calls(engine: Engine) -> None:
    code = (
        "import requests\n"
        "def remove(cid):\n"
        '    """Use POST /communities/removalJobs instead of DELETE /communities/{id}."""\n'
        f'    # requests.delete("{BASE}/communities/" + cid)\n'
        '    note = "see /rest/2.0/asset for details"\n'
        "    return note\n"
    )
    assert engine.check_code(code, "python") == []


def test_other_apis_and_unknown_bases_give_nothing(engine: Engine) -> None:
    code = (
        "import requests\n"
        'requests.get("https://api.github.com/repos/x/y", params={"nameMatchmode": 1})\n'
        'requests.get(f"{other}/widgets/{wid}")\n'
        'requests.get("https://acme.collibra.com/rest/1.0/term")\n'
        'requests.get(url, params={"nameMatchmode": 1})\n'
    )
    assert engine.check_code(code, "python") == []
    # Behind a base the code does not show, a documented resource with a tail no documented path
    # is a slip of is a guess: nothing. A method its path does not take is only a warning: the
    # base might be another service's.
    guess = 'import requests  # Collibra\nrequests.get(f"{base}/assets/{aid}/tagz")\n'
    assert engine.check_code(guess, "python") == []
    post = guess.replace("get", "post").replace("/tagz", "")
    [found] = engine.check_code(post, "python")
    assert found.check == "method-not-allowed" and found.severity == "warning"
    # In a document with no sign of Collibra, such a base may be any service's: nothing.
    assert engine.check_code(post.replace("  # Collibra", ""), "python") == []


def test_client_classes_with_a_base_and_a_wrapper(engine: Engine) -> None:
    code = (
        "import requests\n"
        "class Client:\n"
        "    def __init__(self, host):\n"
        f'        self.base = "{BASE}"\n'
        "        self.session = requests.Session()\n"
        "    def _request(self, method, path, **kw):\n"
        "        return self.session.request(method, self.base + path, **kw)\n"
        "    def find(self):\n"
        '        return self._request("GET", "/assets", params={"nameMatchMode": "EXACTLY"})\n'
        "    def wrong(self):\n"
        '        return self._request("PATCH", "/assets")\n'
    )
    assert _checks(engine.check_code(code, "python")) == [
        (8, "bad-value"),
        (10, "method-not-allowed"),
    ]


def test_javascript_typescript_curl_groovy_and_java(engine: Engine) -> None:
    js = (
        f'const BASE = "{BASE}";\n'
        'await fetch(`${BASE}/assets`, {method: "POST", body: JSON.stringify({name: "n", domainId: d})});\n'
        'await axios.get(`${BASE}/assets`, {params: {nameMatchMode: "EXACTLY", limt: 5}});\n'
    )
    found = engine.check_code(js, "javascript")
    assert _checks(found) == [(1, "missing-required"), (2, "bad-value"), (2, "unknown-param")]
    assert _checks(engine.check_code(js, "typescript")) == _checks(found)
    curl = (
        f"curl -X DELETE '{BASE}/communities/removalJobs'\n"
        f"curl -X POST '{BASE}/assets' -H 'Content-Type: application/json' \\\n"
        """  -d '{"name": "n", "domainId": "d", "typeId": "t", "stauts": "DRAFT"}'\n"""
    )
    assert _checks(engine.check_code(curl, "shell")) == [
        (0, "method-not-allowed"),
        (2, "unknown-param"),
    ]
    groovy = f'def conn = new URL("{BASE}/asset").openConnection()\nconn.setRequestMethod("GET")\n'
    assert _checks(engine.check_code(groovy, "groovy")) == [(0, "unknown-endpoint")]
    java = (
        "HttpRequest request = HttpRequest.newBuilder()\n"
        f'    .uri(URI.create("{BASE}/asset"))\n'
        "    .GET().build();\n"
    )
    assert _checks(engine.check_code(java, "java")) == [(1, "unknown-endpoint")]


def test_markdown_checks_code_blocks_and_reads_request_lines_in_prose(engine: Engine) -> None:
    """A code block sends requests and is checked; a request line in prose describes one (a
    note's ``GET https://<your-instance>/rest/2.0/...``): it is read, for hover and go-to-doc,
    but not judged."""
    text = (
        "# Notes\n\nCall GET /rest/2.0/asset to list them; the asset pages say more.\n"
        "Then `GET https://<your-instance>/rest/2.0/assets?sortOrder=<order>&nam=x`.\n"
        f"```python\nimport requests\nrequests.get('{BASE}/asset')\n```\n"
    )
    found = engine.check_code(text, "markdown")
    assert [(f.line, f.check) for f in found] == [(6, "unknown-endpoint")]
    read = [(i.line, i.site.url) for i in scan_calls(text, "markdown") if i.site.role == ENDPOINT]
    assert (2, "/rest/2.0/asset") in read and (3, "https://{}/rest/2.0/assets") in read


@pytest.mark.parametrize(
    "junk",
    [
        f'import requests\nrequests.get("{BASE}/asset',  # unclosed string
        f'import requests\nrequests.post("{BASE}/assets", json={{"name": ',  # unclosed dict
        "x=1;" * 20_000,  # a minified one-line file
        "\x00\x01\ufffd\udcff" * 5000,  # binary junk opened as text
        "",
    ],
)
def test_bad_input_gives_no_exception_and_no_guess(engine: Engine, junk: str) -> None:
    for language in ("python", "javascript", "groovy", "shell", "markdown", "plaintext"):
        assert engine.check_code(junk, language) == []
    # A finished call beside half-typed code is still checked.
    typed = f'import requests\nrequests.get("{BASE}/asset")\nrequests.get("{BASE}/asse'
    assert _checks(engine.check_code(typed, "python")) == [(1, "unknown-endpoint")]


def test_check_request_for_agents(engine: Engine) -> None:
    assert engine.check_request("GET", "/assets", {"nameMatchMode": "EXACT"}) == []
    assert engine.check_request("get", "/rest/2.0/assets", {"limit": 3}) == []
    found = engine.check_request("GET", "/assets", {"nameMatchMode": "EXACTLY", "limt": 3})
    assert [(f.check, f.target) for f in found] == [
        ("bad-value", "params.nameMatchMode"),
        ("unknown-param", "params.limt"),
    ]
    [missing] = engine.check_request("POST", "/assets", body={"name": "n"})
    assert missing.check == "missing-required" and "'domainId', 'typeId'" in missing.message
    [wrong] = engine.check_request("DELETE", "/assets")
    assert wrong.check == "method-not-allowed"
    [unknown] = engine.check_request("GET", "/asset")
    assert unknown.check == "unknown-endpoint" and unknown.severity == "error"
    [dep] = engine.check_request("DELETE", "/communities/123")
    assert dep.check == "deprecated" and dep.severity == "warning"
    assert engine.api_operation("DELETE", "/communities/123") is not None
    with pytest.raises(QueryError):
        engine.check_request("GET", "")
    with pytest.raises(QueryError):
        engine.check_request("GET", "/assets", params=["nameMatchMode"])  # type: ignore[arg-type]


def test_an_id_the_code_computes_is_a_parameter_value(engine: Engine) -> None:
    # POST goes to /communities/removalJobs; a community id in its place is a mistake.
    code = (
        "import requests\n"
        f'BASE = "{BASE}"\n'
        'requests.post(BASE + "/communities/" + community_id)\n'
        'requests.post(BASE + "/communities/" + action)\n'
        'requests.post(f"{BASE}/communities/{cid}")\n'
    )
    found = engine.check_code(code, "python")
    # One report per call, on the path, never on the BASE constant the call joins it to.
    assert _checks(found) == [(2, "method-not-allowed"), (4, "method-not-allowed")]
    assert "it takes GET, DELETE" in found[0].message


def test_paths_are_case_sensitive(engine: Engine) -> None:
    code = f'import requests\nrequests.get("{BASE}/Assets")\n'
    [found] = engine.check_code(code, "python")
    assert found.check == "unknown-endpoint" and found.fixes == (f"{BASE}/assets",)


def test_generated_client_calls_of_deprecated_operations(engine: Engine) -> None:
    code = (
        "api = CommunitiesApi(client)\n"
        "api.remove_community(cid)\n"
        "# api.remove_community(cid) in a comment is prose\n"
        's = "api.remove_community(cid)"\n'
        "assignments_api.add_assignment(body)\n"
        "api.get_community(cid)\n"
    )
    found = engine.check_code(code, "python")
    assert [(f.line, f.check, f.severity) for f in found] == [
        (1, "deprecated", "warning"),  # the docs say it will be removed
        (4, "deprecated", "information"),
    ]
    assert found[0].message.startswith(
        "remove_community calls DELETE /communities/{communityId}, which is deprecated"
    )
    assert _covered(code, found[0]) == "remove_community" and found[0].deprecated
    js = "await communitiesApi.removeCommunity(id);\n"
    assert _checks(engine.check_code(js, "javascript")) == [(0, "deprecated")]


def test_a_deprecation_without_a_web_url_links_the_bundle_page(engine: Engine) -> None:
    from atlas_core.engine import linked
    from atlas_core.types import Deprecation

    op = engine.api_operation("GET", "/assets")
    assert op is not None
    bare = Deprecation("OldThing", "NewThing", op.file, op.line)
    url = linked(engine, bare).url
    assert url.startswith("file://") and url.endswith(op.file)
    web = Deprecation("OldThing", "", op.file, 1, "https://docs.example.invalid/x")
    assert linked(engine, web) == web
    assert linked(engine, Deprecation("OldThing", "", "no/such.md", 1)).url == ""


def test_okhttp_request_builders(engine: Engine) -> None:
    java = (
        f'static final String BASE = "{BASE}";\n'
        'Request get = new Request.Builder().url(BASE + "/asset").build();\n'
        'Request patch = new Request.Builder().url(BASE + "/assets").patch(body).build();\n'
        'Request ok = new Request.Builder().url(BASE + "/assets").post(body).build();\n'
        'MediaType json = MediaType.get("application/json");\n'
    )
    assert _checks(engine.check_code(java, "java")) == [
        (1, "unknown-endpoint"),
        (2, "method-not-allowed"),
    ]


def test_a_collibra_host_outside_the_spec_base_is_judged_only_where_a_path_is_known(
    engine: Engine,
) -> None:
    code = (
        "import requests\n"
        'requests.get("https://acme.collibra.com/edge/api/capabilities")\n'
        'requests.post("https://acme.collibra.com/graphql/knowledgeGraph/v1", json={"query": q})\n'
        'requests.get("https://acme.collibra.com/assets/{aid}/tagz")\n'
        'requests.delete("https://acme.collibra.com/assets")\n'
    )
    [found] = engine.check_code(code, "python")
    # `tagz` is a slip of no documented path (a guess: nothing); `/assets` is documented.
    assert (found.line, found.check, found.severity) == (4, "method-not-allowed", "error")


def test_a_proxy_path_before_the_base_is_part_of_the_base(engine: Engine) -> None:
    """Browser code reaches the API through its own origin's proxy (CORS): the path before
    `/rest/2.0` is the proxy's, and the call is judged and resolved as the same call without it."""
    code = (
        'fetch("/api/collibra/rest/2.0/asets?name=" + q);\n'
        'const PROXY = "/collibra";\n'
        "fetch(`${PROXY}/rest/2.0/assets?nameMatchMode=EXACTLY`);\n"
        'fetch(`${location.origin}/cors/rest/2.0/assets/${id}`, { method: "PUT" });\n'
        "fetch(`${location.origin}/cors/rest/2.0/assets/${id}`);\n"
        "fetch(`${location.protocol}//${location.host}/rest/2.0/assets?limt=5`);\n"
    )
    assert _checks(engine.check_code(code, "javascript")) == [
        (0, "unknown-endpoint"),
        (2, "bad-value"),
        (3, "method-not-allowed"),
        (5, "unknown-param"),  # an origin written as two unknown parts is one base too
    ]
    [site] = [
        item.site
        for item in scan_calls(code, "javascript")
        if item.line == 4 and item.site.role == ENDPOINT
    ]
    target = engine.resolve_call(site, define=False)
    assert target is not None and (target.method, target.path) == ("GET", "/assets/{assetId}")
    # More than a proxy's few segments, or another API's version, is not Collibra's base.
    assert engine.check_code('fetch("/a/b/c/d/rest/2.0/asets");\n', "javascript") == []
