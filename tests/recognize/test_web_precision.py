"""Correct JavaScript and markdown that must get no diagnostic (the precision hunt of issue 29):
shapes careful client code writes from the docs where a check once found fault."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.engine import DeprecationMatcher, Engine, find_terms
from atlas_core.types import Deprecation
from tests.apicheck_bundle import build_apicheck_bundle
from tests.fixture_builds import build_fixture_bundle

BASE = "https://acme.collibra.com/rest/2.0"
SPEC = Path(__file__).resolve().parents[1] / "fixtures" / "web_precision" / "api.yaml"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_a_bulk_items_id_is_not_an_unknown_key(engine: Engine) -> None:
    # Each item of a bulk request names its resource by `id` (the docs' change and add request
    # models list it) even where the spec's item schema leaves it out.
    code = (
        f"const api = axios.create({{ baseURL: '{BASE}' }});\n"
        "await api.post('/assets/bulk', [{ id: a1, name: 'n', domainId: d, typeId: t }]);\n"
    )
    assert engine.check_code(code, "javascript") == []
    # Any other key the items do not take is still reported.
    wrong = code.replace("id: a1", "ident: a1")
    assert [f.check for f in engine.check_code(wrong, "javascript")] == ["unknown-param"]


SBVR = DeprecationMatcher(
    [
        Deprecation(t, "", "doc.md", 1, "https://docs.example.invalid/d", "", True)
        for t in ("ConceptType", "Term")
    ]
)


def test_a_markdown_code_block_counts_words_as_a_file_of_its_language() -> None:
    text = (
        "Each SBVR ConceptType maps to an asset type.\n"  # prose: reported, as in any prose
        "```json\n"
        '{"sbvr": "ConceptType", "resourceType": "Term"}\n'  # a mapping's value; a type name
        "```\n"
        "```js\n"
        "const vocab = { sbvr: 'ConceptType' };\n"  # a mapping no call sends
        "```\n"
    )
    found = [(f.text, text.count("\n", 0, f.start)) for f in find_terms(SBVR, text, "markdown")]
    assert found == [("ConceptType", 0), ("Term", 2)]


def test_a_test_of_the_documents_own_app_sends_no_request(engine: Engine) -> None:
    # supertest and chai-http drive the app the file defines (`request(app)`), whose routes
    # mirror the API's paths; the keys are the app's business.
    code = (
        "const request = require('supertest');\n"
        "await request(app).get('/rest/2.0/assets?foo=bar').expect(200);\n"
        "await chai.request(server).post('/rest/2.0/assets').send({ title: 'x' });\n"
    )
    assert engine.check_code(code, "javascript") == []
    # A request library given the URL itself still sends one.
    sent = f"const request = require('request');\nrequest.get('{BASE}/assets?foo=1', done);\n"
    assert [f.check for f in engine.check_code(sent, "javascript")] == ["unknown-param"]


def test_a_computed_segment_meeting_only_a_literal_one_is_no_wrong_method() -> None:
    # GET /workflowInstances/{id} is not in this spec, but /workflowInstances/startJobs
    # (POST) is: the id the code computes is not `startJobs`, so "does not take GET" would be
    # a guess. A literal path with the wrong method, and an id path's, are still reported.
    with Engine.open(build_fixture_bundle([f"openapi={SPEC}"], name="web-precision")) as engine:
        code = f"fetch(`{BASE}/workflowInstances/${{id}}`);\n"
        assert engine.check_code(code, "javascript") == []
        literal = f"fetch('{BASE}/workflowInstances/startJobs');\n"
        assert [f.check for f in engine.check_code(literal, "javascript")] == ["method-not-allowed"]
        by_id = f"fetch(`{BASE}/assets/${{id}}`, {{ method: 'DELETE' }});\n"
        assert [f.check for f in engine.check_code(by_id, "javascript")] == ["method-not-allowed"]


def test_a_browser_request_for_a_root_relative_url_goes_to_its_own_origin(engine: Engine) -> None:
    # A page that names Collibra may call its own server too: fetch sends `/assets?...` to the
    # page's origin, where Collibra's API is only under /rest/2.0.
    own = (
        "// Collibra dashboard\n"
        "fetch('/assets?sort=name&page=1');\n"
        "$.getJSON('/assets', { sort: 'name' });\n"
    )
    assert engine.check_code(own, "javascript") == []
    api = "// Collibra dashboard\nfetch('/rest/2.0/assets?foo=1');\n"
    assert [f.check for f in engine.check_code(api, "javascript")] == ["unknown-param"]
