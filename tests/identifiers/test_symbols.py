"""Identifier resolution, workspace symbols, completion and deprecations over a written table."""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from atlas_core.errors import BundleError
from atlas_core.identifiers.extract.documents import extract, write_identifier_table, write_table
from atlas_core.identifiers.lookup.identifier_index import IdentifierIndex
from atlas_core.identifiers.spelling import compact, name_variants, path_key, strip_path
from atlas_core.types import Deprecation, IdentifierEntry, Param
from tests.identifiers.documents import fixture_documents

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> IdentifierIndex:
    out = tmp_path_factory.mktemp("ids")
    write_identifier_table(fixture_documents(), [], out)
    opened = IdentifierIndex.open(out)
    yield opened
    opened.close()


def _top(index: IdentifierIndex, spelling: str):
    found = index.lookup(spelling, 5)
    assert found, f"nothing for {spelling!r}"
    return found[0]


@pytest.mark.parametrize(
    "spelling",
    [
        "GET /assets/{assetId}",
        "/assets/{assetId}",
        "/rest/2.0/assets/{assetId}",
        '"/rest/2.0/assets/{assetId}"',
        "/assets/<asset_id>",
        "/assets/:assetId",
        "/assets/{asset_id}",
        "/assets/${id}",
        "/rest/2.0/assets/3f2504e0-4f89-11d3-9a0c-0305e82c3301",
        "/assets/12345",
        "/assets/{assetId}/",
        "/assets/{assetId}?include=tags&x=1",
        "/assets/{assetId}#section",
        "https://acme.example.com/rest/2.0/assets/{assetId}",
        "api.example.com:8443/rest/2.0/assets/{assetId}",
        "{base}/assets/{asset_id}",
        "{base}/rest/2.0/assets/{asset_id}",
        "${baseUrl}/assets/${id}",
        'f"{self.base_url}/rest/2.0/assets/{asset_id}"',
        "<your_host>/rest/2.0/assets/42",
        "get /assets/{assetId}",
    ],
)
def test_every_path_spelling_resolves_to_the_read_endpoint(index, spelling):
    top = _top(index, spelling)
    assert (top.name, top.kind, top.method, top.path) == (
        "GET /assets/{assetId}",
        "endpoint",
        "GET",
        "/assets/{assetId}",
    )
    assert top.confidence >= 0.9 and top.match in ("exact", "normalized")


def test_exact_template_is_exact_and_normalised_spelling_is_lower(index):
    assert _top(index, "GET /assets/{assetId}").confidence == 1.0
    assert _top(index, "/rest/2.0/assets/{assetId}").match == "exact"
    normalised = _top(index, "/assets/:assetId")
    assert (normalised.confidence, normalised.match) == (0.9, "normalized")


def test_method_selects_among_endpoints_of_one_path(index):
    top = _top(index, "DELETE /rest/2.0/assets/{id}")
    assert top.name == "DELETE /assets/{assetId}"
    assert top.deprecated and top.replacement == "POST /assets/removalJobs"
    # Other methods of the same path still come back, lower.
    others = index.lookup("DELETE /assets/{id}", 10)
    assert {c.name for c in others} >= {"GET /assets/{assetId}"}
    assert all(c.confidence < top.confidence for c in others if c.method != "DELETE")


def test_literal_segment_in_parameter_position_generalises(index):
    top = _top(index, "/assets/orders-table")
    assert top.name == "GET /assets/{assetId}" and top.confidence < 0.9


