"""No diagnostic rather than a guess (issue 29): shapes of public client code, written here in
their form, on which the checks used to judge a call that is not certainly a Collibra call, or
not certainly the call they thought."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.apicheck import ApiModel, Operation, check_request
from atlas_core.apicheck.model import Spec
from atlas_core.engine import Engine
from atlas_core.types import Param
from tests.apicheck_bundle import build_apicheck_bundle


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def _checks(engine: Engine, code: str) -> list[tuple[int, str]]:
    return [(f.line, f.check) for f in engine.check_code(code, "python")]


# A marketing API with assets of its own, its base set at run time in a global.
OTHER_API = """import requests

ROOT = None


def connect(site):
    global ROOT
    ROOT = site + "{base}"


def find(text):
    return requests.get(f"{{ROOT}}assets", params={{"search": text, "depth": "full"}})
"""


def test_a_document_that_talks_to_another_api_is_not_judged_by_resource_names(
    engine: Engine,
) -> None:
    """``assets`` behind a base the code does not show is Collibra's only by its name: in a
    document that writes another API's versioned base and never names Collibra, no finding."""
    assert _checks(engine, OTHER_API.format(base="/api/REST/2.0/")) == []
    # The same calls in a Collibra client (its base path written) are judged as before.
    judged = _checks(engine, OTHER_API.format(base="/rest/2.0/"))
    assert judged == [(11, "unknown-param"), (11, "unknown-param")]


def test_calls_behind_an_unseen_base_are_judged_only_where_collibra_shows(
    engine: Engine,
) -> None:
    """The language server reads every file of a workspace: a client of any other service
    that has assets and pages gets no Collibra finding; the same calls in a file that names
    Collibra or writes its base path are judged."""
    other = (
        "import os, requests\n"
        'API = os.environ["API_URL"]\n'
        'requests.get(API + "/assets", params={"page": 2})\n'
    )
    assert _checks(engine, other) == []
    assert _checks(engine, other.replace("API_URL", "COLLIBRA_URL")) == [(2, "unknown-param")]
    based = other.replace('"/assets"', '"/rest/2.0/assets"')
    assert _checks(engine, based) == [(2, "unknown-param")]
    js = "const r = await fetch(`${process.env.API}/assets?page=2`);\n"
    assert engine.check_code(js, "javascript") == []
    assert [f.check for f in engine.check_code("// collibra\n" + js, "javascript")] == [
        "unknown-param"
    ]


def test_a_version_segment_after_an_unseen_base_is_another_api(engine: Engine) -> None:
    code = (
        "import requests\n"
        "\n"
        "# Copies Collibra terms into the search index.\n"
        "def query(host, text):\n"
        '    return requests.get(f"{host}/assets/v2", params={"q": text})\n'
        "\n"
        "def usage(host):\n"
        '    return requests.get(f"{host}/roles/v1/stats")\n'
    )
    assert _checks(engine, code) == []


def test_a_segment_the_code_computes_in_part_is_not_a_parameter(engine: Engine) -> None:
    """``f"{kind}s"`` may be any word: the path is not certain, so neither is the operation."""
    code = (
        "import requests\n"
        'BASE = "https://acme.collibra.com/rest/2.0"\n'
        "def find(kind, text):\n"
        '    return requests.get(f"{BASE}/assets/{kind}s", params={"search": text})\n'
    )
    assert _checks(engine, code) == []
    whole = code.replace("/{kind}s", "")
    assert _checks(engine, whole) == [(3, "unknown-param")]


