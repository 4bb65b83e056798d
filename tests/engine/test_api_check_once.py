"""One diagnostic per mistake (issue 29): calls that share the literal holding a mistake find it
once, whatever the number of calls (or methods) that read it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize import ENDPOINT, HTTP, CallSite, Located
from tests.apicheck_bundle import build_apicheck_bundle

BASE = "https://acme.collibra.com/rest/2.0"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def _endpoint(method: str, url: str, line: int, start: int, end: int) -> Located:
    site = CallSite(method, url, ENDPOINT, "", start, end, HTTP, "python")
    return Located(line, site)


def test_a_constant_read_by_two_calls_is_reported_once(engine: Engine) -> None:
    code = f'ASSETS = "{BASE}/asset"\nrequests.get(ASSETS)\nrequests.post(ASSETS, json=body)\n'
    start = code.index('"') + 1
    end = code.index('"', start)
    # Both calls' readings point at the constant's literal, the one place to fix.
    sites = [
        _endpoint("GET", f"{BASE}/asset", 0, start, end),
        _endpoint("POST", f"{BASE}/asset", 0, start, end),
    ]
    found = engine.check_code(code, "python", sites=sites)
    assert [(f.line, f.check, f.fixes) for f in found] == [
        (0, "unknown-endpoint", (f"{BASE}/assets",))
    ]


BODIES = f"""import requests

BASE = "{BASE}"


def built(domain):
    body = {{"name": "x", "domainId": domain}}
    return requests.post(BASE + "/assets", json=body)


def filled(domain):
    payload = {{}}
    payload["name"] = "x"
    payload["domainId"] = domain
    return requests.post(BASE + "/assets", json=payload)


def updated(domain, extra):
    body = {{"name": "x", "domainId": domain}}
    body.update(extra)
    return requests.post(BASE + "/assets", json=body)


def passed(domain):
    body = {{"name": "x", "domainId": domain}}
    decorate(body)
    return requests.post(BASE + "/assets", json=body)
"""


def test_required_keys_of_a_body_built_in_a_variable(engine: Engine) -> None:
    """A body assigned whole in the same scope, or filled key by key, is checked like a literal
    in the call; one that anything else could add keys to is not judged."""
    found = [(f.line, f.check) for f in engine.check_code(BODIES, "python")]
    assert found == [(6, "missing-required"), (12, "missing-required")]


SCRIPT = f"""const BASE = "{BASE}";
async function built(domainId) {{
  const body = {{ name: "x", domainId }};
  return axios.post(BASE + "/assets", body);
}}
async function sent(domainId) {{
  const body = {{ name: "x", domainId }};
  return fetch(BASE + "/assets", {{ method: "POST", body: JSON.stringify(body) }});
}}
async function added(domainId, t) {{
  const body = {{ name: "x", domainId }};
  body.typeId = t;
  return axios.post(BASE + "/assets", body);
}}
async function passed(domainId) {{
  const body = {{ name: "x", domainId }};
  decorate(body);
  return axios.post(BASE + "/assets", body);
}}
"""


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_required_keys_of_an_object_declared_before_the_call(engine: Engine, language: str) -> None:
    found = [(f.line, f.check) for f in engine.check_code(SCRIPT, language)]
    assert found == [(2, "missing-required"), (6, "missing-required")]
