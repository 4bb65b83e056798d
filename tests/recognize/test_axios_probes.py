"""axios-style shapes found by blind probing: paths kept in route objects (``as const``, a
TypeScript ``enum``, functions of a routes object), a URL grown with ``+=`` from a base the
text does not show, and Nuxt's ``$axios.$get``. Each reads as the request it sends."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import scan_calls


def _endpoints(code: str, language: str = "javascript") -> set[tuple[int, str, str]]:
    return {
        (item.line, item.site.method, item.site.url)
        for item in scan_calls(code, language)
        if item.site.role == "endpoint"
    }


AS_CONST = """\
import axios from 'axios';
const ROUTES = {
  base: `${process.env.DG_HOST}/rest/2.0`,
  ratings: '/ratings',
} as const;
export const ratingsOf = (assetId: string) =>
  axios.get(ROUTES.base + ROUTES.ratings, { params: { assetId } });
"""


def test_a_route_of_an_as_const_object_reads_where_it_is_sent() -> None:
    assert _endpoints(AS_CONST, "typescript") == {
        (2, "GET", "{}/rest/2.0/ratings"),
        (3, "GET", "{}/rest/2.0/ratings"),
    }


ENUM_PATHS = """\
import axios from 'axios';
enum Route {
  Statuses = '/statuses',
  Unused = '/comments',
}
const http = axios.create({ baseURL: `${process.env.DG_HOST}/rest/2.0` });
export const statuses = () => http.get(Route.Statuses);
"""


def test_a_path_kept_in_an_enum_member_reads_where_it_is_sent() -> None:
    assert _endpoints(ENUM_PATHS, "typescript") == {(2, "GET", "{}/rest/2.0/statuses")}


ROUTE_FUNCTIONS = """\
const axios = require('axios');
const PATHS = {
  mapping: (id) => `/rest/2.0/mappings/${id}`,
  status: (name) => `/rest/2.0/statuses/name/${name}`,
};
const dg = axios.create({ baseURL: process.env.DG_HOST });
const other = { mapping: (id) => `/rest/2.0/mappings/${id}` };
async function show(id) {
  return (await dg.get(PATHS.mapping(id))).data;
}
"""


def test_a_path_function_of_a_routes_object_reads_at_its_call() -> None:
    assert _endpoints(ROUTE_FUNCTIONS) == {(2, "GET", "/rest/2.0/mappings/{}")}


APPENDED = """\
import axios from 'axios';
export async function parents(typeId: string) {
  let url = process.env.DG_HOST;
  url += '/rest/2.0/assetTypes/';
  url += typeId;
  url += '/parents';
  return (await axios.get(url)).data;
}
"""


def test_a_url_grown_with_appends_from_an_unseen_base_reads_at_its_first_literal() -> None:
    assert _endpoints(APPENDED, "typescript") == {(3, "GET", "{}/rest/2.0/assetTypes/{}/parents")}


APPENDED_AFTER_LITERAL = """\
const axios = require('axios');
let url = `${host}/rest/2.0`;
url += '/statuses';
axios.get(url);
"""


def test_an_append_to_a_written_base_still_reads_where_the_base_is_written() -> None:
    assert _endpoints(APPENDED_AFTER_LITERAL) == {(1, "GET", "{}/rest/2.0/statuses")}


NUXT = """\
export default {
  async asyncData({ $axios, params }) {
    const tag = await $axios.$get(`/rest/2.0/tags/${params.id}`);
    await this.$axios.$post('/rest/2.0/tags/merge', { tagIds: [params.id] });
    return { tag };
  },
};
"""


def test_nuxt_axios_data_shorthands_read_as_their_verbs() -> None:
    assert _endpoints(NUXT) == {
        (2, "GET", "/rest/2.0/tags/{}"),
        (3, "POST", "/rest/2.0/tags/merge"),
    }


CONFIG_SET_AFTER = """\
import axios, { AxiosRequestConfig } from 'axios';
export async function cancel(jobId: string) {
  const config: AxiosRequestConfig = { baseURL: process.env.DG_HOST, auth };
  config.url = `/rest/2.0/jobs/${jobId}/canceled`;
  config.method = 'post';
  return (await axios(config)).data;
}
export async function either(flag: boolean) {
  const opts = { baseURL: process.env.DG_HOST };
  opts.url = '/rest/2.0/roles';
  if (flag) opts.url = '/rest/2.0/tags';
  return axios.request(opts);
}
"""


def test_a_url_and_method_set_on_a_config_after_it_is_written_read_as_its_request() -> None:
    # The second config's URL depends on a condition: which one is sent is not written.
    assert _endpoints(CONFIG_SET_AFTER, "typescript") == {(3, "POST", "/rest/2.0/jobs/{}/canceled")}
