"""Requests sent through the script's or the file's own functions, in languages read as text: a
shell function that runs curl with its arguments, and a Go function that builds the URL a request
is sent to."""

from __future__ import annotations

from atlas_core.recognize.calls.scan import Located, scan_calls

SHELL = """\
#!/usr/bin/env bash
HOST=$(cat host.txt)
TENANT="t-1"

api_get() {
  local route="$1"
  curl -sSf -H "Accept: application/json" "${HOST}${route}"
}

function api_post {
  local route="$1"
  local payload="$2"
  curl -sf -X POST -H "Content-Type: application/json" -d "$payload" "${HOST}${route}"
}

api_get "/rest/2.0/domains?communityId=${TENANT}&limit=5"
api_post "/rest/2.0/tags" '{"name": "gold"}'
echo "/rest/2.0/users"
"""


def _rows(code: str, language: str) -> set[tuple[int, str, str, str, str]]:
    return {_row(item) for item in scan_calls(code, language)}


def _row(item: Located) -> tuple[int, str, str, str, str]:
    site = item.site
    return item.line, site.role, site.method, site.url, site.name


def test_a_call_of_a_shell_function_running_curl_is_its_request() -> None:
    rows = _rows(SHELL, "shell")
    domains = "{}/rest/2.0/domains"
    assert {
        (15, "endpoint", "GET", domains, ""),
        (15, "query", "GET", domains, "communityId"),
        (15, "query", "GET", domains, "limit"),
        (16, "endpoint", "POST", "{}/rest/2.0/tags", ""),
        (16, "body", "POST", "{}/rest/2.0/tags", "name"),
    } <= rows
    # the functions' own commands only forward their callers' paths; `echo` sends nothing
    assert not any(line in (6, 12, 17) for line, *_ in rows)


GO = """\
package catalog

import (
	"fmt"
	"net/http"
	"net/url"
)

func withQuery(path string, params url.Values) (string, error) {
	if len(params) == 0 {
		return path, nil
	}
	if params.Get("bad") != "" {
		return "", fmt.Errorf("bad")
	}
	return path + "?" + params.Encode(), nil
}

func loop(path string) string { return loop(path) }

func listStatuses(client *http.Client, params url.Values) {
	endpoint, err := withQuery("/rest/2.0/statuses", params)
	if err != nil {
		return
	}
	req, _ := http.NewRequest("GET", endpoint, nil)
	client.Do(req)
	again, _ := http.NewRequest("GET", loop("/rest/2.0/roles"), nil)
	client.Do(again)
}
"""


def test_a_go_url_built_by_the_files_own_function() -> None:
    rows = _rows(GO, "go")
    assert (21, "endpoint", "GET", "/rest/2.0/statuses", "") in rows
    # a function that calls itself gives no value: nothing is guessed
    assert not any(line == 27 for line, *_ in rows)