@pytest.mark.parametrize(
    ("spelling", "name", "kind"),
    [
        ("find_assets", "find_assets", "operation"),
        ("findAssets", "GET /assets", "endpoint"),
        ("FindAssets", "GET /assets", "endpoint"),
        ("find-assets", "GET /assets", "endpoint"),
        ("api.findAssets(", "GET /assets", "endpoint"),
        ("assets_api.find_assets", "GET /assets", "endpoint"),
        ("assetApi.addAsset", "POST /assets", "endpoint"),
        ("AddAssetRequest.builder()", "AddAssetRequest", "type"),
        ("AddAssetRequest.builder().name(x).build()", "AddAssetRequest", "type"),
        ("new AddAssetRequest()", "AddAssetRequest", "type"),
        ("assetApi", "AssetApi", "type"),
        ("other_client.AssetsApi", "AssetsApi", "type"),
        ('"resourceType"', "resourceType", "json_key"),
        ('"resourceType": "Asset"', "resourceType", "json_key"),
        ("continueOnError", "continueOnError", "json_key"),
        ('"continueOnError":', "continueOnError", "json_key"),
        ("continue_on_error", "continueOnError", "json_key"),
        ("harvest-tool full-sync", "harvest-tool full-sync", "cli"),
        ("full-sync", "full-sync", "cli"),
        ("AssetFilter", "AssetFilter", "graphql"),
        ("Reading an asset", "Reading an asset", "heading"),
    ],
)
def test_name_spellings_resolve(index, spelling, name, kind):
    top = _top(index, spelling)
    assert (top.name, top.kind) == (name, kind), index.lookup(spelling, 5)
    assert top.confidence >= 0.85


def test_bean_member_and_owner_type_both_come_back(index):
    names = {(c.name, c.kind) for c in index.lookup("assetApi.addAsset", 10)}
    assert {("addAsset", "operation"), ("AssetApi", "type")} <= names


def test_candidate_carries_method_params_schemas_and_location(index):
    top = _top(index, "get_asset")
    assert top.kind == "operation" and top.operation_id == "get_asset"
    assert (top.method, top.path) == ("GET", "/assets/{assetId}")
    assert top.params == (Param("asset_id", "path", "str", True, "Identifier of the asset"),)
    assert top.response_schema == "AssetRecord"
    assert (top.file, top.line, top.anchor) == ("rest/widgets-api.md", 30, "get_asset")
    assert top.url == "https://docs.example.test/rest/widgets-api#get_asset"
    assert top.summary == "Read one asset"


def test_near_misses_are_fuzzy_and_below_exact(index):
    near = _top(index, "findAsset")
    assert near.operation_id == "find_assets" and near.match == "fuzzy"
    assert 0.5 < near.confidence < 0.9
    typo = _top(index, "contineOnError")
    assert (typo.name, typo.match) == ("continueOnError", "fuzzy")
    assert typo.confidence < _top(index, "continueOnError").confidence
    path_typo = _top(index, "/asets/{assetId}")
    assert path_typo.path == "/assets/{assetId}" and path_typo.match == "fuzzy"


def test_unknown_identifier_is_an_honest_miss(index):
    # Lookup resolves names; loose words of a question ("per page" near a "Paging" heading) are
    # search's job, so lookup says "not documented" rather than guess (issue 12, item 6).
    assert index.lookup("how many items per page", 5) == []
    assert index.lookup("zzzqqq xyzzy", 5) == []


@pytest.mark.parametrize(
    "bad", ["", "   ", "\x00\x01", "(.*[", "a" * 100_000, "/" * 5000, "GET", "{}", "::", '""']
)
def test_bad_input_never_crashes(index, bad):
    assert isinstance(index.lookup(bad), list)
    assert isinstance(index.symbols(bad), list)
    assert isinstance(index.endpoints(bad), list)


def test_limits_are_clamped(index):
    assert len(index.lookup("asset", 0)) == 1
    assert len(index.lookup("/assets/{id}", -5)) == 1
    assert len(index.lookup("asset", 10**9)) <= 100
    assert len(index.symbols("a", 10**9)) <= 1000
    assert len(index.symbols("", 3)) == 3


def test_symbols_rank_exact_then_prefix_then_fuzzy(index):
    found = index.symbols("findassets", 10)
    assert found[0].name == "find_assets" and found[0].score == 1.0
    prefix = index.symbols("continue", 5)
    assert prefix[0].name == "continueOnError"
    fuzzy = index.symbols("contnueOnEror", 5)
    assert fuzzy and fuzzy[0].name == "continueOnError"
    assert fuzzy[0].score < prefix[0].score < found[0].score
    hump = index.symbols("coe", 5)
    assert "continueOnError" in [s.name for s in hump]


def test_symbols_show_endpoints_with_method_and_locations(index):
    found = index.symbols("/assets/{assetId}", 10)
    names = [s.name for s in found]
    assert "GET /assets/{assetId}" in names and "DELETE /assets/{assetId}" in names
    symbol = next(s for s in found if s.name == "GET /assets/{assetId}")
    assert symbol.kind == "endpoint" and symbol.file and symbol.line > 0
    assert symbol.container in ("guides", "rest")


