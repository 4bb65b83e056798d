"""Recognisers: one line and a cursor column in, the candidate identifier, its kind and columns out."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from atlas_core.recognize.builtin import BUILTIN_RECOGNIZERS
from atlas_core.recognize.registry import (
    MAX_LINE_WINDOW,
    Context,
    Recognition,
    RecognizerSet,
    context_at,
    load_plugins,
)
from atlas_core.recognize.text_scan import (
    find_path,
    normalize_language,
    normalize_path,
    string_spans,
)

RECOGNIZERS = RecognizerSet(list(BUILTIN_RECOGNIZERS))


def first(language: str, line: str, target: str, delta: int = 1) -> Recognition | None:
    found = RECOGNIZERS.recognize_all(Context(line, line.index(target) + delta, language))
    return found[0] if found else None


# (language, line, where the cursor is, identifier, kind, method, the text the range covers)
CASES = [
    ("python", 'r = requests.get(f"{base}/rest/2.0/assets/{asset_id}")', "assets/", "GET /rest/2.0/assets/{asset_id}", "endpoint", "GET", "/rest/2.0/assets/{asset_id}"),
    ("python", 'r = session.post(url=BASE + "/rest/2.0/assets")', "assets", "/rest/2.0/assets", "endpoint", "", "/rest/2.0/assets"),
    ("python", 'x = "/rest/2.0/assets/" + asset_id', "assets", "/rest/2.0/assets/{id}", "endpoint", "", "/rest/2.0/assets/"),
    ("python", 'u = "/rest/2.0/assets/%s" % asset_id', "assets", "/rest/2.0/assets/{id}", "endpoint", "", "/rest/2.0/assets/%s"),
    ("python", 'u = "/rest/2.0/assets/{}".format(i)', "assets", "/rest/2.0/assets/{id}", "endpoint", "", "/rest/2.0/assets/{}"),
    ("python", 'requests.delete("https://acme.example.com/rest/2.0/assets/0190a3c2-4b1e-7c2d-9e8f-123456789abc?x=1")', "assets", "DELETE /rest/2.0/assets/{id}", "endpoint", "DELETE", "/rest/2.0/assets/0190a3c2-4b1e-7c2d-9e8f-123456789abc"),
    ("javascript", "const r = await fetch(`${base}/assets/${id}`, { method: 'PATCH' });", "assets", "PATCH /assets/{id}", "endpoint", "PATCH", "/assets/${id}"),
    ("typescript", 'const url: string = "/assets/bulk";', "bulk", "/assets/bulk", "endpoint", "", "/assets/bulk"),
    ("typescript", "axios.get<Asset>(`${this.base}/rest/2.0/assets/${assetId}`)", "assets/", "GET /rest/2.0/assets/{assetId}", "endpoint", "GET", "/rest/2.0/assets/${assetId}"),
    ("java", 'HttpRequest.newBuilder(URI.create(base + "/rest/2.0/assets")).POST(body)', "assets", "POST /rest/2.0/assets", "endpoint", "POST", "/rest/2.0/assets"),
    ("java", '@GetMapping("/rest/2.0/assets/{assetId}")', "assets", "GET /rest/2.0/assets/{assetId}", "endpoint", "GET", "/rest/2.0/assets/{assetId}"),
    ("kotlin", 'val r = client.get("$base/rest/2.0/assets/$assetId")', "assets", "GET /rest/2.0/assets/{assetId}", "endpoint", "GET", "/rest/2.0/assets/$assetId"),
    ("groovy", 'def url = "${baseUrl}/rest/2.0/domains/${domainId}"', "domains", "/rest/2.0/domains/{domainId}", "endpoint", "", "/rest/2.0/domains/${domainId}"),
    ("shellscript", 'curl -X PATCH "$BASE/rest/2.0/assets/$ASSET_ID" -d @body.json', "assets", "PATCH /rest/2.0/assets/{ASSET_ID}", "endpoint", "PATCH", "/rest/2.0/assets/$ASSET_ID"),
    ("sh", "curl --request DELETE https://acme.example.com/rest/2.0/assets/<asset_id>", "assets", "DELETE /rest/2.0/assets/{asset_id}", "endpoint", "DELETE", "/rest/2.0/assets/<asset_id>"),
    ("yaml", "  path: /rest/2.0/assets/{assetId}", "assets", "/rest/2.0/assets/{assetId}", "endpoint", "", "/rest/2.0/assets/{assetId}"),
    ("json", '{"url": "/rest/2.0/assets/:assetId"}', "assets", "/rest/2.0/assets/{assetId}", "endpoint", "", "/rest/2.0/assets/:assetId"),
    ("markdown", "Call `GET /rest/2.0/assets/{assetId}` to read one.", "assets", "GET /rest/2.0/assets/{assetId}", "endpoint", "GET", "/rest/2.0/assets/{assetId}"),
    ("markdown", "Then POST /rest/2.0/assets, with the body.", "assets", "POST /rest/2.0/assets", "endpoint", "POST", "/rest/2.0/assets"),
    ("python", "# it's documented at /rest/2.0/assets here", "assets", "/rest/2.0/assets", "endpoint", "", "/rest/2.0/assets"),
    ("python", "page = api.findAssets(name='x')", "findAssets", "findAssets", "operation", "", "findAssets"),
    ("python", "page = assets_api.find_assets(limit=5)", "find_assets", "find_assets", "operation", "", "find_assets"),
    ("java", 'Asset a = assetApi.addAsset(AddAssetRequest.builder().name("x").build());', "assetApi", "assetApi", "type", "", "assetApi"),
    ("java", 'Asset a = assetApi.addAsset(AddAssetRequest.builder().name("x").build());', "addAsset", "addAsset", "operation", "", "addAsset"),
    ("java", 'Asset a = assetApi.addAsset(AddAssetRequest.builder().name("x").build());', "AddAssetRequest", "AddAssetRequest", "type", "", "AddAssetRequest"),
    ("groovy", "def asset = assetApi.getAsset(item.id)", "getAsset", "getAsset", "operation", "", "getAsset"),
    ("kotlin", "val req = AddAssetRequest.builder()", "AddAssetRequest", "AddAssetRequest", "type", "", "AddAssetRequest"),
    ("json", '  "resourceType": "Asset",', "resourceType", "resourceType", "json_key", "", "resourceType"),
    ("json", '  "resourceType": "Asset",', '"Asset', "Asset", "json_key", "", "Asset"),
    ("json", '  "continueOnError": true', "continueOnError", "continueOnError", "json_key", "", "continueOnError"),
    ("python", 'cmd = {"resourceType": "Asset"}', "resourceType", "resourceType", "json_key", "", "resourceType"),
    ("yaml", "resourceType: Asset", "resourceType", "resourceType", "json_key", "", "resourceType"),
    ("yaml", "resourceType: Asset", "Asset", "Asset", "json_key", "", "Asset"),
    ("graphql", "  assetsOfDomain(domainId: $d) {", "assetsOfDomain", "assetsOfDomain", "graphql", "", "assetsOfDomain"),
    ("shellscript", "lineage-harvester full-sync --config ./h.yaml", "full-sync", "lineage-harvester full-sync", "cli", "", "lineage-harvester full-sync"),
    ("shellscript", "sudo ./bin/lineage-harvester.sh check-config", "lineage", "lineage-harvester check-config", "cli", "", "./bin/lineage-harvester.sh check-config"),
    ("shellscript", "cd /tmp && lineage-harvester full-sync", "full-sync", "lineage-harvester full-sync", "cli", "", "lineage-harvester full-sync"),
    ("markdown", "$ lineage-harvester full-sync", "full", "lineage-harvester full-sync", "cli", "", "lineage-harvester full-sync"),
    ("markdown", "Use the `AssetApi` bean, don't call `findAssets` twice.", "findAssets", "findAssets", "operation", "", "findAssets"),
    ("cobol", "CALL findAssets USING WS-FILTER.", "findAssets", "findAssets", "operation", "", "findAssets"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("language", "line", "at", "identifier", "kind", "method", "covered"),
    CASES,
    ids=[f"{c[0]}:{c[3]}" for c in CASES],
)
def test_builtin_recognisers(
    language: str, line: str, at: str, identifier: str, kind: str, method: str, covered: str
) -> None:
    rec = first(language, line, at)
    assert rec is not None
    assert (rec.identifier, rec.kind, rec.method) == (identifier, kind, method)
    assert line[rec.start : rec.end] == covered


def test_alternatives_cover_other_spellings() -> None:
    bean = first("java", "assetApi.addAsset(x)", "assetApi")
    assert bean is not None and bean.lookups() == ("assetApi", "AssetApi", "asset_api")
    snake = first("python", "api.find_assets()", "find_assets")
    assert snake is not None and snake.lookups() == ("find_assets", "findAssets")
    path = first("python", 'requests.get("/rest/2.0/assets")', "assets")
    assert path is not None and path.lookups() == ("GET /rest/2.0/assets", "/rest/2.0/assets")
    cli = first("shellscript", "lineage-harvester full-sync now", "lineage")
    assert cli is not None and cli.lookups() == (
        "lineage-harvester full-sync now",
        "lineage-harvester full-sync",
        "lineage-harvester",
    )


@pytest.mark.parametrize(
    ("language", "line", "at"),
    [
        ("python", "total = a + b", " + "),
        ("python", "x = 1", "1"),
        ("python", "for item in items:", "for"),
        ("python", "return self.name", "name"),  # short lowercase words are local names
        ("java", "int id = 3;", "id"),
        ("python", "z = a / b / c", "/ b"),
        ("shellscript", "   ", " "),
        ("python", "", ""),
    ],
)
def test_nothing_recognised(language: str, line: str, at: str) -> None:
    column = line.index(at) if at else 0
    assert RECOGNIZERS.recognize_all(Context(line, column, language)) == []


def test_string_spans_know_quotes_escapes_and_comments() -> None:
    spans = string_spans('a = "x\\"y" + \'z\'  # don\'t "quote"', "python")
    assert [(s.quote, s.closed) for s in spans] == [('"', True), ("'", True), ('"', True)]
    assert spans[0].end - spans[0].start == len(r"x\"y")
    # An apostrophe in markdown prose is not a string delimiter.
    prose = string_spans("don't call `findAssets` here", "markdown")
    assert [(s.quote, s.start) for s in prose] == [("`", 12)]
    # Triple quotes, and an unterminated literal that runs to the end of the line.
    triple = string_spans('q = """/rest/2.0/assets""" + "/rest/2.0/as', "python")
    assert [(s.quote, s.closed) for s in triple] == [('"""', True), ('"', False)]
    # A shell "$#" is not a comment; a "#" after a space is.
    shell = string_spans('echo $# "a" # "b"', "shellscript")
    assert [s.quote for s in shell] == ['"', '"']


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("/rest/2.0/assets/{asset_id}", "/rest/2.0/assets/{asset_id}"),
        ("/assets/${id}", "/assets/{id}"),
        ("/assets/$ASSET_ID/attributes", "/assets/{ASSET_ID}/attributes"),
        ("/assets/<asset_id>", "/assets/{asset_id}"),
        ("/assets/:assetId", "/assets/{assetId}"),
        ("/assets/{d['id']}", "/assets/{id}"),
        ("/assets/0190a3c2-4b1e-7c2d-9e8f-123456789abc", "/assets/{id}"),
        ("/assets/12345", "/assets/{id}"),
        ("/assets/%s/", "/assets/{id}"),
        ("/assets/", "/assets"),
    ],
)
def test_normalize_path(raw: str, normalized: str) -> None:
    assert normalize_path(raw) == normalized


