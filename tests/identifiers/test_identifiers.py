"""Build-time extraction of the identifier table from markdown and from source-attached entries."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest

from atlas_core.identifiers.extract.documents import bound, extract, write_identifier_table
from atlas_core.identifiers.lookup.identifier_index import IdentifierIndex
from atlas_core.markdown.chunker import heading_anchors
from atlas_core.recognize.code_context import is_code_occurrence
from atlas_core.types import Document, IdentifierEntry, Param
from benchmarks.synthetic_identifiers import synthetic_entries
from tests.identifiers.documents import FIXTURES, fixture_documents


def _find(entries: list[IdentifierEntry], name: str, kind: str, file: str = "") -> IdentifierEntry:
    hits = [e for e in entries if e.name == name and e.kind == kind and file in e.file]
    assert hits, f"no {kind} {name!r} among {sorted({(e.kind, e.name) for e in entries})}"
    return hits[0]


def _line(rel: str, number: int) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8").split("\n")[number - 1]


def test_every_h1_to_h3_heading_with_line_anchor_url_and_summary(extracted):
    entries, _ = extracted
    for doc in fixture_documents():
        anchors = heading_anchors(doc.text)
        headings = [e for e in entries if e.kind == "heading" and e.file == doc.path]
        lines = doc.text.split("\n")
        expected = [n + 1 for n, line in enumerate(lines) if line.startswith(("# ", "## ", "### "))]
        # Lines inside code fences that start with "#" are not headings; the fixtures have none.
        assert sorted(e.line for e in headings) == expected, doc.path
        for e in headings:
            assert e.name in lines[e.line - 1].replace("**", "")
            assert e.anchor == anchors[e.line]
            assert e.url == f"{doc.url}#{e.anchor}"
    paging = _find(entries, "Paging", "heading")
    assert (paging.line, paging.anchor) == (23, "paging")
    assert paging.summary == "Pages hold at most one thousand items."
    # Repeated headings keep their own line and GitHub's numbered anchor.
    params = [e for e in entries if e.name == "Parameters" and e.kind == "heading"]
    assert [e.anchor for e in params] == ["parameters", "parameters-1", "parameters-2"]


def test_endpoint_mentions_keep_template_and_drop_prefix_and_query(extracted):
    entries, _ = extracted
    read = _find(entries, "GET /assets/{assetId}", "endpoint", "guides/java-client.md")
    assert (read.method, read.path, read.line) == ("GET", "/assets/{assetId}", 7)
    assert "/rest/2.0/assets/{assetId}" in _line("guides/java-client.md", 7)
    assert read.anchor == "reading-an-asset"
    relations = _find(entries, "GET /relations", "endpoint")
    assert relations.line == 8 and "?sourceId" in _line("guides/java-client.md", 8)
    _find(entries, "POST /assets/removalJobs", "endpoint", "rest/widgets-api.md")


def test_client_method_table_gives_endpoint_operation_params_and_schemas(extracted):
    entries, _ = extracted
    ep = _find(entries, "GET /assets", "endpoint", "rest/widgets-api.md")
    op = _find(entries, "find_assets", "operation")
    for e in (ep, op):
        assert (e.method, e.path, e.operation_id) == ("GET", "/assets", "find_assets")
        assert (e.line, e.anchor) == (12, "find_assets")
        assert e.summary == "Search assets by name or domain"
        assert e.response_schema == "AssetPage"
        assert [p.name for p in e.params] == ["name", "limit"]
        assert e.params[0] == Param(
            "name", "query", "str", False, "Text the asset name must contain"
        )
    get = _find(entries, "GET /assets/{assetId}", "endpoint", "rest/widgets-api.md")
    assert get.params == (Param("asset_id", "path", "str", True, "Identifier of the asset"),)
    add = _find(entries, "POST /assets", "endpoint")
    assert add.request_schema == "AddAssetRequest" and add.params[0].location == "body"


def test_java_types_beans_and_builders(extracted):
    entries, _ = extracted
    api = _find(entries, "AssetApi", "type", "guides/java-client.md")
    assert api.line == 11  # the import line, its first mention
    assert _find(entries, "AddAssetRequest", "type").line == 12
    assert _find(entries, "addAsset", "operation").line == 15
    # A page whose H1 names a client class documents that class.
    assert _find(entries, "AssetsApi", "type").file == "rest/widgets-api.md"


def test_import_api_json_keys_and_values(extracted):
    entries, _ = extracted
    keys = {e.name: e for e in entries if e.kind == "json_key"}
    for name in ("resourceType", "identifier", "attributes", "continueOnError", "batchSize"):
        assert name in keys, name
        assert keys[name].file == "import-api/commands.md"
    assert keys["resourceType"].line == 10 and keys["continueOnError"].line == 24
    assert "Asset" in keys  # a resourceType value
    assert all(e.file.startswith("import-api/") for e in keys.values())


def test_cli_commands_from_command_lines_and_shell_blocks(extracted):
    entries, _ = extracted
    cli = {e.name: e.line for e in entries if e.kind == "cli"}
    assert cli == {
        "full-sync": 7,
        "harvest-tool check-config": 11,
        "harvest-tool full-sync": 16,
        "harvest-tool list-sources": 19,
    }


def test_graphql_operations_types_and_fields(extracted):
    entries, _ = extracted
    names = {e.name for e in entries if e.kind == "graphql"}
    assert {"AssetsByDomain", "AssetFilter", "DomainFragment", "assets", "displayName"} <= names


def test_deprecations_from_tables_sentences_and_endpoints(extracted):
    entries, deprecations = extracted
    pairs = {(d.term, d.replacement) for d in deprecations}
    assert {
        ("Term", "Asset"),
        ("Vocabulary", "Domain"),
        ("VocabularyType", "DomainType"),
        ("findAssetsLegacy", "findAssets"),
        ("AssetFinder", "AssetApi"),
        ("DELETE /assets/{assetId}", "POST /assets/removalJobs"),
    } <= pairs
    term = next(d for d in deprecations if d.term == "Term")
    assert (term.file, term.line, term.whole_word) == ("output-module/terms.md", 7, True)
    assert "deprecated" in term.note
    endpoint = next(d for d in deprecations if d.term.startswith("DELETE"))
    assert endpoint.url.endswith("#remove_asset") and not endpoint.whole_word
    # The endpoint entry itself is marked, so hover can show the notice.
    old = _find(entries, "DELETE /assets/{assetId}", "endpoint")
    assert old.deprecated and old.replacement == "POST /assets/removalJobs"
    # A sentence that wraps onto the next line, and an "Old name | Use instead" table.
    wrapped = next(d for d in deprecations if d.term == "listAssetsPaged")
    assert (wrapped.replacement, wrapped.line) == ("findAssets", 29)
    assert next(d for d in deprecations if d.term == "AssetLookup").replacement == "AssetApi"
    # An old/new table in a passage that says nothing about deprecation is not one.
    assert not any(d.term == "1.2" for d in deprecations)
    # Prose that merely mentions deprecation without naming a code term adds nothing.
    assert not any(d.term in ("names", "those") for d in deprecations)


def test_plain_word_deprecations_are_code_only(extracted):
    _, deprecations = extracted
    flags = {d.term: d.code_only for d in deprecations}
    # Term and Vocabulary are English words too; compound names and endpoints never are.
    assert flags["Term"] is True and flags["Vocabulary"] is True
    assert flags["VocabularyType"] is False and flags["findAssetsLegacy"] is False
    assert flags["DELETE /assets/{assetId}"] is False


@pytest.mark.parametrize(
    ("text", "word", "prose_file", "expected"),
    [
        ('{"Term": {"Name": {}}}', "Term", False, True),  # JSON key
        ('resourceType = "Term"', "Term", False, True),  # string literal
        ("Resources:\n  Term:\n    Id: x", "Term", False, True),  # YAML key
        ("  - Term: x", "Term", False, True),  # YAML list item key
        ("Use `Term` no more.", "Term", True, True),  # inline code in markdown
        ("// each Term has a name", "Term", False, False),  # a comment is English
        ('print("Pick a Term")', "Term", False, False),  # prose inside a string
        ("Term: the old name of an asset", "Term", True, False),  # markdown prose
        ("The Term.", "Term", False, False),
    ],
)
def test_code_context_of_an_occurrence(text, word, prose_file, expected):
    start = text.index(word)
    assert is_code_occurrence(text, start, start + len(word), prose_file=prose_file) is expected


def test_code_context_rejects_offsets_outside_the_text():
    assert not is_code_occurrence("abc", 2, 9) and not is_code_occurrence("abc", -1, 1)


def test_source_entries_are_kept_and_their_deprecation_reported():
    spec_entry = IdentifierEntry(
        name="DELETE /widgets/{widgetId}",
        kind="endpoint",
        file="openapi/widgets.md",
        line=3,
        summary="Removes a widget. Please use POST /widgets/removalJobs instead.",
        method="DELETE",
        path="/widgets/{widgetId}",
        operation_id="removeWidget",
        deprecated=True,
    )
    doc = Document(
        path="openapi/widgets.md",
        publication="Widgets",
        title="Widgets",
        url="",
        text="# Widgets\n\nGenerated.\n",
        source="openapi",
        identifiers=(spec_entry,),
    )
    entries, deprecations = extract([doc])
    # An OpenAPI page is not re-scanned as prose; the entry learns the replacement its text names.
    assert entries == [replace(spec_entry, replacement="POST /widgets/removalJobs")]
    assert [(d.term, d.replacement) for d in deprecations] == [
        ("DELETE /widgets/{widgetId}", "POST /widgets/removalJobs")
    ]


def test_summary_is_one_bounded_paragraph():
    long = " ".join(["word"] * 300)
    text = f"# Title\n\n{long}\n\nSecond paragraph.\n"
    doc = Document(path="a.md", publication="p", title="Title", url="", text=text)
    (heading,), _ = extract([doc])
    assert len(heading.summary) <= 402 and heading.summary.endswith("…")
    assert "Second" not in heading.summary
    assert bound("short text") == "short text"


def test_page_without_h1_gets_its_title_as_a_heading():
    doc = Document(
        path="misc/plain.md",
        publication="misc",
        title="Plain page",
        url="https://docs.example.test/plain",
        text="Plain page\n\nConverted pages often lack markdown headings.\n",
    )
    entries, _ = extract([doc])
    assert [(e.name, e.kind, e.line, e.anchor) for e in entries] == [
        ("Plain page", "heading", 1, "")
    ]
    assert entries[0].summary == "Converted pages often lack markdown headings."
    assert entries[0].url == "https://docs.example.test/plain"


def test_write_returns_manifest_section_and_plain_files(tmp_path):
    section = write_identifier_table(fixture_documents(), [], tmp_path)
    assert section["format"] == "atlas-identifiers" and section["version"] == 1
    assert section["count"] == sum(section["kinds"].values())
    assert section["kinds"]["endpoint"] >= 6 and section["kinds"]["cli"] == 4
    assert section["deprecations"] >= 6
    for rel in section["files"]:
        assert (tmp_path / rel).is_file(), rel
    ids = tmp_path / "identifiers"
    names = (ids / "names.txt").read_text(encoding="utf-8").split("\n")
    assert len(names) == section["count"]
    records = (ids / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(records) == section["count"]
    assert all(isinstance(json.loads(line), dict) for line in records)
    # The arrays are ordinary little-endian .npy files, loadable without pickle.
    np = pytest.importorskip("numpy")
    offsets = np.load(ids / "record_offsets.npy", allow_pickle=False)
    assert offsets.dtype == np.dtype("<i8") and offsets.shape == (section["count"] + 1,)
    assert offsets[-1] == (ids / "records.jsonl").stat().st_size
    kinds = np.load(ids / "kind.npy", allow_pickle=False)
    assert kinds.dtype == np.uint8 and list(kinds) == sorted(kinds)  # kind-major rows
    for family in ("search", "alias", "path", "template", "initials"):
        keys = (ids / f"keys_{family}.txt").read_text(encoding="utf-8").split("\n")
        rows = np.load(ids / f"rows_{family}.npy", allow_pickle=False)
        assert rows.dtype == np.dtype("<i4") and len(rows) == len(keys)
        assert keys == sorted(keys), family


def test_synthetic_entries_cover_every_kind_and_round_trip(tmp_path):
    entries = synthetic_entries(4000, seed=7)
    assert synthetic_entries(4000, seed=7) == entries
    assert {e.kind for e in entries} == {
        "endpoint",
        "operation",
        "schema",
        "type",
        "json_key",
        "cli",
        "graphql",
        "heading",
    }
    from atlas_core.identifiers.extract.documents import write_table

    section = write_table(entries, [], tmp_path)
    assert section["count"] == len({(e.kind, e.name, e.file) for e in entries})
    index = IdentifierIndex.open(tmp_path)
    sample = entries[1234]
    top = index.lookup(sample.name, 1)[0]
    assert (top.name, top.confidence) == (sample.name, 1.0)
    index.close()


@pytest.mark.shared
def test_real_docs_give_operations_endpoints_types_and_deprecations(shared_dir, tmp_path):
    from atlas_core.sources.mirror import load_mirror

    started = time.perf_counter()
    documents, _ = load_mirror(shared_dir / "collibra-docs", clean_gitbook=True)
    try:
        from atlas_core.sources import load_sources

        spec = load_sources([f"openapi={shared_dir / 'collibra-openapi' / 'dgc-rest.json'}"])
        documents += spec.documents
    except ImportError:
        pass  # the OpenAPI loader has not landed; the markdown alone must still answer
    section = write_identifier_table(documents, [], tmp_path)
    seconds = time.perf_counter() - started
    print(f"\nshared docs: {json.dumps(section['kinds'])} deprecations={section['deprecations']}")
    print(f"shared docs: {len(documents)} documents extracted and written in {seconds:.1f}s")
    index = IdentifierIndex.open(tmp_path)
    for spelling in ("findAssets", "find_assets", "assetsApi.findAssets"):
        found = index.lookup(spelling, 5)
        assert found[0].path == "/assets" and found[0].method == "GET", (spelling, found[0])
        assert found[0].confidence >= 0.9
        # Both the Python-client page and, once loaded, the OpenAPI reference page answer.
        assert "rest-core/assets-api.md" in {c.file for c in found}
    top = index.lookup("GET /assets/{assetId}", 1)[0]
    assert (top.name, top.confidence) == ("GET /assets/{assetId}", 1.0)
    top = index.lookup("/rest/2.0/assets/3f2504e0-4f89-11d3-9a0c-0305e82c3301", 1)[0]
    assert top.name == "GET /assets/{assetId}"
    for type_name, kind in (("AssetsApi", "type"), ("AddAssetRequest", "schema")):
        top = index.lookup(type_name, 1)[0]
        assert (top.name, top.kind) == (type_name, kind)
    assert index.lookup("continueOnError", 1)[0].kind == "json_key"
    pairs = {(d.term, d.replacement) for d in index.deprecations()}
    assert {("Term", "Asset"), ("Vocabulary", "Domain")} <= pairs
    assert section["kinds"]["heading"] > 300 and section["kinds"]["endpoint"] > 100
    # The Output Module page that defines TableViewConfig answers before the client reference
    # that names it in passing; the GraphQL endpoint URL resolves exactly.
    assert index.lookup("TableViewConfig", 1)[0].file.startswith("output-module/")
    graph = index.lookup("/graphql/knowledgeGraph/v1", 1)[0]
    assert (graph.kind, graph.confidence, graph.file) == (
        "endpoint",
        1.0,
        "graphql/knowledge-graph-api.md",
    )
    # An operation written in plain prose (workflow tutorial) has an entry of its own.
    assert index.lookup("getEventResourceId", 1)[0].kind == "operation"
    index.close()


@pytest.mark.timeout(30)
def test_pathological_table_cells_do_not_stall_extraction():
    # A cell of one lowercase letter and many capitals used to be an exponential regex match.
    row = "| a" + "B" * 60 + "! | GET /widgets | x |"
    doc = Document(path="t.md", publication="p", title="T", url="", text=f"# T\n\n{row}\n")
    entries, _ = extract([doc])
    assert "GET /widgets" in {e.name for e in entries}


def test_operation_tables_link_operations_to_their_endpoints(extracted):
    entries, _ = extracted
    page = "rest/gadgets-reference.md"
    for op, method, path, line, summary in (
        ("findGadgets", "GET", "/gadgets", 9, "Search gadgets by label"),
        ("addGadget", "POST", "/gadgets", 10, "Create one gadget"),
        ("remove_gadget", "DELETE", "/gadgets/{gadgetId}", 11, "Delete one gadget"),
        # A client README row led by its class column.
        ("list_gadget_labels", "GET", "/gadgets/labels", 15, "List gadget labels"),
    ):
        for e in (
            _find(entries, op, "operation", page),
            _find(entries, f"{method} {path}", "endpoint", page),
        ):
            assert (e.method, e.path, e.operation_id, e.line) == (method, path, op, line)
            assert e.summary == summary
            assert e.anchor == "operations" and e.url.endswith("/gadgets-reference#operations")


def test_operation_names_in_plain_prose_and_what_is_not_one(extracted):
    entries, _ = extracted
    page = "rest/gadgets-reference.md"
    found = _find(entries, "getEventGadgetId", "operation", page)
    assert (found.line, found.anchor, found.method) == (19, "events", "")
    assert _find(entries, "startGadgetRefresh", "operation", page).line == 20
    names = {e.name for e in entries if e.kind == "operation"}
    # Plain words, path segments, URLs and quoted settings keys are not operations.
    assert not names & {"get", "update", "startJobs", "getThings", "deleteStaleGadgets"}
    # A prose mention of an operation documented elsewhere adds no second entry ...
    guide = {e.name for e in entries if e.kind == "operation" and e.file == "guides/java-client.md"}
    assert "findAssets" not in guide
    # ... one that nothing documents does, and carries its deprecation.
    legacy = _find(entries, "findAssetsLegacy", "operation", "guides/java-client.md")
    assert legacy.deprecated and legacy.replacement == "findAssets"


def test_query_strings_and_urls_are_not_import_keys(extracted):
    entries, _ = extracted
    keys = {
        e.name for e in entries if e.kind == "json_key" and e.file == "import-api/sync-options.md"
    }
    assert keys == {"dropMissingGadgets"}
    assert not [e for e in entries if e.name in ("tagLabels", "labelFilter")]


def test_best_documented_section_ranks_first_among_equal_names(extracted):
    entries, _ = extracted
    grid = [e for e in entries if e.name == "GridLayoutConfig"]
    # Named in passing by a client reference (alphabetically first), defined and shown by a page
    # that has no code fences: the defining page comes first.
    assert [(e.kind, e.file) for e in grid] == [
        ("type", "output-module/grid-layouts.md"),
        ("type", "api/reporting-client.md"),
    ]
    assert grid[0].line == 3 and grid[1].line == 10


def test_graphql_endpoint_urls_are_endpoints(extracted):
    entries, _ = extracted
    graph = _find(entries, "POST /graphql/gadgetGraph/v2", "endpoint", "graphql/endpoint.md")
    assert (graph.method, graph.path, graph.line) == ("POST", "/graphql/gadgetGraph/v2", 3)


def test_rank_weights_compare_generated_sections_with_written_ones():
    from atlas_core.identifiers.extract.documents import extract_ranked

    fields = {"method": "POST", "path": "/rotors/{rotorId}/spin", "operation_id": "spinRotor"}
    spec_text = (
        "# Rotors\n\n## Spin a rotor\n\n`POST /rotors/{rotorId}/spin` · operationId `spinRotor`\n"
    )
    generated = Document(
        path="ref/rotors.md",
        publication="Rotor API",
        title="Rotors",
        url="",
        text=spec_text,
        source="openapi",
        identifiers=(
            IdentifierEntry("spinRotor", "operation", "ref/rotors.md", 3, **fields),
            IdentifierEntry(
                "POST /rotors/{rotorId}/spin", "endpoint", "ref/rotors.md", 3, **fields
            ),
        ),
    )
    guide_text = (
        "# Rotor guide\n\n## Spinning\n\nTurn one rotor:\n\n"
        "| Operation | Endpoint | What |\n|---|---|---|\n"
        "| `spinRotor` | `POST /rotors/{rotorId}/spin` | Spin a rotor |\n\n"
        "## spinRotor\n\nCall `spinRotor` when the rotor is idle; `spinRotor` answers at once.\n"
    )
    guide = Document("guide/rotors.md", "guide", "Rotor guide", "", guide_text, source="local")
    found, _ = extract_ranked([generated, guide])
    rank = {(f.entry.kind, f.entry.file): (f.weight, f.generated) for f in found}
    # The generated section is the operation's own (headed by its summary): heading weight 8 plus
    # the one mention of its id.
    assert rank[("operation", "ref/rotors.md")] == (9, True)
    # An endpoint weighs what its operation id weighs in its section, on either kind of page.
    assert rank[("endpoint", "ref/rotors.md")] == (9, True)
    assert rank[("endpoint", "guide/rotors.md")] == rank[("operation", "guide/rotors.md")]
    assert rank[("operation", "guide/rotors.md")][1] is False
    # Entries of one name come heaviest first: the guide's table row only lists the operation.
    assert rank[("operation", "guide/rotors.md")][0] < 9
    ops = [f.entry.file for f in found if f.entry.kind == "operation"]
    assert ops == ["ref/rotors.md", "guide/rotors.md"]
