"""A module constant holding a URL that several functions send, one call each: the constant's
literal is no one call's, so each call is read where it sends the name (JavaScript and Python
alike: the scan asks at the name of every call that sends such a constant)."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import scan_calls

SHARED_JS = """\
const STATUS_URL = `${HOST}/rest/2.0/statuses`;
export async function listStatuses() { return fetch(STATUS_URL, { headers }); }
export async function firstStatus() {
  const res = await fetch(STATUS_URL, { headers });
  return (await res.json()).results[0];
}
"""

SHARED_PY = """\
import requests

STATUS_URL = f"{HOST}/rest/2.0/statuses"


def list_statuses():
    return requests.get(STATUS_URL, timeout=30)


def first_status():
    return requests.get(STATUS_URL, timeout=30).json()["results"][0]
"""

ONE_USE_JS = """\
const STATUS_URL = `${HOST}/rest/2.0/statuses`;
export async function listStatuses() { return fetch(STATUS_URL, { headers }); }
"""


def _endpoints(code: str, language: str) -> list[tuple[int, str, str]]:
    return [
        (item.line, item.site.method, item.site.url)
        for item in scan_calls(code, language)
        if item.site.role == "endpoint"
    ]


def test_a_constant_two_functions_fetch_is_read_at_each_call() -> None:
    assert _endpoints(SHARED_JS, "javascript") == [
        (1, "GET", "{}/rest/2.0/statuses"),
        (3, "GET", "{}/rest/2.0/statuses"),
    ]
    # one call sending it: read once, at its literal
    assert _endpoints(ONE_USE_JS, "javascript") == [(0, "GET", "{}/rest/2.0/statuses")]


def test_a_python_constant_two_functions_get_is_read_at_each_call() -> None:
    assert _endpoints(SHARED_PY, "python") == [
        (6, "GET", "{}/rest/2.0/statuses"),
        (10, "GET", "{}/rest/2.0/statuses"),
    ]