def test_a_body_for_an_operation_that_takes_none_is_a_misread_method(engine: Engine) -> None:
    """A body sent to a GET that takes none means the method was misread (a helper that picks
    it in a way the reader does not follow): its keys are not each a mistake. A helper that
    branches on its method argument (``call="post"``) is read with that method."""
    code = (
        "import requests\n"
        'BASE = "https://acme.collibra.com/rest/2.0"\n'
        "def api_request(url, call, data=None):\n"
        "    return requests.get(url) if not data else requests.post(url, json=data)\n"
        "def upload(asset_id):\n"
        '    return api_request(f"{BASE}/assets/{asset_id}", "post", data={"title": "x"})\n'
    )
    assert _checks(engine, code) == []
    branching = (
        "import requests\n"
        'BASE = "https://acme.collibra.com/rest/2.0"\n'
        'def api_request(url, call="get", data=None):\n'
        '    if call == "get":\n'
        "        return requests.get(url)\n"
        "    return requests.post(url, json=data)\n"
        "def upload(asset_id):\n"
        '    return api_request(f"{BASE}/assets/{asset_id}", call="post", data={"title": "x"})\n'
    )
    # /assets/{assetId} takes no POST: one finding, on the method, none on the body's keys.
    assert _checks(engine, branching) == [(7, "method-not-allowed")]


def test_an_endpoint_unlike_any_documented_one_is_left_alone(engine: Engine) -> None:
    """A path no docs page describes and no documented path is a slip of may be an endpoint the
    bundle's docs do not cover (a health check, a newer resource): no finding. A slip of a
    documented path (another case, singular for plural, a letter or two) is still an error."""
    call = 'import requests\n\nrequests.get("https://acme.collibra.com/rest/2.0{path}")\n'
    assert _checks(engine, call.format(path="/health")) == []
    assert _checks(engine, call.format(path="/dashboards/tiles")) == []
    for slip in ("/asset", "/Assets", "/asests"):
        assert _checks(engine, call.format(path=slip)) == [(2, "unknown-endpoint")], slip


def _comments_model() -> ApiModel:
    """Collibra's comment and asset-change shapes: a required `baseResource` object listed beside
    its flat `baseResourceId`/`baseResourceType` form, and a change request whose schema does not
    list the `id` the path already names."""
    spec = Spec("core", "Core", "core.json", "/rest/2.0")
    comment = Operation(
        "POST",
        "/comments",
        ("comments",),
        body=(
            Param("baseResource", "body", "object", required=True),
            Param("baseResourceId", "body", "string"),
            Param("baseResourceType", "body", "string"),
            Param("content", "body", "string", required=True),
        ),
        spec=spec,
    )
    change = Operation(
        "PATCH",
        "/assets/{assetId}",
        ("assets", "{}"),
        params=(Param("assetId", "path", "string", required=True),),
        body=(Param("name", "body", "string"), Param("displayName", "body", "string")),
        spec=spec,
    )
    return ApiModel((spec,), [comment, change])


def test_the_flat_form_of_a_required_object_is_that_object() -> None:
    model = _comments_model()
    flat = {"baseResourceId": "a-1", "baseResourceType": "Asset", "content": "checked"}
    assert check_request(model, "POST", "/comments", body=flat)[1] == []
    # A body without either form still lacks it.
    [missing] = check_request(model, "POST", "/comments", body={"content": "checked"})[1]
    assert missing.check == "missing-required" and "'baseResource'" in missing.message


def test_a_body_id_beside_the_path_id_is_not_unknown() -> None:
    model = _comments_model()
    body = {"id": "a-1", "name": "Revenue"}
    assert check_request(model, "PATCH", "/assets/a-1", body=body)[1] == []
    [unknown] = check_request(model, "PATCH", "/assets/a-1", body={"ident": "a-1"})[1]
    assert unknown.check == "unknown-param"


def test_a_query_key_on_an_operation_that_lists_no_query_parameter_is_left_alone() -> None:
    """With no query parameter to be a slip of, a key the spec does not list (``include`` on the
    current session) may simply be unlisted; where the operation lists some, it is judged."""
    spec = Spec("core", "Core", "core.json", "/rest/2.0")
    session = Operation("GET", "/auth/sessions/current", ("auth", "sessions", "current"), spec=spec)
    listing = Operation(
        "GET", "/tags", ("tags",), params=(Param("name", "query", "string"),), spec=spec
    )
    model = ApiModel((spec,), [session, listing])
    query = {"include": "csrfToken"}
    assert check_request(model, "GET", "/auth/sessions/current", params=query)[1] == []
    [unknown] = check_request(model, "GET", "/tags", params=query)[1]
    assert unknown.check == "unknown-param"
