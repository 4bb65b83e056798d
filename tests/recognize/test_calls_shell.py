"""curl in shell scripts and markdown code blocks, and the text reader for other languages."""

from __future__ import annotations

import pytest

from atlas_core.recognize.calls import call_at
from atlas_core.recognize.calls.scan import scan_calls
from tests.recognize.cursor import line_with, position_of, read

SCRIPT = """\
#!/usr/bin/env bash
BASE=https://acme.collibra.com/rest/2.0
# curl -X DELETE $BASE/assets/1 would remove it
curl -sS -u "$USER:$PASSWORD" -X POST "$BASE/assets" \\
  -H "Content-Type: application/json" \\
  -d '{"name": "Customer", "domainId": "d1", "typeId": "t1"}'

curl --request PATCH "$BASE/assets/$ASSET_ID" --data-raw '{"displayName": "x"}'
curl "https://acme.collibra.com/rest/2.0/assets?name=Customer&nameMatchMode=EXACT"
curl -G "$BASE/domains" --data-urlencode "communityId=c1" --data "includeSubCommunities=true"
curl -X POST "$BASE/workflowInstances" --data '{
  "workflowDefinitionId": "w1",
  "businessItemIds": ["a1"]
}'
"""


def test_a_json_body_across_continued_lines() -> None:
    site = read(SCRIPT, "shellscript", '"domainId"', into=2)
    assert site is not None
    assert (site.method, site.role, site.name) == ("POST", "body", "domainId")
    assert site.url == "https://acme.collibra.com/rest/2.0/assets"
    assert site.path_keys == ("name", "domainId", "typeId")
    assert line_with(SCRIPT, '"domainId"')[site.start : site.end] == "domainId"


def test_the_endpoint_and_a_header() -> None:
    site = read(SCRIPT, "sh", '/assets"', into=2)
    assert site is not None
    assert (site.method, site.role, site.language) == ("POST", "endpoint", "shell")
    header = read(SCRIPT, "sh", "Content-Type")
    assert header is not None
    assert (header.role, header.name) == ("header", "Content-Type")


def test_request_and_data_raw() -> None:
    site = read(SCRIPT, "bash", "displayName")
    assert site is not None
    assert (site.method, site.role, site.name) == ("PATCH", "body", "displayName")
    assert site.url == "https://acme.collibra.com/rest/2.0/assets/{}"


def test_a_query_string_in_the_url() -> None:
    site = read(SCRIPT, "shellscript", "nameMatchMode")
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "query", "nameMatchMode")
    assert site.url == "https://acme.collibra.com/rest/2.0/assets"


def test_get_with_data_sends_query_parameters() -> None:
    site = read(SCRIPT, "shellscript", "includeSubCommunities")
    assert site is not None
    assert (site.method, site.role, site.name) == ("GET", "query", "includeSubCommunities")
    encoded = read(SCRIPT, "shellscript", "communityId=")
    assert encoded is not None
    assert (encoded.role, encoded.name) == ("query", "communityId")


def test_a_json_body_written_over_several_lines() -> None:
    site = read(SCRIPT, "shellscript", "businessItemIds")
    assert site is not None
    assert (site.method, site.role, site.name) == ("POST", "body", "businessItemIds")
    assert site.url.endswith("/workflowInstances")


BODY_THEN_URL = """\
curl -u "$USER:$PASSWORD" -H 'Content-Type: application/json' \\
  -d '{
    "assetId": "a1",
    "value": "92.4"
  }' \\
  https://acme.collibra.com/rest/2.0/attributes
"""


def test_a_url_after_a_body_over_several_lines_and_a_backslash() -> None:
    """`}' \\`: the line that closes the body's quote goes on with its backslash, so the URL
    on the next line is the command's."""
    endpoints = [
        (i.line, i.site.method, i.site.url)
        for i in scan_calls(BODY_THEN_URL, "shellscript")
        if i.site.role == "endpoint"
    ]
    assert endpoints == [(5, "POST", "https://acme.collibra.com/rest/2.0/attributes")]


def test_a_commented_out_command_is_no_call() -> None:
    assert read(SCRIPT, "shellscript", "DELETE") is None


README = """\
# Creating assets

```bash
curl -X POST https://acme.collibra.com/rest/2.0/assets \\
  -d '{"name": "Customer"}'
```

Then call `POST /assets` again, or from a console:

```console
$ curl --data '{"domainId": "d1"}' https://acme.collibra.com/rest/2.0/assets
```

```
curl https://acme.collibra.com/rest/2.0/domains?name=Sales
```

```python
requests.get("https://acme.collibra.com/rest/2.0/statuses", params={"name": "Approved"})
```

```
name: not a command
```
"""


