"""The identifier-aware tokenizer and the query-side inflection expansion."""

from __future__ import annotations

import pytest

from atlas_core.search.tokenize import expand_query, joined_terms, query_terms, tokenize, variants


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("findAssets", ["findassets", "find", "assets"]),
        ("find_assets", ["findassets", "find", "assets"]),
        ("find-assets", ["findassets", "find", "assets"]),
        ("FIND_ASSETS", ["findassets", "find", "assets"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("TableViewConfig", ["tableviewconfig", "table", "view", "config"]),
        ("resourceType", ["resourcetype", "resource", "type"]),
    ],
)
def test_identifier_spellings_share_tokens(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_path_segments_parameters_and_version() -> None:
    tokens = tokenize("GET /rest/2.0/assets/{assetId}")
    assert tokens == ["get", "rest", "2.0", "assets", "{assetid}", "assetid", "asset", "id"]


def test_dotted_java_name_keeps_class_whole() -> None:
    tokens = tokenize("com.collibra.dgc.core.api.AssetApi")
    assert "assetapi" in tokens and "asset" in tokens and "collibra" in tokens


def test_numbers_survive_and_stopwords_drop_only_function_words() -> None:
    assert tokenize("How do I get the first 42 assets?") == ["get", "first", "42", "assets"]
    # words an API could name are not stopwords
    assert {"type", "id", "name", "all", "set"} <= set(tokenize("type id name all set"))


def test_regex_and_control_characters_are_just_text() -> None:
    assert tokenize("a.*b[(\x00\x1b]+ (?P<x>) ^$") == []
    assert tokenize("\x00assets\x07") == ["assets"]


def test_overlong_tokens_are_dropped() -> None:
    assert tokenize("x" * 200) == []


def test_query_terms_are_distinct() -> None:
    assert query_terms("asset asset Asset") == ["asset"]


def test_variants_cover_plural_and_verb_forms() -> None:
    assert {"assets"} <= variants("asset")
    assert {"asset"} <= variants("assets")
    assert {"creating", "created", "creates"} <= variants("create")
    assert "create" in variants("creating") and "create" in variants("created")
    assert "policy" in variants("policies") and "policies" in variants("policy")
    assert variants("id") == set()
    assert variants("2.0") == set()


def test_expand_query_keeps_only_vocabulary_forms_with_lower_weight() -> None:
    vocab = {"asset", "assets", "creating", "community"}
    expanded = dict(expand_query(["create", "asset"], vocab, variant_weight=0.4))
    assert expanded == {"create": 1.0, "asset": 1.0, "creating": 0.4, "assets": 0.4}


def test_the_corpus_is_not_stemmed() -> None:
    assert tokenize("creating assets") == ["creating", "assets"]


def test_joined_terms_spell_compounds_the_vocabulary_holds() -> None:
    vocab = {"findassets", "sendnotification", "continueonerror", "outputmodule"}
    assert joined_terms("find assets", vocab) == ["findassets"]
    # an inflected last word; function words left out of the compound or kept in it
    assert joined_terms("how do I find an asset", vocab) == ["findassets"]
    assert joined_terms("send a notification", vocab) == ["sendnotification"]
    assert joined_terms("continue on error", vocab) == ["continueonerror"]
    assert joined_terms("Output Module filtering", vocab) == ["outputmodule"]
    # words the vocabulary does not hold as one are left alone
    assert joined_terms("find domains", vocab) == []


def test_joined_terms_never_join_across_a_compound_or_a_letter() -> None:
    vocab = {"assetsfind", "getassets", "columns", "idfind"}
    # the pieces of a compound are not words of the query
    assert joined_terms("getAssets find", vocab) == []
    assert joined_terms("asset_id find", vocab) == []
    # the s of "column's" is no word
    assert joined_terms("the column's data", vocab) == []
    # two things joined by a conjunction are not one name
    assert joined_terms("a user and a group", {"usergroup"}) == []
