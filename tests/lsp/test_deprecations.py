"""The deprecation matcher behind diagnostics and hover notices, on text written for the test."""

from __future__ import annotations

from pathlib import Path

from atlas_core.engine import DeprecationMatcher, Engine, find_terms
from atlas_core.engine.deprecations import DeprecatedTerms, path_pattern, quick_fix_text
from atlas_core.types import Deprecation
from atlas_ls.lsp.diagnostics import diagnostics_for
from atlas_ls.lsp.documents import Snapshot, split_lines


def dep(term: str, replacement: str = "", whole_word: bool = True) -> Deprecation:
    return Deprecation(
        term, replacement, "doc.md", 3, "https://docs.example.invalid/doc#x", "", whole_word
    )


MATCHER = DeprecationMatcher(
    [
        dep("Term", "Asset"),
        dep("getVocabulary", "getDomain"),
        dep("GET /rest/1.0/vocabulary/{vocabularyId}", "GET /rest/2.0/domains/{domainId}", False),
        dep("GET /domains/{domainId}/vocabulary", "getDomain", False),
        dep("Business Glossary", "", False),
        dep("", "ignored"),
    ]
)


def found(text: str) -> list[tuple[str, str]]:
    return [(f.text, f.fix) for f in MATCHER.find(text)]


def test_words_are_whole_and_case_sensitive() -> None:
    assert found("Term Terms term myTerm Term_x Term.") == [("Term", "Asset"), ("Term", "Asset")]
    assert found("api.getVocabulary(x)") == [("getVocabulary", "getDomain")]


def test_endpoints_match_any_parameter_spelling_and_concatenation() -> None:
    assert found('get("/rest/1.0/vocabulary/" + vid)') == [("/rest/1.0/vocabulary/", "")]
    assert found("GET /rest/1.0/vocabulary/{vocabularyId}") == [
        ("GET /rest/1.0/vocabulary/{vocabularyId}", "GET /rest/2.0/domains/{domainId}")
    ]
    assert found('"/rest/1.0/vocabulary/{vocabularyId}"') == [
        ("/rest/1.0/vocabulary/{vocabularyId}", "/rest/2.0/domains/{domainId}")
    ]
    assert found('f"{b}/rest/2.0/domains/{d}/vocabulary"') == [("/domains/{d}/vocabulary", "")]
    # Other paths that share a prefix are left alone.
    assert found('"/domains/{d}/vocabularyItems"') == []
    assert found('"/rest/1.0/vocabularies"') == []


def test_phrases() -> None:
    assert found("the Business Glossary page") == [("Business Glossary", "")]


def test_quick_fix_text_only_for_names() -> None:
    assert quick_fix_text(dep("Term", "Asset"), "Term") == "Asset"
    assert quick_fix_text(dep("Term", "the Asset resource type"), "Term") == ""
    assert quick_fix_text(dep("getVocabulary", "/rest/2.0/domains"), "getVocabulary") == ""
    endpoint = dep("GET /rest/1.0/x/{id}", "GET /rest/2.0/y/{id}", False)
    assert quick_fix_text(endpoint, "/rest/1.0/x/{id}") == "/rest/2.0/y/{id}"
    assert quick_fix_text(endpoint, "/rest/1.0/x/") == ""


def test_path_pattern() -> None:
    # A parameter is bounded, so a match has a greatest length the windowed scan relies on.
    assert path_pattern("/a/b/{id}") == "/a/b(?:/[^/\\s\\\"'`?#]{1,256})?/?"
    assert path_pattern("/a/{id}/c") == "/a/[^/\\s\\\"'`?#]{1,256}/c"


def test_lookup_by_name_for_hover() -> None:
    assert MATCHER.deprecation_of("nothing", "getVocabulary") is not None
    assert MATCHER.deprecation_of("GET /domains/{domainId}/vocabulary") is not None
    assert MATCHER.deprecation_of("findAssets") is None


def test_diagnostics_positions_use_the_client_encoding() -> None:
    text = "x = 'é😀' + Term\nTerm\n"
    snap = Snapshot("file:///t.txt", text, split_lines(text), "plaintext", 1)
    utf16 = diagnostics_for(snap, MATCHER, "utf-16")
    utf8 = diagnostics_for(snap, MATCHER, "utf-8")
    utf32 = diagnostics_for(snap, MATCHER, "utf-32")
    assert [d.range.start.character for d in utf32] == [11, 0]
    assert [d.range.start.character for d in utf16] == [12, 0]
    assert [d.range.start.character for d in utf8] == [15, 0]
    assert utf16[0].data == {"term": "Term", "replacement": "Asset", "fix": "Asset"}