def test_empty_symbol_query_lists_endpoints_first(index):
    found = index.symbols("", 5)
    assert [s.kind for s in found] == ["endpoint"] * 5


def test_endpoint_completion_by_prefix(index):
    names = [c.name for c in index.endpoints("/rest/2.0/as")]
    assert set(names) >= {"GET /assets", "POST /assets", "GET /assets/{assetId}"}
    assert "GET /relations" not in names
    assert len(names) == len(set(names))  # documented on two pages, offered once
    assert all(c.path.startswith("/assets") for c in index.endpoints("/rest/2.0/as"))
    below = [c.path for c in index.endpoints("/rest/2.0/assets/")]
    assert below and all(p.startswith("/assets/") for p in below)
    assert len(index.endpoints("/rest/2.")) == len(index.endpoints("/"))
    assert len(index.endpoints("/", limit=2)) == 2
    gets = index.endpoints("GET /as")
    assert gets and all(c.method == "GET" for c in gets)


def test_deprecations_come_back_typed(index):
    rows = {d.term: d for d in index.deprecations()}
    assert rows["Vocabulary"].replacement == "Domain"
    assert rows["Vocabulary"].file == "output-module/terms.md" and rows["Vocabulary"].line == 8
    assert rows["findAssetsLegacy"].replacement == "findAssets"
    assert rows["DELETE /assets/{assetId}"].whole_word is False
    assert rows["Vocabulary"].code_only and not rows["findAssetsLegacy"].code_only


def test_deprecations_written_before_code_only_read_as_false(tmp_path):
    write_table([], [Deprecation("Term", "Asset", "a.md", 3, code_only=True)], tmp_path)
    path = tmp_path / "identifiers" / "deprecations.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    assert rows[0]["code_only"] is True
    del rows[0]["code_only"]
    path.write_text(json.dumps(rows), encoding="utf-8")
    index = IdentifierIndex.open(tmp_path)
    assert index.deprecations() == [Deprecation("Term", "Asset", "a.md", 3)]
    index.close()


def test_round_trip_keeps_every_field(tmp_path):
    entry = IdentifierEntry(
        name="PATCH /widgets/{widgetId}",
        kind="endpoint",
        file="ref/widgets.md",
        line=42,
        anchor="change-widget",
        url="https://docs.example.test/ref/widgets#change-widget",
        summary="Changes a widget — partially.",
        publication="Widgets API",
        method="PATCH",
        path="/widgets/{widgetId}",
        operation_id="changeWidget",
        params=(Param("widgetId", "path", "string", True, "The widget's id"),),
        request_schema="ChangeWidgetRequest",
        response_schema="Widget",
        deprecated=True,
        replacement="PUT /widgets/{widgetId}",
    )
    write_table([entry], [], tmp_path)
    index = IdentifierIndex.open(tmp_path / "identifiers")
    for spelling in ("PATCH /widgets/{widgetId}", "changeWidget", "change_widget"):
        got = index.lookup(spelling, 1)[0]
        for field in IdentifierEntry.__slots__:
            assert getattr(got, field) == getattr(entry, field), (spelling, field)
    index.close()


def test_empty_table_opens_and_answers_nothing(tmp_path):
    write_table([], [], tmp_path)
    index = IdentifierIndex.open(tmp_path)
    assert index.lookup("findAssets") == [] and index.symbols("") == []
    assert index.endpoints("/") == [] and index.deprecations() == []
    index.close()


def test_missing_or_foreign_table_is_a_bundle_error(tmp_path):
    with pytest.raises(BundleError, match="identifier table missing"):
        IdentifierIndex.open(tmp_path)
    write_table([], [], tmp_path)
    meta = tmp_path / "identifiers" / "meta.json"
    data = json.loads(meta.read_text())
    meta.write_text(json.dumps({**data, "version": 99}))
    with pytest.raises(BundleError, match="99"):
        IdentifierIndex.open(tmp_path)
    meta.write_text("{not json")
    with pytest.raises(BundleError, match="unreadable"):
        IdentifierIndex.open(tmp_path)
    meta.write_text(json.dumps(data))
    (tmp_path / "identifiers" / "kind.npy").write_bytes(b"not an array")
    with pytest.raises(BundleError, match=r"unreadable.*kind\.npy"):
        IdentifierIndex.open(tmp_path)


