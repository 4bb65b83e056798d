"""JavaScript and TypeScript client shapes found by blind probes: a class's client made in its
constructor, verb methods taken out of a client, and what a call cannot show reads as nothing."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import scan_calls


def _endpoints(code: str, language: str = "javascript") -> set[tuple[int, str, str]]:
    return {
        (item.line, item.site.method, item.site.url)
        for item in scan_calls(code, language)
        if item.site.role == "endpoint"
    }


def _keys(code: str, language: str = "javascript") -> set[tuple[int, str, str, str]]:
    return {
        (item.line, item.site.method, item.site.role, item.site.name)
        for item in scan_calls(code, language)
        if item.site.role != "endpoint"
    }


FIELD_CLIENT = """\
class Catalog {
  constructor(root) {
    this.http = axios.create({ baseURL: `${root}/rest/2.0` });
  }
  types() { return this.http.get("/assetTypes"); }
  addTag(id, tags) { return this.http.post(`/assets/${id}/tags`, { tagNames: tags }); }
}
"""


def test_a_client_a_constructor_makes_gives_its_base_to_the_calls_of_its_methods() -> None:
    assert _endpoints(FIELD_CLIENT) == {
        (4, "GET", "{}/rest/2.0/assetTypes"),
        (5, "POST", "{}/rest/2.0/assets/{}/tags"),
    }


TAKEN_VERBS = """\
const dgc = axios.create({ baseURL: process.env.DGC_URL });
const { get, post: create } = dgc;
get("/rest/2.0/statuses", { params: { limit: 5 } });
create("/rest/2.0/communities", { name: "Ops" });
"""


def test_verb_methods_taken_out_of_a_client_send_their_verb() -> None:
    assert _endpoints(TAKEN_VERBS) == {
        (2, "GET", "/rest/2.0/statuses"),
        (3, "POST", "/rest/2.0/communities"),
    }
    assert _keys(TAKEN_VERBS) == {(2, "GET", "query", "limit"), (3, "POST", "body", "name")}


NOT_TAKEN_FROM_A_CLIENT = """\
const { get } = require("lodash");
get(config, "/rest/2.0/assets");
function read({ post }) { return post("/rest/2.0/assets", { name: "x" }); }
"""


def test_a_verb_taken_out_of_anything_else_reads_as_nothing() -> None:
    assert _endpoints(NOT_TAKEN_FROM_A_CLIENT) == set()


OUT_OF_VIEW_OPTIONS = """\
import { Put, apiGet } from "./net";
Put(client)("/rest/2.0/assets/a1/tags", { params: new URLSearchParams({ force: "1" }), body });
apiGet("/rest/2.0/roles", { query: { offset: 0 }, headers: { Accept: "application/json" } });
apiGet("/rest/2.0/roles", { query: { offset: 0 }, pick: "results" });
"""


def test_the_query_of_request_options_handed_to_a_helper_out_of_view_is_read() -> None:
    assert _keys(OUT_OF_VIEW_OPTIONS) == {
        (1, "PUT", "query", "force"),
        (2, "GET", "query", "offset"),
        # `pick` is no request option: what the helper makes of these options is unknown
    }


BUILT_FOR_SEVERAL = """\
const PATHS = { rating: (id) => `/rest/2.0/ratings/${id}` };
const scopeUrl = (id) => `/rest/2.0/scopes/${id}`;
async function rerate(api, id, value) {
  const old = await api.get(PATHS.rating(id));
  await api.patch(PATHS.rating(id), { rating: value });
  await api.delete(scopeUrl(id));
  return old;
}
const dropScope = (api, id) => api.get(scopeUrl(id));
"""


def test_a_url_builder_several_calls_share_reads_at_each_call_as_its_request() -> None:
    found = _endpoints(BUILT_FOR_SEVERAL)
    assert {
        (3, "GET", "/rest/2.0/ratings/{}"),
        (4, "PATCH", "/rest/2.0/ratings/{}"),
        (5, "DELETE", "/rest/2.0/scopes/{}"),
        (8, "GET", "/rest/2.0/scopes/{}"),
    } <= found
    assert {row for row in found if row[0] > 2} == {
        (3, "GET", "/rest/2.0/ratings/{}"),
        (4, "PATCH", "/rest/2.0/ratings/{}"),
        (5, "DELETE", "/rest/2.0/scopes/{}"),
        (8, "GET", "/rest/2.0/scopes/{}"),
    }


BUILT_FOR_ONE = """\
const roleUrl = (id) => `/rest/2.0/roles/${id}`;
fetch(roleUrl(rid));
"""


def test_a_url_builder_one_call_makes_reads_once_at_its_literal() -> None:
    assert _endpoints(BUILT_FOR_ONE) == {(0, "GET", "/rest/2.0/roles/{}")}


MADE_CONFIG = """\
const ROOT = process.env.DGC;
const cfg = (method, url, data) => ({ method, url: ROOT + url, data });
function withAuth(path) { return { url: `${ROOT}${path}`, headers: { Authorization: token } }; }
axios(cfg("delete", "/rest/2.0/comments/c1"));
axios(withAuth("/rest/2.0/navigation/most_viewed"));
axios(cfg("post", "/rest/2.0/tags/merge", "/not/a/url"));
"""


def test_a_request_config_the_codes_own_function_returns_reads_with_the_calls_arguments() -> None:
    assert _endpoints(MADE_CONFIG) == {
        (3, "DELETE", "{}/rest/2.0/comments/c1"),
        (4, "GET", "{}/rest/2.0/navigation/most_viewed"),
        (5, "POST", "{}/rest/2.0/tags/merge"),  # the data argument is no part of the URL
    }


GETS_BY_KEY = """\
const { data } = useSWR(`/rest/2.0/traits?limit=${n}`, fetcher);
pm.sendRequest(pm.environment.get("base") + "/rest/2.0/statuses", (err, res) => {});
pm.sendRequest({
  url: pm.environment.get("base") + "/rest/2.0/attributes",
  method: "POST",
  body: { mode: "raw", raw: JSON.stringify(payload) },
});
"""


def test_swr_keys_and_postman_requests_read_as_their_requests_without_body_keys() -> None:
    assert _endpoints(GETS_BY_KEY) == {
        (0, "GET", "/rest/2.0/traits"),
        (1, "GET", "{}/rest/2.0/statuses"),
        (3, "POST", "{}/rest/2.0/attributes"),
    }
    assert _keys(GETS_BY_KEY) == {(0, "GET", "query", "limit")}  # Postman's body is {mode, raw}
