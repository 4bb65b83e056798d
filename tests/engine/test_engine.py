"""The Engine facade: each mode, filters, diversification, several bundles, bad input, laziness."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from atlas_core.engine import (
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    Engine,
    SearchSettings,
    looks_like_identifier,
    make_snippet,
)
from atlas_core.errors import BundleError, QueryError
from atlas_core.types import SearchFilters
from tests.search_fixtures import build_search_bundle

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def engine(tiny: Path) -> Engine:
    with Engine.open(tiny) as opened:
        yield opened


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_each_mode_finds_the_right_page(engine: Engine, mode: str) -> None:
    hits = engine.search("bearer token authentication", mode=mode, top_k=5)
    assert hits[0].file == "guides/authentication.md"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(hits[i].score >= hits[i + 1].score for i in range(len(hits) - 1))
    first = hits[0]
    assert first.publication == "guides" and first.title == "Authentication"
    assert first.url.startswith("https://docs.acme.invalid/guides/authentication#")
    assert first.line_start >= 1 and first.line_end >= first.line_start
    assert first.snippet and len(first.snippet) <= 330 and first.bundle == ""


@pytest.mark.parametrize("query", ["findWidgets", "find_widgets", "find-widgets"])
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_identifier_spellings_reach_the_api_page(engine: Engine, query: str, mode: str) -> None:
    hit = engine.search(query, mode=mode, top_k=3)[0]
    assert (hit.file, hit.heading) == ("rest-core/widgets-api.md", "Widgets API > Find widgets")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("findAssets", True),
        ("find_assets", True),
        ("GET /rest/2.0/assets/{assetId}", True),
        ("AssetApi.findAssets", True),
        ("TableViewConfig", True),
        ("how do I add an asset", False),
        ("assets", False),
        ("create asset", False),
    ],
)
def test_identifier_shaped_queries(query: str, expected: bool) -> None:
    assert looks_like_identifier(query) is expected


def test_identifier_queries_lean_on_keywords(tiny: Path) -> None:
    # with the keyword list ignored, only the identifier weight can bring keyword ranking back;
    # no file penalty, which scales raw BM25 in keyword mode but fused scores in [0, 1] in hybrid
    settings = SearchSettings(vector_weight=1.0, identifier_vector_weight=0.0, file_penalty=1.0)
    with Engine.open(tiny, settings=settings) as engine:
        keyword = [h.chunk_id for h in engine.search("findWidgets", mode="keyword", top_k=3)]
        assert [h.chunk_id for h in engine.search("findWidgets", top_k=3)] == keyword
        vector = [h.chunk_id for h in engine.search("widgets listing", mode="vector", top_k=3)]
        assert [h.chunk_id for h in engine.search("widgets listing", top_k=3)] == vector


def test_query_side_inflection(engine: Engine) -> None:
    hit = engine.search("create domains", mode="keyword", top_k=1)[0]
    assert hit.heading == "Domains API > Create a domain"


def test_filters(engine: Engine) -> None:
    hits = engine.search(
        "widget", mode="hybrid", top_k=20, filters=SearchFilters(publication="guides")
    )
    assert hits and {h.publication for h in hits} == {"guides"}
    hits = engine.search("widget", top_k=20, filters=SearchFilters(section="rest-core/domains"))
    assert hits and {h.file for h in hits} == {"rest-core/domains-api.md"}
    hits = engine.search("session", top_k=20, filters=SearchFilters(code_only=True))
    assert [h.heading for h in hits] == ["Authentication > Token example"]
    assert all(h.is_code for h in hits)
    hits = engine.search("widget", mode="keyword", top_k=20, filters=SearchFilters(min_score=3.0))
    assert hits and all(h.score >= 3.0 for h in hits)
    assert engine.search("widget", filters=SearchFilters(publication="nowhere")) == []


def test_results_are_file_diverse(engine: Engine) -> None:
    hits = engine.search("widget domain community", mode="hybrid", top_k=10)
    sections = [(h.file, h.heading) for h in hits]
    assert len(sections) == len(set(sections))
    assert len({h.file for h in hits[:3]}) >= 2


def test_penalty_setting_changes_order(tiny: Path) -> None:
    query = "widgets"
    with Engine.open(tiny, settings=SearchSettings(file_penalty=1.0)) as flat:
        no_penalty = [h.file for h in flat.search(query, mode="keyword", top_k=4)]
    with Engine.open(tiny, settings=SearchSettings(file_penalty=0.3)) as strict:
        penalised = [h.file for h in strict.search(query, mode="keyword", top_k=4)]
    assert set(no_penalty) == {"rest-core/widgets-api.md"}
    assert len(set(penalised)) >= 3


def test_default_penalty_keeps_one_page_from_filling_the_top(engine: Engine) -> None:
    # The widgets page has four sections that all say "widgets"; a user scanning the first three
    # results should see another page too (held-out Recall@5 counts pages, docs/evaluation.md).
    hits = engine.search("widgets", mode="hybrid", top_k=5)
    assert hits[0].file == "rest-core/widgets-api.md"
    assert len({h.file for h in hits[:3]}) >= 2


@pytest.mark.parametrize("query", ["", "   \t\n", "\x00\x01\x1b"])
def test_empty_queries_are_query_errors(engine: Engine, query: str) -> None:
    with pytest.raises(QueryError, match="empty query"):
        engine.search(query)


def test_huge_control_and_regex_queries_get_bounded_answers(engine: Engine) -> None:
    huge = "widgets " * 13_000  # ~100 KB
    assert len(huge) > 100_000
    hits = engine.search(huge, top_k=3)
    assert hits and hits[0].file == "rest-core/widgets-api.md"
    assert engine.search("wid\x00gets\x07 domain\x1b[31m", top_k=2)
    for pattern in ["a.*b[(", "(?P<x>", "^$|\\", "**", "{assetId}"]:
        assert isinstance(engine.search(pattern, mode="keyword"), list)
        assert isinstance(engine.search(pattern, mode="hybrid"), list)
    assert MAX_QUERY_CHARS <= 1000


def test_mode_and_top_k_checks(engine: Engine) -> None:
    with pytest.raises(QueryError, match="unknown search mode 'fuzzy'"):
        engine.search("widget", mode="fuzzy")
    with pytest.raises(QueryError, match="at least 1"):
        engine.search("widget", top_k=0)
    with pytest.raises(QueryError, match="whole number"):
        engine.search("widget", top_k="5")  # type: ignore[arg-type]
    hits = engine.search("widget domain community token", mode="vector", top_k=1_000_000)
    assert 1 < len(hits) <= MAX_TOP_K
    assert len(engine.search("widget", top_k=1)) == 1


def test_lookup_symbols_endpoints_chunk_info(engine: Engine, tiny: Path) -> None:
    candidates = engine.lookup("GET /rest/2.0/widgets/{widgetId}")
    assert candidates[0].file == "rest-core/widgets-api.md"
    assert candidates[0].confidence == pytest.approx(1.0)
    assert (
        engine.lookup("/widgets/00000000-0000-0000-0000-000000000001")[0].path
        == "/widgets/{widgetId}"
    )
    with pytest.raises(QueryError):
        engine.lookup("  ")
    symbols = engine.symbols("widg", limit=5)
    assert 0 < len(symbols) <= 5 and all(s.file for s in symbols)
    assert all(c.path.startswith("/widgets") for c in engine.endpoints("/widgets"))
    assert isinstance(engine.deprecations(), list)

    hit = engine.search("cookie expires", top_k=1)[0]
    chunk = engine.chunk(hit.chunk_id)
    assert chunk is not None and chunk.heading == hit.heading and "thirty minutes" in chunk.text
    assert engine.chunk("nope") is None

    info = engine.info()
    assert info.name == "tiny" and info.chunks > 10 and info.dims == 384
    assert info.extra["keyword"]["format"] == "bm25f-csr-1"
    assert engine.mirror_path("", hit.file) == tiny / "mirror" / hit.file
    assert engine.mirror_path("", hit.file).is_file()
    assert [b.path for b in engine.bundles] == [tiny]


def test_several_bundles_are_merged_and_tagged(tmp_path: Path, tiny: Path) -> None:
    other = build_search_bundle(tmp_path / "team", name="team")
    with Engine.open([tiny, other]) as engine:
        hits = engine.search("bearer token", top_k=4)
        assert {h.bundle for h in hits} == {"tiny", "team"}
        assert hits[0].file == hits[1].file == "guides/authentication.md"
        candidates = engine.lookup("GET /widgets/{widgetId}")
        assert {c.bundle for c in candidates[:2]} == {"tiny", "team"}
        assert [b["name"] for b in engine.info().extra["bundles"]] == ["tiny", "team"]
    with Engine.open([tiny, tiny]) as twice:
        assert {h.bundle for h in twice.search("widget", top_k=6)} == {"tiny", "tiny-2"}


def test_open_errors(tmp_path: Path) -> None:
    with pytest.raises(BundleError):
        Engine.open(tmp_path / "missing")
    with pytest.raises(BundleError):
        Engine.open([])


def test_tag_boost_lifts_tagged_chunks(tiny: Path) -> None:
    query = "security session cookie widgets"
    with Engine.open(tiny, settings=SearchSettings(tag_boost=5.0)) as boosted:
        assert boosted.search(query, mode="keyword", top_k=1)[0].file == "guides/authentication.md"


def test_snippet_is_bounded_and_starts_near_the_match() -> None:
    text = "## Heading\n" + "filler " * 100 + "the special word appears here " + "tail " * 100
    snippet = make_snippet(text, ["special"], limit=120)
    assert "special" in snippet and len(snippet) <= 122 and snippet.startswith("…")
    assert make_snippet("# Title\nshort text", []) == "short text"


def test_fixture_corpus_bundle(hash_bundle: Path) -> None:
    with Engine.open(hash_bundle) as engine:
        for query in ("findAssets", "find_assets", "AssetApi.findAssets"):
            assert engine.search(query, top_k=3)[0].file == "rest-core/assets-api.md"
        assert "rest-core/assets-api.md" in {c.file for c in engine.lookup("findAssets")}


LAZY_CHECK = """
import json, sys
from atlas_core.engine import Engine
engine = Engine.open(sys.argv[1])
engine.lookup("GET /widgets/{widgetId}")
engine.symbols("widg", 5)
engine.deprecations()
after_lookup = sorted(sys.modules)
engine.search("widgets", mode="keyword")
after_keyword = sorted(sys.modules)
engine.search("widgets", mode="vector")
print(json.dumps({"lookup": after_lookup, "keyword": after_keyword, "vector": sorted(sys.modules)}))
"""


def test_lookup_path_stays_light(tiny: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", LAZY_CHECK, str(tiny)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    loaded = json.loads(out.stdout)
    heavy = ("onnxruntime", "scipy", "atlas_core.embed", "tokenizers", "pandas", "mlx", "torch")
    for stage in ("lookup", "keyword"):
        assert not [m for m in loaded[stage] if m.split(".")[0] in heavy or m == "atlas_core.embed"]
    assert (
        "atlas_core.search.keyword" not in loaded["lookup"]
        and "atlas_core.search.dense" not in loaded["lookup"]
    )
    assert (
        "atlas_core.search.keyword" in loaded["keyword"]
        and "atlas_core.search.dense" not in loaded["keyword"]
    )
    # the vector query is what loads the embedding stack (hash model: no onnxruntime even then)
    assert "atlas_core.embed" in loaded["vector"] and "atlas_core.search.dense" in loaded["vector"]


def test_vector_search_prepared_in_the_background_answers_as_a_lazy_one(tiny: Path) -> None:
    with Engine.open(tiny) as lazy, Engine.open(tiny) as prepared:
        prepared.prepare_vector_search()
        for query in ("asset", "create a community", "findAssets"):
            for mode in ("vector", "hybrid"):
                assert [h.chunk_id for h in prepared.search(query, mode=mode)] == [
                    h.chunk_id for h in lazy.search(query, mode=mode)
                ]
        assert prepared._parts[0].dense().ready


def test_search_without_snippets_finds_the_same_hits(tiny: Path) -> None:
    with Engine.open(tiny) as engine:
        for mode in ("keyword", "hybrid"):
            full = engine.search("create a community", mode=mode)
            bare = engine.search("create a community", mode=mode, snippets=False)
            assert [(h.chunk_id, h.score) for h in bare] == [(h.chunk_id, h.score) for h in full]
            assert all(h.snippet for h in full) and not any(h.snippet for h in bare)