def test_opens_through_a_bundle(tmp_path):
    search_fixtures = pytest.importorskip("tests.search_fixtures")
    from atlas_core.bundle import Bundle

    path = search_fixtures.build_search_bundle(tmp_path / "bundle")
    bundle = Bundle.open(path)
    assert bundle.manifest["identifiers"]["count"] > 0
    index = IdentifierIndex.open(bundle)
    assert len(index) == bundle.manifest["identifiers"]["count"]
    top = index.lookup("Widgets API", 1)[0]
    assert top.kind == "heading" and (path / "mirror" / top.file).is_file()
    index.close()


def test_opens_the_shared_hash_bundle(hash_bundle):
    from atlas_core.bundle import Bundle

    bundle = Bundle.open(hash_bundle)
    index = IdentifierIndex.open(bundle)
    section = bundle.manifest["identifiers"]
    assert len(index) == section["count"] == bundle.manifest["counts"]["identifiers"]
    assert set(section["files"]) <= set(bundle.manifest["files"])
    for spelling in ("findAssets", "find_assets", "/rest/2.0/assets?name=x"):
        top = index.lookup(spelling, 1)[0]
        assert (top.method, top.path) == ("GET", "/assets"), spelling
    top = index.lookup("/rest/2.0/assets/3f2504e0-4f89-11d3-9a0c-0305e82c3301", 1)[0]
    assert top.name == "GET /assets/{assetId}"
    lines = (bundle.mirror_dir / top.file).read_text(encoding="utf-8").split("\n")
    assert 1 <= top.line <= len(lines)
    rows = {d.term: d for d in index.deprecations()}
    assert rows["Vocabulary"].replacement == "Domain"
    assert rows["GET /rest/1.0/vocabulary/{vocabularyId}"].replacement.endswith(
        "/domains/{domainId}"
    )
    legacy = index.lookup("getVocabulary", 5)
    assert legacy and all(c.deprecated and c.replacement == "getDomain" for c in legacy)
    index.close()


def test_normalisation_helpers():
    assert compact("find_assets") == compact("findAssets") == compact("Find-Assets") == "findassets"
    assert strip_path("GET https://h.example/rest/2.0/assets/?q=1") == ("GET", "/assets")
    assert strip_path("/rest/1.0/term/{id}") == ("", "/rest/1.0/term/{id}")
    assert path_key("/assets/{assetId}/tags") == path_key("/Assets/:id/tags") == "/assets/{}/tags"
    assert name_variants("assetApi.addAsset")[:2] == [("assetapiaddasset", 0.9), ("addasset", 0.9)]


