"""curl in shell scripts and markdown code blocks, and the text reader for other languages."""

from __future__ import annotations

import pytest

from tests.recognize.cursor import line_with, read

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