def test_result_is_bounded() -> None:
    findings = MATCHER.find("Term " * 10_000)
    assert len(findings) == 500
    assert not DeprecationMatcher([])


def test_plain_english_terms_warn_only_where_they_are_code() -> None:
    english = Deprecation("Source", "Asset", "doc.md", 3, code_only=True)
    matcher = DeprecationMatcher([english])

    def terms(text: str, prose: bool = False) -> list[int]:
        return [f.start for f in matcher.find(text, prose_file=prose)]

    code = '# the Source of truth\nq = {"Source": {"id": 1}}\nname = "Source"\nSource: x\n'
    assert terms(code) == [
        code.index('"Source"') + 1,
        code.rindex('"Source"') + 1,
        code.rindex("Source:"),
    ]
    prose = "Source: a sentence about the Source.\nUse `Source` in the query.\n"
    assert terms(prose, prose=True) == [prose.index("`Source`") + 1]

    snapshot = Snapshot("file:///q.md", prose, split_lines(prose), "markdown", 1)
    assert len(diagnostics_for(snapshot, matcher, "utf-16")) == 1


def test_hover_lookup_agrees_with_the_matcher_without_building_it(hash_bundle: Path) -> None:
    """A hover asks for one name's deprecation before diagnostics have built the matcher: it
    gets the matcher's answer, without the API model that building the matcher needs."""
    with Engine.open(hash_bundle) as engine:
        deprecations = engine.deprecations()
        assert deprecations
        names = {d.term.strip() for d in deprecations} | {"findAssets", "getDomain", "nothing"}
        names |= {e.name for e in engine.lookup("getVocabulary")}
        lazy = DeprecatedTerms(engine)
        assert engine.deprecation_of("findAssets", "nothing") is None
        assert engine._api is None  # no deprecation named: nothing judged
        matcher = DeprecatedTerms(engine).matcher()
        answers = {name: lazy.deprecation_of(name) for name in sorted(names)}
        assert lazy._matcher is None
        assert answers == {name: matcher.deprecation_of(name) for name in sorted(names)}
        assert any(answers.values())  # some terms are the matcher's, not the API checks'


SBVR = DeprecationMatcher(
    [
        Deprecation("ConceptType", "", "doc.md", 3),
        Deprecation("Term", "Asset", "doc.md", 3, code_only=True),
    ]
)


def test_code_names_a_deprecated_word_only_as_an_api_name() -> None:
    """A word the docs deprecate for the API (SBVR's ``ConceptType``) is the code's own
    business in an unrelated mapping or string; it counts in a call's keys, values and body, and
    imported from a Collibra package."""
    text = (
        "import requests\n"
        "from collibra_core.models import ConceptType\n"
        "KINDS = {'sbvr': 'ConceptType', 'Term': 'Business Term'}\n"
        "title = 'ConceptType'\n"
        'view = {"Resources": {"Term": {"name": "x"}}}\n'
        'requests.post("https://h.collibra.com/rest/2.0/outputModule/export/json", json=view)\n'
        'requests.get("https://h.collibra.com/rest/2.0/assets", params={"k": "ConceptType"})\n'
    )
    found = [(f.text, text.count("\n", 0, f.start)) for f in find_terms(SBVR, text, "python")]
    assert found == [("ConceptType", 1), ("Term", 4), ("ConceptType", 6)]
    # A data file names the API's words as keys and type names (a view config, an import
    # body), not as the values of a mapping to another vocabulary or a column's name.
    data = '{"Resources": {"Term": {}}, "resourceType": "ConceptType"}'
    assert [f.text for f in find_terms(SBVR, data, "json")] == ["Term", "ConceptType"]
    mapping = '[{"name": "Glossary", "sbvr": "ConceptType"}, {"name": "Term", "mode": "x"}]'
    assert find_terms(SBVR, mapping, "json") == []
    assert [f.text for f in find_terms(SBVR, "Term:\n  - ConceptType\n", "yaml")] == ["Term"]