def test_lookup_path_imports_no_heavy_modules(tmp_path):
    write_identifier_table(fixture_documents(), [], tmp_path)
    code = (
        "import sys\n"
        "from atlas_core.identifiers.lookup.identifier_index import IdentifierIndex\n"
        f"i = IdentifierIndex.open({str(tmp_path)!r})\n"
        "assert i.lookup('findAssets') and i.symbols('asset') and i.lookup('findAsset')\n"
        "i.deprecations(); i.endpoints('/rest/2.0/as')\n"
        "heavy = [m for m in ('numpy', 'scipy', 'onnxruntime', 'pyarrow', 'atlas_core.embed')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_extract_is_deterministic():
    assert extract(fixture_documents()) == extract(fixture_documents())


@pytest.mark.parametrize(
    "spelling",
    [
        "/graphql/gadgetGraph/v2",
        "POST /graphql/gadgetGraph/v2",
        "https://acme.example.com/graphql/gadgetGraph/v2",
        '"${host}/graphql/gadgetGraph/v2"',
    ],
)
def test_graphql_endpoint_resolves_exactly(index, spelling):
    top = _top(index, spelling)
    assert (top.name, top.kind, top.method) == ("POST /graphql/gadgetGraph/v2", "endpoint", "POST")
    assert (top.confidence, top.match) == (1.0, "exact")
    assert top.file == "graphql/endpoint.md"


def test_table_operations_resolve_with_their_endpoint(index):
    for spelling in ("findGadgets", "find_gadgets", "gadgetsApi.findGadgets()"):
        top = _top(index, spelling)
        assert (top.method, top.path, top.operation_id) == ("GET", "/gadgets", "findGadgets")
        assert top.file == "rest/gadgets-reference.md" and top.line == 9
    assert _top(index, "getEventGadgetId").anchor == "events"


def test_best_documented_page_answers_first(index):
    found = index.lookup("GridLayoutConfig", 5)
    assert [c.file for c in found] == ["output-module/grid-layouts.md", "api/reporting-client.md"]
    assert found[0].confidence == found[1].confidence == 1.0
    assert index.symbols("GridLayoutConfig", 2)[0].file == "output-module/grid-layouts.md"


# -- ordering among equal matches ------------------------------------------------------------
# Invented rows: one operation documented by a generated reference page (its operationId as the
# exact name), a written guide section headed by it, and a README row that only lists it.


def _op(name, kind, file, line, **fields):
    return IdentifierEntry(name=name, kind=kind, file=file, line=line, summary="", **fields)


_SPIN_FIELDS = {"method": "POST", "path": "/rotors/{rotorId}/spin", "operation_id": "spinRotor"}
_SPIN_PARAMS = (Param("rotorId", "path", "string", True, "The rotor"),)
_RANKED = [
    # entry, section weight, generated
    (_op("spinRotor", "operation", "ref/rotors.md", 12, params=_SPIN_PARAMS, **_SPIN_FIELDS), 9, True),
    (_op("POST /rotors/{rotorId}/spin", "endpoint", "ref/rotors.md", 12, params=_SPIN_PARAMS, **_SPIN_FIELDS), 9, True),
    (_op("spin_rotor", "operation", "guide/rotors.md", 40, params=_SPIN_PARAMS, **{**_SPIN_FIELDS, "operation_id": "spin_rotor"}), 9, False),
    (_op("POST /rotors/{rotorId}/spin", "endpoint", "guide/rotors.md", 40, **{**_SPIN_FIELDS, "operation_id": "spin_rotor"}), 9, False),
    (_op("spin_rotor", "operation", "guide/readme.md", 7, **{**_SPIN_FIELDS, "operation_id": "spin_rotor"}), 2, False),
    (_op("POST /rotors/{rotorId}/spin", "endpoint", "guide/readme.md", 7, **{**_SPIN_FIELDS, "operation_id": "spin_rotor"}), 2, False),
    (_op("spin_rotor", "heading", "guide/rotors.md", 40), 0, False),
    (_op("GET /rotors/{rotorId}", "endpoint", "guide/rotors.md", 20, method="GET", path="/rotors/{rotorId}"), 1, False),
    (_op("GET /rotors/{rotorId}", "endpoint", "ref/rotors.md", 3, method="GET", path="/rotors/{rotorId}", operation_id="getRotor"), 9, True),
    (_op("DELETE /rotors/{rotorId}", "endpoint", "guide/rotors.md", 25, method="DELETE", path="/rotors/{rotorId}"), 30, False),
]  # fmt: skip


def _ranked_index(tmp_path, rows=_RANKED):
    write_table(
        [e for e, _, _ in rows],
        [],
        tmp_path,
        weights=[w for _, w, _ in rows],
        generated=[g for _, _, g in rows],
    )
    return IdentifierIndex.open(tmp_path)


def _confidences_never_rise(found):
    return all(a.confidence >= b.confidence for a, b in pairwise(found))


def test_exact_name_answers_before_other_spellings_then_files_spread(tmp_path):
    index = _ranked_index(tmp_path)
    found = index.lookup("spinRotor", 10)
    # The exact operationId is on the generated page only, and stays first.
    assert (found[0].name, found[0].file, found[0].match) == ("spinRotor", "ref/rotors.md", "exact")
    normalised = found[1:]
    assert {c.match for c in normalised} == {"normalized"}
    # The other spellings reach the two files not listed yet before any second row of a file,
    # the section more about the name (weight 9) before the README row (weight 2).
    assert [c.file for c in normalised[:2]] == ["guide/rotors.md", "guide/readme.md"]
    assert {c.file for c in normalised[2:]} <= {
        "ref/rotors.md",
        "guide/rotors.md",
        "guide/readme.md",
    }
    assert _confidences_never_rise(found)
    index.close()


def test_written_page_answers_before_generated_on_equal_weight(tmp_path):
    index = _ranked_index(tmp_path)
    found = index.lookup("POST /rest/2.0/rotors/{rotorId}/spin", 10)
    assert [c.file for c in found] == ["guide/rotors.md", "ref/rotors.md", "guide/readme.md"]
    assert all((c.match, c.confidence) == ("exact", 1.0) for c in found)
    # One file per candidate first: the top three cover every page that documents the endpoint.
    assert len({c.file for c in found[:3]}) == 3
    index.close()


def test_section_weight_outranks_where_the_page_came_from(tmp_path):
    index = _ranked_index(tmp_path)
    # The written page only mentions GET /rotors/{rotorId} (weight 1); the generated section is
    # its own (weight 9), so it answers first.
    found = index.lookup("GET /rotors/{rotorId}", 5)
    assert [c.file for c in found][:2] == ["ref/rotors.md", "guide/rotors.md"]
    index.close()


def test_bare_path_reads_first_whatever_the_weights(tmp_path):
    index = _ranked_index(tmp_path)
    found = index.lookup("/rotors/{rotorId}", 5)
    # DELETE weighs 30, but a path without a method means its GET.
    assert found[0].name == "GET /rotors/{rotorId}"
    assert [c.name for c in found].index("DELETE /rotors/{rotorId}") > 0
    index.close()


def test_exact_match_stays_above_a_heavier_normalised_one(tmp_path):
    rows = [
        (_op("spin_rotor", "operation", "guide/rotors.md", 40), 200, False),
        (_op("spinRotor", "operation", "ref/rotors.md", 12), 0, True),
    ]
    index = _ranked_index(tmp_path, rows)
    found = index.lookup("spinRotor", 5)
    assert [(c.file, c.match, c.confidence) for c in found] == [
        ("ref/rotors.md", "exact", 1.0),
        ("guide/rotors.md", "normalized", 0.9),
    ]
    index.close()


def test_a_file_that_documents_a_name_many_times_cannot_fill_the_list(tmp_path):
    rows = [(_op("Overview", "heading", "big.md", n), 0, False) for n in range(1, 60)]
    rows += [(_op("Overview", "heading", f"small-{n}.md", 1), 0, False) for n in range(4)]
    index = _ranked_index(tmp_path, rows)
    found = index.lookup("Overview", 5)
    assert sorted(c.file for c in found) == [
        "big.md",
        "small-0.md",
        "small-1.md",
        "small-2.md",
        "small-3.md",
    ]
    index.close()


def test_table_without_ranking_files_still_answers_in_row_order(tmp_path):
    _ranked_index(tmp_path).close()
    for name in ("weight.npy", "generated.npy"):
        (tmp_path / "identifiers" / name).unlink()
    index = IdentifierIndex.open(tmp_path)
    found = index.lookup("POST /rotors/{rotorId}/spin", 10)
    assert {c.file for c in found} == {"guide/rotors.md", "ref/rotors.md", "guide/readme.md"}
    assert len({c.file for c in found[:3]}) == 3
    index.close()


def test_ranking_arrays_are_plain_uint8_npy(tmp_path):
    np = pytest.importorskip("numpy")
    _ranked_index(tmp_path).close()
    names = (tmp_path / "identifiers" / "names.txt").read_text(encoding="utf-8").split("\n")
    weight = np.load(tmp_path / "identifiers" / "weight.npy", allow_pickle=False)
    generated = np.load(tmp_path / "identifiers" / "generated.npy", allow_pickle=False)
    assert weight.dtype == generated.dtype == np.uint8
    assert weight.shape == generated.shape == (len(names),)
    row = names.index("spinRotor")
    assert (weight[row], generated[row]) == (9, 1)


def test_corrupt_ranking_array_is_a_bundle_error(tmp_path):
    _ranked_index(tmp_path).close()
    (tmp_path / "identifiers" / "weight.npy").write_bytes(b"not an array")
    index = IdentifierIndex.open(tmp_path)
    with pytest.raises(BundleError, match=r"unreadable.*weight\.npy"):
        index.lookup("spinRotor")
    index.close()