def test_find_path_skips_hosts_and_base_variables() -> None:
    for text in ("{base}/rest/2.0/assets", "${base}/rest/2.0/assets", "$BASE/rest/2.0/assets",
                 "https://x.example.com/rest/2.0/assets?limit=5", "http://localhost:8080/rest/2.0/assets#top"):  # fmt: skip
        match = find_path(text)
        assert match is not None and match.normalized == "/rest/2.0/assets", text
    assert find_path("assets/bulk") is None
    assert find_path("/") is None
    assert find_path("/123") is None


def test_language_aliases() -> None:
    assert normalize_language("shellscript") == normalize_language("sh") == "shell"
    assert normalize_language("typescriptreact") == "typescript"
    assert normalize_language("JSONC") == "json"
    assert normalize_language("") == ""


def test_long_lines_are_windowed() -> None:
    record = '{"resourceType":"Asset"},'
    line = record * (5 * MAX_LINE_WINDOW)
    column = len(line) // 2 + 3
    while not line[column - 2 : column].isalpha():
        column += 1
    ctx = context_at([line], 0, column, "json")
    assert ctx is not None and len(ctx.line) <= 2 * MAX_LINE_WINDOW and ctx.offset > 0
    rec = RECOGNIZERS.recognize_all(ctx)[0]
    assert line[rec.start : rec.end] in ("resourceType", "Asset")
    assert context_at([line], 1, 0, "json") is None
    # A column past the end of the line is clamped to it.
    short = context_at(["abc"], 0, 99, "python")
    assert short is not None and short.character == 3


