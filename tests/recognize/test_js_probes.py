"""JavaScript and TypeScript shapes found by probing with snippets written the way client code
calls the API: each call reads as the request it sends, and code that sends nothing (or sends
what the text does not show) reads as nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from atlas_core.recognize import ENDPOINT
from atlas_core.recognize.calls.javascript import JavaScriptCalls
from atlas_core.recognize.calls.scan import scan_calls

if TYPE_CHECKING:
    from tree_sitter import Node


def _endpoints(code: str, language: str = "javascript") -> set[tuple[int, str, str]]:
    return {
        (item.line, item.site.method, item.site.url)
        for item in scan_calls(code, language)
        if item.site.role == "endpoint"
    }


DESTRUCTURED = """\
async function send(url, { method = "GET", body } = {}) {
  const res = await fetch(url, { method, body: body && JSON.stringify(body) });
  return res.json();
}
send(`${ROOT}/rest/2.0/ratings/${rid}`, { method: "PATCH", body: { rating: 4 } });
send(`${ROOT}/rest/2.0/roles`);
send(`${ROOT}/rest/2.0/tags/${tid}`, { body: { name: "x" } });
send(`${ROOT}/rest/2.0/statuses/${sid}`, opts);
"""


def test_a_destructured_options_parameter_reads_the_callers_method_or_its_default() -> None:
    assert _endpoints(DESTRUCTURED) == {
        (4, "PATCH", "{}/rest/2.0/ratings/{}"),
        (5, "GET", "{}/rest/2.0/roles"),
        (6, "GET", "{}/rest/2.0/tags/{}"),
        (7, "", "{}/rest/2.0/statuses/{}"),  # options not shown here: the method is unknown
    }


DESTRUCTURED_TS = """\
const call = async (path: string, { method = "GET", payload }: Options = {}) =>
  fetch(`${BASE}/rest/2.0${path}`, { method, body: JSON.stringify(payload) });
call("/workflowTasks/completed", { method: "POST", payload: { taskIds } });
call("/workflowTasks");
"""


def test_a_typed_destructured_options_parameter_reads_the_same() -> None:
    assert {row for row in _endpoints(DESTRUCTURED_TS, "typescript") if row[0] > 1} == {
        (2, "POST", "{}/rest/2.0/workflowTasks/completed"),
        (3, "GET", "{}/rest/2.0/workflowTasks"),
    }


MUTATED_OPTIONS = """\
const init = { headers: HEADERS };
init.method = "DELETE";
await fetch(`${ROOT}/rest/2.0/ratings/${rid}`, init);
const opts = { headers: HEADERS };
if (replace) opts.method = "PUT";
await fetch(`${ROOT}/rest/2.0/assets/${aid}/tags`, opts);
"""


def test_a_method_set_on_the_options_after_they_are_made_is_the_method_sent() -> None:
    assert _endpoints(MUTATED_OPTIONS) == {
        (2, "DELETE", "{}/rest/2.0/ratings/{}"),
        (5, "", "{}/rest/2.0/assets/{}/tags"),  # set under a condition: not known
    }


SERVER_ROUTES = """\
const app = express();
function renameDomain(req, res) { res.sendStatus(204); }
app.put("/domains/:domainId", renameDomain);
app.delete("/communities/:communityId", auth, drop);
router.post("/assets", requireLogin, renameDomain);
app.get("/proxy", async (req, res) => {
  res.json(await api.get(`/assets/${req.query.id}`));
});
"""


def test_a_servers_routes_are_not_requests() -> None:
    # a route pattern's `:name` segment, or a handler the file defines: the server's routes;
    # the request the handler sends is still one
    assert _endpoints(SERVER_ROUTES) == {(6, "GET", "/assets/{}")}


VERB_NAMED_METHODS = """\
const http = axios.create({ baseURL: "/rest/2.0" });
export const ratingsApi = {
  list: (params) => http.get("/ratings", { params }),
  get: (id) => http.get(`/ratings/${id}`),
  remove: (id) => http.delete(`/ratings/${id}`),
  delete: (id) => http.delete(`/ratings/${id}`),
};
ratingsApi.get(rid);
"""


def test_a_clients_verb_is_not_a_method_of_the_same_name_in_another_object() -> None:
    # `http.get` is the axios instance's, not `ratingsApi.get`'s: that read "/ratings/ratings"
    assert _endpoints(VERB_NAMED_METHODS) == {
        (2, "GET", "/rest/2.0/ratings"),
        (3, "GET", "/rest/2.0/ratings/{}"),
        (4, "DELETE", "/rest/2.0/ratings/{}"),
        (5, "DELETE", "/rest/2.0/ratings/{}"),
    }


RELATIVE_WORDS = """\
class Catalog {
  async send(verb, resource) {
    const r = await fetch(`${this.root}/rest/2.0/${resource}`, { method: verb });
    return r.json();
  }
  comments(assetId) { return this.send("GET", `comments?baseResourceId=${assetId}`); }
  ratings(assetId) { return this.send("GET", "ratings?assetId=" + assetId); }
}
"""


def test_a_word_with_a_query_string_passed_to_a_helper_is_its_endpoint() -> None:
    assert {row for row in _endpoints(RELATIVE_WORDS) if row[0] > 2} == {
        (5, "GET", "{}/rest/2.0/comments"),
        (6, "GET", "{}/rest/2.0/ratings"),
    }


PROMISE_WRAPPERS = """\
function getJson(url) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", url);
    xhr.onload = () => resolve(JSON.parse(xhr.responseText));
    xhr.send();
  });
}
getJson(`${root}/rest/2.0/scopes/${sid}`).then(show);
"""


def test_a_helper_returning_a_new_promise_is_a_wrapper_not_a_url_builder() -> None:
    assert {row for row in _endpoints(PROMISE_WRAPPERS) if row[0] > 3} == {
        (8, "GET", "{}/rest/2.0/scopes/{}"),
    }


FILLED_TEMPLATES = """\
const TEMPLATE = "/rest/2.0/users/{userId}/userGroups";
await fetch(HOST + TEMPLATE.replace("{userId}", uid));
await fetch("https://<tenant>/rest/2.0/tags/:tagId".replace(":tagId", tid), { method: "DELETE" });
const both = "/rest/2.0/workflowDefinitions/{definitionId}/assignmentRules/{ruleId}"
  .replace("{definitionId}", def)
  .replace("{ruleId}", rule);
