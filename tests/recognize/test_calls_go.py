"""Go's net/http calls, read as text: the URL through `+`, `fmt.Sprintf` and assignments, the
method of `http.NewRequest`, and nothing where the URL is a value the code does not show."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize.calls.scan import scan_calls
from tests.apicheck_bundle import build_apicheck_bundle
from tests.recognize.cursor import line_with, read

BASE = "https://acme.collibra.com/rest/2.0"

CLIENT = f"""\
package catalog

import (
	"fmt"
	"net/http"
	"strings"
)

const (
	apiRoot = "{BASE}"
	pageSize = 50
)

var httpClient = &http.Client{{}}

func listTables(base string) {{
	// http.Get(base + "/tables") is the old way
	target := fmt.Sprintf("%s/tables?limit=%d&nameMatchMode=%s", base, pageSize, "EXACT")
	req, _ := http.NewRequest(http.MethodGet, target, nil)
	httpClient.Do(req)
}}

func createTable(name string) {{
	payload := strings.NewReader(`{{"name": "x"}}`)
	resp, _ := httpClient.Post(apiRoot+"/tables", "application/json", payload)
	del, _ := http.NewRequestWithContext(ctx, "DELETE",
		apiRoot+"/tables/"+name, nil)
	_ = resp
	_ = del
}}

func fromConfig(cfg Config) {{
	http.Get(cfg.URL)
}}
"""


def _sites(code: str) -> list[tuple[int, str, str, str, str]]:
    return [
        (i.line, i.site.method, i.site.url, i.site.role, i.site.name)
        for i in scan_calls(code, "go")
    ]


def test_urls_through_sprintf_constants_and_concatenation() -> None:
    lines = CLIENT.splitlines()
    at = {text: n for n, text in enumerate(lines)}
    sprintf = next(n for t, n in at.items() if "fmt.Sprintf" in t)
    post = next(n for t, n in at.items() if "httpClient.Post" in t)
    delete = next(n for t, n in at.items() if '"/tables/"' in t)
    assert _sites(CLIENT) == [
        (sprintf, "GET", "{}/tables", "endpoint", ""),
        (sprintf, "GET", "{}/tables", "query", "limit"),
        (sprintf, "GET", "{}/tables", "query", "nameMatchMode"),
        (post, "POST", f"{BASE}/tables", "endpoint", ""),
        (delete, "DELETE", f"{BASE}/tables/{{}}", "endpoint", ""),
    ]
    # A comment, a parameter's value and a struct field are nothing the reader can see.
    assert read(CLIENT, "go", "old way") is None
    assert scan_calls("package x\nfunc f(u string) { http.Get(u) }\n", "go") == []
    shadowed = 'package x\nvar u = "/tables"\nfunc f(u string) {\n\thttp.Get(u)\n}\n'
    assert scan_calls(shadowed, "go") == []


def test_the_endpoint_is_where_its_path_is_written() -> None:
    site = read(CLIENT, "golang", '+"/tables"', into=3)
    assert site is not None
    assert (site.method, site.role, site.url) == ("POST", "endpoint", f"{BASE}/tables")
    assert line_with(CLIENT, '+"/tables"')[site.start : site.end] == "/tables"
    key = read(CLIENT, "go", "nameMatchMode")
    assert key is not None and (key.role, key.name) == ("query", "nameMatchMode")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_checks_of_go_calls(engine: Engine) -> None:
    code = (
        "package x\n"
        f'const base = "{BASE}"\n'
        "func get(id string) {\n"
        '\tu := fmt.Sprintf("%s/asset/%s", base, id)\n'
        '\treq, _ := http.NewRequest("GET", u, nil)\n'
        '\thttp.Get(base + "/assets?nameMatchMode=EXACTLY")\n'
        '\thttp.Get(base + "/assets?nameMatchMode=EXACT")\n'
        "}\n"
    )
    found = engine.check_code(code, "go")
    assert [(f.line, f.check) for f in found] == [(3, "unknown-endpoint"), (5, "bad-value")]


def test_long_and_broken_files_stay_bounded() -> None:
    many = "package x\n" + 'func f() { http.Get("/rest/2.0/assets") }\n' * 100_000
    assert len(scan_calls(many, "go", budget_s=600)) == 5000  # the site limit
    for junk in ("http.NewRequest(" * 5000, 'http.Get("' + "x" * 100_000, "\x00" * 1000):
        assert scan_calls(junk, "go") == []


KEYS = f"""\
package catalog

