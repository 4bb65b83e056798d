"""Raw request lines (`GET /rest/2.0/assets?name=x`) in markdown prose and REST-client `.http`
files are read as calls and checked, in a README's table of endpoints too; a generated client's
table of its operations and prose about GET requests are not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize import BODY, ENDPOINT, QUERY, scan_calls
from tests.apicheck_bundle import build_apicheck_bundle


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def _read(text: str, language: str) -> list[tuple[int, str, str, str, str]]:
    return [
        (i.line, i.site.role, i.site.method, i.site.url, i.site.name)
        for i in scan_calls(text, language)
    ]


def test_request_lines_in_prose_are_calls_and_generated_tables_are_not() -> None:
    text = (
        "# Notes\n"
        "Then `GET /rest/2.0/assets?name=x&limit=5` lists them. GET requests are cheap.\n"
        "[**add_asset**](AssetsApi.md#add_asset) | **POST** /assets | Add an asset\n"
        "Please use POST /rest/2.0/communities/removalJobs.\n"
    )
    found = _read(text, "markdown")
    assert (1, ENDPOINT, "GET", "/rest/2.0/assets", "") in found
    assert (1, QUERY, "GET", "/rest/2.0/assets", "limit") in found
    assert (3, ENDPOINT, "POST", "/rest/2.0/communities/removalJobs", "") in found  # no "."
    assert not [f for f in found if f[0] == 2]  # a generated client's list of its operations


def test_a_readme_table_of_endpoints_is_read() -> None:
    text = (
        "| Verb | Endpoint | Used for |\n"
        "|---|---|---|\n"
        "| `GET` | `/rest/2.0/relations/:relationId` | one relation |\n"
        "| Find people | `GET /rest/2.0/users?name=x` |\n"
        "| **DELETE** | https://<host>/rest/2.0/tags/{tagId} | drop a tag |\n"
    )
    found = [f[:4] for f in _read(text, "markdown")]
    assert found == [
        (2, ENDPOINT, "GET", "/rest/2.0/relations/:relationId"),
        (3, ENDPOINT, "GET", "/rest/2.0/users"),
        (3, QUERY, "GET", "/rest/2.0/users"),
        (4, ENDPOINT, "DELETE", "https://{}/rest/2.0/tags/{tagId}"),
    ]


def test_a_link_around_a_request_line_and_a_text_block_holding_one() -> None:
    text = (
        "See [GET /rest/2.0/comments](https://docs.example.org/rest/comments) for filters.\n"
        "```text\n"
        "PATCH https://acme.example.com/rest/2.0/issues/{issueId}/community/{communityId}\n"
        "```\n"
    )
    found = [f[:4] for f in _read(text, "markdown")]
    assert found == [
        (0, ENDPOINT, "GET", "/rest/2.0/comments"),
        (
            2,
            ENDPOINT,
            "PATCH",
            "https://acme.example.com/rest/2.0/issues/{issueId}/community/{communityId}",
        ),
    ]


def test_angle_placeholders_and_bold_are_parts_of_the_request_line(engine: Engine) -> None:
    text = (
        "Remove one: `DELETE /rest/2.0/tags/<tag-id>` (then list them again).\n"
        "**POST /rest/2.0/assets/bulk**\n"
        "GET <your-host>/rest/2.0/domains/<DOMAIN_ID>\n"
    )
    found = [f for f in _read(text, "markdown") if f[1] == ENDPOINT]
    assert found == [
        (0, ENDPOINT, "DELETE", "/rest/2.0/tags/{}", ""),
        (1, ENDPOINT, "POST", "/rest/2.0/assets/bulk", ""),
        (2, ENDPOINT, "GET", "{}/rest/2.0/domains/{}", ""),
    ]
    # read whole, none of them is a method the path does not take
    assert engine.check_code(text, "markdown") == []


def test_an_http_file_is_checked(engine: Engine) -> None:
    text = (
        "### find\nGET https://acme.collibra.com/rest/2.0/asset?name=x\nAccept: application/json\n"
    )
    [found] = engine.check_code(text, "http")
    assert found.check == "unknown-endpoint" and found.line == 1
    ok = "GET https://acme.collibra.com/rest/2.0/assets?name=x\n"
    assert engine.check_code(ok, "http") == []


POSTMAN = """\
{
  "info": {
    "name": "Catalog",
    "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
  },
  "item": [
    {
      "name": "Find roles",
      "request": {
        "method": "GET",
        "header": [],
        "url": {
          "raw": "{{host}}/rest/2.0/roles?name=Owner",
          "host": ["{{host}}"]
        }
      }
    },
    {
      "name": "Add tag",
      "request": {"method": "POST", "body": {"mode": "raw", "raw": "{}"},
        "url": "{{host}}/rest/2.0/tags"
      }
    }
  ]
}
"""


def test_a_postman_collections_requests_are_calls() -> None:
    rows = _read(POSTMAN, "json")
    assert (12, ENDPOINT, "GET", "{}/rest/2.0/roles", "") in rows
    assert (12, QUERY, "GET", "{}/rest/2.0/roles", "name") in rows
    assert (20, ENDPOINT, "POST", "{}/rest/2.0/tags", "") in rows
    # the same keys in any other JSON document are data, not requests
    assert _read(POSTMAN.replace("getpostman", "example"), "json") == []


def test_curl_written_in_prose_is_a_command() -> None:
    text = (
        "Check it runs: `curl -u me:pw https://dg.example.org/rest/2.0/application/info`.\n"
        "\n"
        "    $ curl -X POST -u me:pw \\\n"
        '        -d \'{"name": "Sales"}\' https://dg.example.org/rest/2.0/communities\n'
        "\n"
        "Prose about curl and `GET` requests reads as nothing.\n"
    )
    found = [f[:4] for f in _read(text, "markdown")]
    assert found == [
        (0, ENDPOINT, "GET", "https://dg.example.org/rest/2.0/application/info"),
        (3, BODY, "POST", "https://dg.example.org/rest/2.0/communities"),
        (3, ENDPOINT, "POST", "https://dg.example.org/rest/2.0/communities"),
    ]


def test_a_method_set_off_by_a_colon_dash_or_brackets_and_a_closing_tag() -> None:
    text = (
        "GET: /rest/2.0/scopes?limit=5\n"
        "* POST - /rest/2.0/ratings\n"
        "[DELETE] /rest/2.0/ratings/{ratingId}\n"
        "<details><summary>GET /rest/2.0/traits</summary>\n"
    )
    found = [f[:4] for f in _read(text, "markdown") if f[1] == ENDPOINT]
    assert found == [
        (0, ENDPOINT, "GET", "/rest/2.0/scopes"),
        (1, ENDPOINT, "POST", "/rest/2.0/ratings"),
        (2, ENDPOINT, "DELETE", "/rest/2.0/ratings/{ratingId}"),
        (3, ENDPOINT, "GET", "/rest/2.0/traits"),
    ]


def test_a_bare_path_is_collibras_only_on_a_page_naming_its_base() -> None:
    other = "Our app: `GET /users?page=2` lists its users, `POST /comments` adds one.\n"
    assert _read(other, "markdown") == []
    named = "Base URL: `https://<host>/rest/2.0`.\n\n" + other
    found = [f[:4] for f in _read(named, "markdown") if f[1] == ENDPOINT]
    assert found == [(2, ENDPOINT, "GET", "/users"), (2, ENDPOINT, "POST", "/comments")]


LABELLED = """\
## Rename a domain

- **Method:** `PATCH`
- **URL:** `https://<instance>/rest/2.0/domains/<domain-id>`

```
Endpoint: /rest/2.0/roles?name=Steward
Method: GET
```

| Path | Method | Purpose |
| --- | --- | --- |
| `/rest/2.0/statuses` | `POST` | add a status |

The method field of every request: GET unless said otherwise.
"""


def test_a_method_and_a_url_on_labelled_lines_and_a_path_before_its_method_column() -> None:
    rows = _read(LABELLED, "markdown")
    assert rows == [
        (3, ENDPOINT, "PATCH", "https://{}/rest/2.0/domains/{}", ""),
        (6, ENDPOINT, "GET", "/rest/2.0/roles", ""),
        (6, QUERY, "GET", "/rest/2.0/roles", "name"),
        (12, ENDPOINT, "POST", "/rest/2.0/statuses", ""),
    ]
    columns = {i.line: (i.site.start, i.site.end) for i in scan_calls(LABELLED, "markdown")}
    assert LABELLED.split("\n")[12][slice(*columns[12])] == "/rest/2.0/statuses"