await axios.delete(HOST + both);
await fetch(`${HOST}/rest/2.0/roles/`.replace(/\\/$/, ""));
"""


def test_a_url_template_filled_with_replace_is_the_url_sent() -> None:
    assert _endpoints(FILLED_TEMPLATES) == {
        (0, "GET", "{}/rest/2.0/users/{}/userGroups"),
        (2, "DELETE", "https://<tenant>/rest/2.0/tags/{}"),
        (3, "DELETE", "{}/rest/2.0/workflowDefinitions/{}/assignmentRules/{}"),
    }


QUERY_JOINER = """\
async function page(path, offset = 0) {
  const r = await fetch(`${BASE}/rest/2.0${path}${path.includes("?") ? "&" : "?"}offset=${offset}`);
  return r.json();
}
page("/userGroups");
page("/domains?communityId=" + cid);
"""


def test_a_query_joined_with_ampersand_or_question_mark_ends_the_path() -> None:
    assert {row for row in _endpoints(QUERY_JOINER) if row[0] > 1} == {
        (4, "GET", "{}/rest/2.0/userGroups"),
        (5, "GET", "{}/rest/2.0/domains"),
    }


JOINED_PARTS = """\
const url = [ROOT, "rest/2.0/assets", assetId, "breadcrumb"].join("/");
await fetch(url);
await fetch([ROOT, "rest/2.0/communities", cid].join("/"), { method: "DELETE" });
"""


def test_url_parts_joined_from_an_array_are_the_url_sent() -> None:
    assert _endpoints(JOINED_PARTS) == {
        (0, "GET", "{}/rest/2.0/assets/{}/breadcrumb"),
        (2, "DELETE", "{}/rest/2.0/communities/{}"),
    }


REASSIGNED = """\
let url = `${B}/rest/2.0/domains`;
if (communityId) url = `${B}/rest/2.0/communities/${communityId}`;
await fetch(url);
async function load(id) {
  let target = `${B}/rest/2.0/assetTypes`;
  target = `${B}/rest/2.0/assetTypes/${id}/parents`;
  return fetch(target);
}
"""


def test_a_url_name_given_another_value_before_the_call_sends_that_value() -> None:
    # each literal reads as the URL it is where it may be the one sent; the first URL of
    # `target` is replaced before the call and is no call's
    assert _endpoints(REASSIGNED) == {
        (0, "GET", "{}/rest/2.0/domains"),
        (1, "GET", "{}/rest/2.0/communities/{}"),
        (5, "GET", "{}/rest/2.0/assetTypes/{}/parents"),
    }


CALLED_INSTANCES = """\
const api = $fetch.create({ baseURL: "https://acme.collibra.com/rest/2.0" });
await api(`/workflowTasks/${id}/reassign`, { method: "POST", body: { userId } });
const ax = axios.create({ baseURL: "/rest/2.0" });
await ax({ url: "/roles", method: "get", params: { limit: 5 } });
const proto = Object.create({ kind: "x" });
proto("/assets");
"""


def test_a_client_instance_called_as_a_function_sends_a_request() -> None:
    assert _endpoints(CALLED_INSTANCES) == {
        (1, "POST", "https://acme.collibra.com/rest/2.0/workflowTasks/{}/reassign"),
        (3, "GET", "/rest/2.0/roles"),
    }


MADE_OPTIONS = """\
function opts(method, body) {
  return { method, headers: { Authorization: TOKEN }, body: body && JSON.stringify(body) };
}
await fetch(`${B}/rest/2.0/users/${uid}/userGroups`, opts("DELETE", { userGroupIds }));
const plain = () => ({ headers: HEADERS });
await fetch(`${B}/rest/2.0/users/${uid}`, plain());
await fetch(`${B}/rest/2.0/users/${uid}/avatar`, await importedOptions());
"""


def test_options_made_by_a_call_ask_for_the_method_their_function_returns() -> None:
    assert _endpoints(MADE_OPTIONS) == {
        (3, "DELETE", "{}/rest/2.0/users/{}/userGroups"),
        (5, "GET", "{}/rest/2.0/users/{}"),
        (6, "", "{}/rest/2.0/users/{}/avatar"),  # a function out of view: not known
    }


PASSED_PATH_BUILDERS = """\
import { fetchPages } from "./paging";
export async function allTypes(cfg) {
  const pathAt = (offset) => `/rest/2.0/domainTypes?offset=${offset}`;
  const types = await fetchPages(cfg, pathAt, { pageSize: 100 });
  const roles = await fetchPages(cfg, (o) => `/rest/2.0/roles?offset=${o}`);
  const labels = await translate(cfg, (o) => `/rest/2.0/roles?offset=${o}`);
}
"""


def test_a_path_builder_passed_to_a_helper_out_of_view_is_its_endpoint() -> None:
    # the helper's name says it sends; the method is not shown; `translate` sends nothing
    assert _endpoints(PASSED_PATH_BUILDERS) == {
        (2, "", "/rest/2.0/domainTypes"),
        (4, "", "/rest/2.0/roles"),
    }


CURRIED_HELPERS = """\
import { Post, Get } from "../net";
export const exportView = (client) => (id) =>
  Post(client)(`/outputModule/export/json`, { body: viewOf(id) });