const root = "{BASE}"

func find(n string) {{
	q := url.Values{{}}
	q.Set("nameMatchMode", "EXACT")
	q.Add("limt", n)
	req, _ := http.NewRequest("GET", root+"/assets", nil)
	req.URL.RawQuery = q.Encode()
	params := url.Values{{"name": {{n}}, "size": []string{{n}}}}
	http.Get(root + "/assets?" + params.Encode())
	other := url.Values{{}}
	other.Set("unused", n)
}}

func create(n, d string) {{
	payload := map[string]interface{{}}{{
		"name":     n,
		"domainID": d,
	}}
	b, _ := json.Marshal(payload)
	post, _ := http.NewRequest("POST", root+"/assets", bytes.NewBuffer(b))
	raw, _ := json.Marshal(map[string]any{{"name": n, "domainId": d, "typeId": d}})
	http.Post(root+"/assets", "application/json", bytes.NewReader(raw))
	_ = post
}}
"""


def test_url_values_and_marshalled_maps_are_request_keys() -> None:
    keys = [(line, method, role, name) for line, method, _, role, name in _sites(KEYS)]
    assert [k for k in keys if k[2] in ("query", "body")] == [
        (6, "GET", "query", "nameMatchMode"),
        (7, "GET", "query", "limt"),
        (10, "GET", "query", "name"),
        (10, "GET", "query", "size"),
        (18, "POST", "body", "name"),
        (19, "POST", "body", "domainID"),
        (23, "POST", "body", "name"),
        (23, "POST", "body", "domainId"),
        (23, "POST", "body", "typeId"),
    ]  # `other` is encoded nowhere
    site = read(KEYS, "go", '"domainID"', into=2)
    assert site is not None and site.path_keys == ("name", "domainID") and site.complete


def test_checks_of_go_request_keys(engine: Engine) -> None:
    found = engine.check_code(KEYS, "go")
    lines = KEYS.splitlines()
    spans = [
        (f.line, f.check, lines[f.line][f.start : f.end if f.end_line is None else None])
        for f in found
    ]
    assert spans == [
        (7, "unknown-param", "limt"),
        (10, "unknown-param", "size"),
        (17, "missing-required", "{"),  # no typeId in the marshalled map: from where it opens
        (19, "unknown-param", "domainID"),
    ]
    assert found[2].end_line == 18  # to its first key


STRUCTS = """\
package catalog

type NewAsset struct {
	Name     string `json:"name"`
	DomainID string `json:"domainID"`
	TypeID   string `json:"typeId,omitempty"`
	Internal string `json:"-"`
}

type Partial struct {
	Name string `json:"name"`
	Extra
}

func Add(c *http.Client, base string, a NewAsset) error {
	body, _ := json.Marshal(a)
	req, _ := http.NewRequest(http.MethodPost, base+"/rest/2.0/assets", bytes.NewReader(body))
	return send(c, req)
}

func AddNamed(c *http.Client, base, n string) error {
	asset := NewAsset{Name: n}
	body, _ := json.Marshal(asset)
	req, _ := http.NewRequest("POST", base+"/rest/2.0/assets", bytes.NewBuffer(body))
	return send(c, req)
}

func AddPartial(c *http.Client, base string) error {
	body, _ := json.Marshal(&Partial{Name: "x"})
	req, _ := http.NewRequest("POST", base+"/rest/2.0/assets", bytes.NewBuffer(body))
	return send(c, req)
}
"""


def test_a_marshalled_struct_of_the_document_gives_its_tags_as_body_keys(engine: Engine) -> None:
    """``json.Marshal`` of a struct the document declares (a parameter of its type, a name holding
    a literal, a literal itself) sends its fields' json tags; a field without a tag (or an
    embedded struct) makes the key set incomplete, so no key is called missing."""
    keys = [
        (i.line, i.site.name, i.site.complete)
        for i in scan_calls(STRUCTS, "go")
        if i.site.role == "body"
    ]
    assert (4, "domainID", True) in keys and (5, "typeId", True) in keys
    assert not any(name == "Internal" or name == "-" for _, name, _ in keys)
    assert (10, "name", False) in keys
    lines = STRUCTS.splitlines()
    got = {
        (f.line, f.check, lines[f.line][f.start : f.end]) for f in engine.check_code(STRUCTS, "go")
    }
    assert (4, "unknown-param", "domainID") in got  # a misspelt key where the tag writes it
    assert not any(check == "missing-required" and line == 10 for line, check, _ in got)