def test_enabled_names_filter_the_set() -> None:
    rs = RecognizerSet(list(BUILTIN_RECOGNIZERS), enabled=frozenset({"rest_path"}))
    assert [r.name for r in rs.active()] == ["rest_path"]
    line = 'api.findAssets("/rest/2.0/assets")'
    assert rs.recognize_all(Context(line, line.index("findAssets") + 1, "python")) == []
    assert rs.recognize_all(Context(line, line.index('assets"') + 1, "python"))


# --- plugins ------------------------------------------------------------------------------------


class _Tag:
    name = "tag"

    def recognize(self, ctx: Context) -> Recognition | None:
        start = ctx.line.find("@doc(")
        if start < 0:
            return None
        end = ctx.line.index(")", start)
        return Recognition(ctx.line[start + 5 : end], "operation", start + 5, end, "tag")


def _crash(ctx: Context) -> Recognition | None:
    raise RuntimeError("plugin bug")


def _wrong_type(ctx: Context) -> object:
    return "findAssets"


def test_plugins_load_and_cannot_break_recognition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "atlas_test_recognisers.py"
    module.write_text(
        "from tests.recognize.test_recognizers import _Tag, _crash, _wrong_type\nTAG = _Tag\n"
        "def as_function(ctx):\n    return None\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    group = "atlas.recognizers"
    eps = [
        importlib.metadata.EntryPoint("tag", "atlas_test_recognisers:TAG", group),
        importlib.metadata.EntryPoint("fn", "atlas_test_recognisers:as_function", group),
        importlib.metadata.EntryPoint("crash", "atlas_test_recognisers:_crash", group),
        importlib.metadata.EntryPoint("wrong", "atlas_test_recognisers:_wrong_type", group),
        importlib.metadata.EntryPoint("gone", "atlas_test_recognisers:not_there", group),
        importlib.metadata.EntryPoint("nomodule", "no_such_module_xyz:thing", group),
    ]
    loaded, report = load_plugins(eps)
    assert [r.name for r in loaded] == ["tag", "fn", "crash", "wrong"]
    status = {s.name: s for s in report}
    assert status["gone"].loaded is False and "not_there" in status["gone"].error
    assert status["nomodule"].loaded is False and "No module named" in status["nomodule"].error

    rs = RecognizerSet([*loaded, *BUILTIN_RECOGNIZERS], report)
    # The crashing and ill-typed plugins are skipped; the tag plugin wins over the built-ins.
    line = "see @doc(findAssets) and api.getAsset()"
    found = rs.recognize_all(Context(line, line.index("findAssets") + 2, "python"))
    assert found[0].identifier == "findAssets" and found[0].recognizer == "tag"
    found = rs.recognize_all(Context(line, line.index("getAsset") + 2, "python"))
    assert found[0].identifier == "findAssets"  # the tag plugin claims the whole line
    assert any(r.identifier == "getAsset" for r in found)
    sys.modules.pop("atlas_test_recognisers", None)


def test_no_plugins_installed_is_fine() -> None:
    loaded, report = load_plugins([])
    assert loaded == [] and report == []
    assert RecognizerSet.default(with_plugins=False).names == [
        "rest_path",
        "json_key",
        "cli_command",
        "code_identifier",
    ]