export const crumbs = (client) => (id) => Get(client)(`/domains/${id}/breadcrumb`);
const cached = memoize(client)("/domains/x");
"""


def test_a_curried_helper_out_of_view_named_by_a_verb_sends_that_verb() -> None:
    assert _endpoints(CURRIED_HELPERS, "typescript") == {
        (2, "POST", "/outputModule/export/json"),
        (3, "GET", "/domains/{}/breadcrumb"),
    }


MERGED_BODIES = """\
await axios.post(`${B}/rest/2.0/communities`, { name, ...(desc && { description: desc }) });
await axios.post(`${B}/rest/2.0/communities`, { name, ...(parent ? { parentId: parent } : {}) });
function createAsset(overrides) {
  return axios.post(`${B}/rest/2.0/assets`, { domainId: DOMAIN, typeId: TYPE, ...overrides });
}
createAsset({ name: "Revenue" });
await axios.post(`${B}/rest/2.0/assets`, { name: "Cost", domainId: DOMAIN });
"""


def test_keys_spread_into_a_body_are_some_of_its_keys_not_all() -> None:
    # a key whose object is merged into the body is no proof the others are missing
    complete = {
        (item.line, item.site.name): item.site.complete
        for item in scan_calls(MERGED_BODIES, "javascript")
        if item.site.role == "body"
    }
    assert complete[(0, "name")] is False
    assert complete[(1, "parentId")] is False
    assert complete[(5, "name")] is False
    assert complete[(6, "name")] is True  # one literal, every key written: it is the body


def test_a_wrappers_body_parameter_sent_whole_keeps_its_callers_keys_complete() -> None:
    code = (
        "function send(path, payload) {\n"
        '  const init = { method: "POST", headers: H };\n'
        "  init.body = JSON.stringify(payload);\n"
        "  return fetch(BASE + path, init);\n"
        "}\n"
        'send("/rest/2.0/assets", { name: "Cost", domainId: D });\n'
    )
    complete = {
        item.site.name: item.site.complete
        for item in scan_calls(code, "javascript")
        if item.site.role == "body"
    }
    assert complete == {"name": True, "domainId": True}  # its missing typeId is a finding


OTHER_SENDERS = """\
function addComment(assetId, text) {
  UrlFetchApp.fetch(BASE + "/rest/2.0/comments", {
    method: "post",
    payload: JSON.stringify({ content: text, baseResourc: { id: assetId } }),
  });
}
const { body } = await request(`${B}/rest/2.0/assets/${id}/tags`, { method: "PUT", body: raw });
needle.post(`${B}/rest/2.0/attachments`, form, { multipart: true }, (err, resp) => done(err));
"""


def test_apps_script_fetch_a_url_and_options_config_call_and_an_error_first_callback() -> None:
    rows = {
        (item.line, item.site.role, item.site.method, item.site.name)
        for item in scan_calls(OTHER_SENDERS, "javascript")
    }
    assert {
        (1, "endpoint", "POST", ""),
        (3, "body", "POST", "baseResourc"),  # a payload's keys are the body's: checked
        (6, "endpoint", "PUT", ""),
        (7, "endpoint", "POST", ""),
    } <= rows


OBJECT_PARAMETER = """\
async function call({ path, method = "GET", body }) {
  const r = await fetch(`${ROOT}/rest/2.0${path}`, { method, body: body && JSON.stringify(body) });
  return r.json();
}
await call({ path: "/scopes" });
await call({ path: `/scopes/${sid}`, method: "DELETE" });
"""


def test_a_wrapper_taking_one_destructured_object_reads_its_path_and_method() -> None:
    assert {row for row in _endpoints(OBJECT_PARAMETER) if row[0] > 1} == {
        (4, "GET", "{}/rest/2.0/scopes"),
        (5, "DELETE", "{}/rest/2.0/scopes/{}"),
    }


NAMED_METHODS = """\
enum Verb { Get = "GET", Remove = "DELETE" }
const HTTP = { PATCH: "PATCH" } as const;
async function call(method: string, path: string) {
  return fetch(`${ROOT}/rest/2.0${path}`, { method });
}
await call(Verb.Remove, `/mappings/${mid}`);
await call(HTTP.PATCH, `/mappings/${mid}`);
"""


def test_a_method_named_by_an_enum_or_a_const_object_member_is_its_value() -> None:
    assert {row for row in _endpoints(NAMED_METHODS, "typescript") if row[0] > 4} == {
        (5, "DELETE", "{}/rest/2.0/mappings/{}"),
        (6, "PATCH", "{}/rest/2.0/mappings/{}"),
    }


def test_names_assigned_to_each_other_are_followed_a_bounded_number_of_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `url = other + ...; other = url + ...` reach each other many ways: each expression is
    # followed once per walk, and a walk has a step budget (this file took minutes)
    lines = ['let url = "/rest/2.0/assets";', 'let other = "/rest/2.0/domains";']
    for i in range(10):
        lines.append(f'url = other + "/{i}";' if i % 2 else f'other = url + "?x={i}";')
        lines += [f"if (c{i}) url = other;", f'url += "/p{i}";']
    lines.append("fetch(url); fetch(other);")
    steps = 0
    follow = JavaScriptCalls.assigned_uses

    def counted(self: JavaScriptCalls, root: Node, parent: Node) -> list[Node] | None:
        nonlocal steps
        steps += 1
        return follow(self, root, parent)

    monkeypatch.setattr(JavaScriptCalls, "assigned_uses", counted)
    scan_calls("\n".join(lines) + "\n", "javascript")
    assert steps < 20_000


def test_one_url_name_sent_by_calls_of_several_methods_reads_as_each_call() -> None:
    """``const url = ...; get(url); delete(url)``: the literal reads as one call (or, at module
    level, none), and the name at each call reads as that call with its own method."""
    code = (
        "const url = `${ROOT}/rest/2.0/tags/${tagId}`;\n"
        "const shown = await axios.get(url);\n"
        "await axios.delete(url);\n"
    )
    read = {
        (item.line, item.site.method)
        for item in scan_calls(code, "javascript")
        if item.site.role == ENDPOINT and item.site.url.endswith("/rest/2.0/tags/{}")
    }
    assert {(1, "GET"), (2, "DELETE")} <= read
    # A name only one call sends is read at its literal, not again at the call.
    one = "const url = `${ROOT}/rest/2.0/tags/${tagId}`;\nawait axios.delete(url);\n"
    assert [i.line for i in scan_calls(one, "javascript") if i.site.role == ENDPOINT] == [0]
