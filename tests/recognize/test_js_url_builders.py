"""JavaScript URLs built by the code's own functions: a function returning a URL, called where a
request is sent, reads as that request; a builder whose callers pass the path is read at each
call, not in its body."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import Located, scan_calls


def _rows(code: str, language: str = "javascript") -> set[tuple[int, str, str, str, str]]:
    return {_row(item) for item in scan_calls(code, language)}


def _row(item: Located) -> tuple[int, str, str, str, str]:
    site = item.site
    return item.line, site.role, site.method, site.url, site.name


BUILDERS = """\
function statusUrl(host) {
  const clean = host.replace(/\\/$/, "");
  if (!clean) throw new Error("no host");
  return `${clean}/rest/2.0/application/info`;
}
const route = (name) => `https://acme.collibra.com/rest/2.0/${name}`;
class Catalog {
  link(id) { return `https://acme.collibra.com/rest/2.0/domains/${id}`; }
  async open(id) { return fetch(this.link(id), { method: "DELETE" }); }
}
async function run(origin) {
  const target = statusUrl(origin);
  await fetch(target);
  await axios.get(route("roles"), { params: { name: "Steward" } });
}
"""


def test_a_url_returned_by_a_function_is_the_request_its_call_sends() -> None:
    rows = _rows(BUILDERS)
    assert {
        (3, "endpoint", "GET", "{}/rest/2.0/application/info", ""),
        (7, "endpoint", "DELETE", "https://acme.collibra.com/rest/2.0/domains/{}", ""),
        (13, "endpoint", "GET", "https://acme.collibra.com/rest/2.0/roles", ""),
        (13, "query", "GET", "https://acme.collibra.com/rest/2.0/roles", "name"),
    } <= rows
    # `route` only joins the path its callers pass: its body is no request of its own
    assert not any(line == 5 for line, *_ in rows)


def test_builders_that_call_themselves_stay_bounded() -> None:
    code = """\
function a(p) { return b(p) + "/rest/2.0/assets"; }
function b(p) { return a(p); }
function c() { return "https://acme.collibra.com/rest/2.0/users"; }
fetch(a("x"));
fetch(c());
"""
    rows = _rows(code)
    assert (2, "endpoint", "GET", "https://acme.collibra.com/rest/2.0/users", "") in rows
    assert all(url.startswith(("{}", "https://acme")) for _, _, _, url, _ in rows)


JOINED_WORDS = """\
const target = [origin, "rest", "2.0", "statuses"].join("/");
const listed = await axios.get(target, { params: { limit: 5 } });
await fetch([origin, "rest", "2.0", "roles"].join("/"));
"""


def test_a_url_joined_from_words_without_a_slash_is_read_once() -> None:
    endpoints = [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(JOINED_WORDS, "javascript")
        if i.site.role == "endpoint"
    ]
    assert endpoints == [(0, "GET", "{}/rest/2.0/statuses"), (2, "GET", "{}/rest/2.0/roles")]
    assert (1, "query", "GET", "{}/rest/2.0/statuses", "limit") in _rows(JOINED_WORDS)