@pytest.mark.parametrize(
    ("needle", "expected"),
    [
        ('"name"', ("POST", "body", "name")),
        ('"domainId"', ("POST", "body", "domainId")),
        ("name=Sales", ("GET", "query", "name")),
        ('"name": "Approved"', ("GET", "query", "name")),
    ],
)
def test_code_blocks_in_markdown(needle: str, expected: tuple[str, str, str]) -> None:
    site = read(README, "markdown", needle, into=2)
    assert site is not None
    assert (site.method, site.role, site.name) == expected


def test_markdown_prose_and_other_blocks_are_no_calls() -> None:
    assert read(README, "markdown", "POST /assets") is None
    assert read(README, "markdown", "not a command") is None
    assert read(README, "markdown", "Creating") is None


@pytest.mark.parametrize(
    ("language", "code", "method"),
    [
        ("kotlin", 'val r = client.post("https://acme.collibra.com/rest/2.0/assets?x=1")', "POST"),
        ("go", 'req, _ := http.NewRequest("DELETE", base+"/rest/2.0/assets/bulk", nil)', "DELETE"),
        ("ruby", 'RestClient.get("/rest/2.0/assets")', "GET"),
    ],
)
def test_the_text_reader_for_other_languages(language: str, code: str, method: str) -> None:
    site = read(code, language, "rest/2.0/assets", into=10)
    assert site is not None
    assert (site.method, site.role, site.client) == (method, "endpoint", "http")
    assert "/rest/2.0/assets" in site.url


def test_the_text_reader_skips_comments() -> None:
    assert read('// client.post("/rest/2.0/assets")', "kotlin", "assets") is None
    assert read('# RestClient.get("/rest/2.0/assets")', "ruby", "assets") is None


TOOLS = """\
#!/bin/sh
HOST=https://acme.collibra.com
TABLES="$HOST/rest/2.0/tables"
ITEM="$HOST/rest/2.0/tables/$(cat id.txt)"
curl -sf "$HOST/rest/2.0/tables?limit=5"
curl -sSfL -u "$ADMIN:$PASSWD" "$TABLES" -X POST -d @table.json
curl --fail -skLu "$ADMIN":"$PASSWD" --url "$HOST/rest/2.0/schemas"
curl -G --data-urlencode schemaId=s1 -sS "$TABLES"
wget -q -O- --method=DELETE --header 'Accept: application/json' "$HOST/rest/2.0/tables/1"
wget --post-data='name=Orders&schemaId=s1' "$TABLES"
http POST "$TABLES" name=Orders schemaId:='"s1"' limit==3
http -a "$ADMIN:$PASSWD" "$HOST/rest/2.0/schemas" name==sales
echo "see http docs" && curl "$ITEM"
curl -sf "$1" -d '{"name": "x"}'
"""


@pytest.mark.parametrize(
    ("needle", "expected"),
    [
        ("limit=5", ("GET", "query", "limit", "/rest/2.0/tables")),
        ("Accept", ("DELETE", "header", "Accept", "/rest/2.0/tables/1")),
        ("schemaId=s1'", ("POST", "body", "schemaId", "/rest/2.0/tables")),
        ("name=Orders schemaId", ("POST", "body", "name", "/rest/2.0/tables")),
        ("schemaId:=", ("POST", "body", "schemaId", "/rest/2.0/tables")),
        ("limit==3", ("POST", "query", "limit", "/rest/2.0/tables")),
        ("name==sales", ("GET", "query", "name", "/rest/2.0/schemas")),
    ],
)
def test_curl_flags_wget_and_httpie(needle: str, expected: tuple[str, str, str, str]) -> None:
    line, column = position_of(TOOLS, needle)
    site = call_at(TOOLS, "shellscript", line, column)
    assert site is not None
    method, role, name, path = expected
    assert (site.method, site.role, site.name) == (method, role, name)
    assert site.url == "https://acme.collibra.com" + path


def test_the_scan_sees_every_command_and_no_unseen_url() -> None:
    found = {(i.line, i.site.role, i.site.name) for i in scan_calls(TOOLS, "shell")}
    endpoints = sorted(line for line, role, _ in found if role == "endpoint")
    assert endpoints == [4, 5, 6, 7, 8, 9, 10, 11, 12]  # not line 13: "$1" is unseen
    assert all(line != 13 for line, _, _ in found)
    [item] = [i.site for i in scan_calls(TOOLS, "shell") if i.line == 12]
    assert item.url == "https://acme.collibra.com/rest/2.0/tables/{}"
    assert (10, "body", "schemaId") in found and (10, "query", "limit") in found
    assert (7, "query", "schemaId") in found  # -G --data-urlencode
