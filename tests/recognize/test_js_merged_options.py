"""JavaScript helpers that send a config merged from defaults and the caller's options
(`Object.assign({}, defaults, options)`, `{...defaults, ...options}`): each call of the helper reads
as the request it sends, with the method and the query and body keys its caller passes."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import Located, scan_calls

HOST = "https://{}.collibra.com"

HELPER = """\
const request = require("request");
module.exports = (env) => {
  const host = `https://${env.TENANT}.collibra.com`;
  const core = `${host}/rest/2.0`;
  const legacy = `${host}/rest/1.0`;
  function call(resource, options, onDone, baseOverride) {
    const prefix = baseOverride || core;
    const target = prefix + "/" + resource;
    const defaults = { url: target, json: true, headers: { Accept: "application/json" } };
    const headers = Object.assign({}, defaults.headers, options.headers);
    const merged = Object.assign({}, defaults, options, { headers: headers });
    request(merged, onDone);
  }
  function statuses(cb) {
    call(
      "statuses",
      { qs: { offset: 0 } },
      cb
    );
  }
  function tagAsset(assetId, cb) {
    call(`assets/${assetId}/tags`, { method: "POST", body: { tagNames: ["gold"] } }, cb);
  }
  function renameView(viewId, cb) {
    call(`views/${viewId}`, { method: "POST", headers: { "X-HTTP-Method-Override": "PATCH" }, body: { name: "n" } }, cb);
  }
  function oldSearch(cb) {
    call(`search`, { method: "POST" }, cb, legacy);
  }
};
"""


def _rows(code: str, language: str = "javascript") -> set[tuple[int, str, str, str, str]]:
    return {_row(item) for item in scan_calls(code, language)}


def _row(item: Located) -> tuple[int, str, str, str, str]:
    site = item.site
    return item.line, site.role, site.method, site.url, site.name


def test_a_helper_merging_defaults_and_options_reads_at_each_call() -> None:
    rows = _rows(HELPER)
    core = f"{HOST}/rest/2.0"
    assert {
        (15, "endpoint", "GET", f"{core}/statuses", ""),
        (16, "query", "GET", f"{core}/statuses", "offset"),
        (21, "endpoint", "POST", f"{core}/assets/{{}}/tags", ""),
        (21, "body", "POST", f"{core}/assets/{{}}/tags", "tagNames"),
        (24, "endpoint", "PATCH", f"{core}/views/{{}}", ""),
        (27, "endpoint", "POST", f"{HOST}/rest/1.0/search", ""),
    } <= rows
    # the helper's own request only forwards its caller's path: it is no call of its own
    assert not any(line in range(5, 13) for line, *_ in rows)
    # the option names themselves are no query or body keys
    assert not any(name in ("qs", "method", "body", "headers", "json") for *_, name in rows)


def test_spread_options_into_an_axios_config() -> None:
    code = """\
const api = async (path, opts = {}) => {
  const base = { url: "https://acme.collibra.com/rest/2.0" + path, method: "GET" };
  return axios({ ...base, ...opts });
};
api("/roles", { params: { name: "Owner" } });
api("/communities", { method: "POST", data: { name: "Finance" } });
"""
    rows = _rows(code)
    base = "https://acme.collibra.com/rest/2.0"
    assert {
        (4, "endpoint", "GET", f"{base}/roles", ""),
        (4, "query", "GET", f"{base}/roles", "name"),
        (5, "endpoint", "POST", f"{base}/communities", ""),
        (5, "body", "POST", f"{base}/communities", "name"),
    } <= rows


def test_request_verb_with_a_callback_is_a_request() -> None:
    code = """\
const target = "https://acme.collibra.com/rest/2.0/auth/sessions";
request.post({ url: target, json: true, body: { username: "u" } }, (err, res) => done(res));
"""
    assert (1, "body", "POST", "https://acme.collibra.com/rest/2.0/auth/sessions", "username") in (
        _rows(code)
    )


def test_merges_that_loop_stay_bounded() -> None:
    code = """\
function a(p, o) { const d = { url: "https://x.collibra.com/rest/2.0/" + p }; return b(p, Object.assign({}, d, o)); }
function b(p, o) { const m = Object.assign({}, o, {}); return a(p, m); }
function c(p, o) { return request(Object.assign({ url: "https://x.collibra.com/rest/2.0/" + p }, o)); }
a("assets", { qs: { limit: 1 } });
c("roles", { qs: { limit: 1 } });
"""
    # the mutually recursive pair sends nothing it can be read as; the plain helper still reads
    assert _rows(code) == {
        (4, "endpoint", "GET", "https://x.collibra.com/rest/2.0/roles", ""),
        (4, "query", "GET", "https://x.collibra.com/rest/2.0/roles", "limit"),
    }
