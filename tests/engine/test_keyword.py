"""Fielded BM25 written as plain CSR arrays and queried with numpy only."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from atlas_core.errors import BundleError
from atlas_core.search.keyword import (
    FILES,
    JOIN_WEIGHT,
    KeywordIndex,
    build_matrix,
    check_section,
    top_k,
    write_keyword_index,
)
from atlas_core.types import Chunk


def make_chunk(i: int, file: str, title: str, heading: str, text: str, **kw: object) -> Chunk:
    return Chunk(
        chunk_id=f"c{i}",
        file=file,
        publication=file.split("/")[0],
        title=title,
        heading=heading,
        anchor="",
        url="",
        line_start=1,
        line_end=2,
        text=text,
        **kw,  # type: ignore[arg-type]
    )


CHUNKS = [
    make_chunk(
        0,
        "rest/assets-api.md",
        "Assets API",
        "Assets API > Find assets",
        "Use find_assets with a name filter to list matching assets.",
    ),
    make_chunk(
        1,
        "rest/domains-api.md",
        "Domains API",
        "Domains API > Create a domain",
        "Creating a domain needs a community identifier.",
    ),
    make_chunk(
        2,
        "guides/intro.md",
        "Introduction",
        "Introduction",
        "This guide explains the platform. It mentions assets once.",
    ),
    make_chunk(
        3,
        "guides/glossary.md",
        "Glossary",
        "Glossary > Terms",
        "A glossary groups business terms. Terms are assets of a kind.",
    ),
]


@pytest.fixture()
def index(tmp_path: Path) -> KeywordIndex:
    write_keyword_index(CHUNKS, tmp_path)
    return KeywordIndex.from_dir(tmp_path, len(CHUNKS))


def test_writer_layout_and_manifest_section(tmp_path: Path) -> None:
    section = write_keyword_index(CHUNKS, tmp_path)
    assert section["files"] == [f"keyword/{name}" for name in FILES]
    assert section["k1"] == 0.9 and section["b"] == 0.3
    assert section["field_weights"] == {"text": 1.0, "title": 3.0, "heading": 2.0, "path": 2.5}
    indptr = np.load(tmp_path / "keyword/indptr.npy", allow_pickle=False)
    indices = np.load(tmp_path / "keyword/indices.npy", allow_pickle=False)
    data = np.load(tmp_path / "keyword/data.npy", allow_pickle=False)
    assert indptr.dtype == np.dtype("<i8") and indices.dtype == np.dtype("<i4")
    assert data.dtype == np.dtype("<f4")
    vocab = (tmp_path / "keyword/vocab.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert vocab == sorted(vocab) and len(vocab) == section["n_terms"] == indptr.size - 1
    assert indptr[-1] == indices.size == data.size == section["nnz"]
    # rewriting replaces the folder, leaving no staging directories behind
    write_keyword_index(CHUNKS[:2], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keyword"]


def test_single_field_value_matches_bm25_formula() -> None:
    chunk = make_chunk(0, "a.md", "", "", "alpha beta")
    other = make_chunk(1, "b.md", "", "", "gamma")
    terms, indptr, indices, data = build_matrix(
        [chunk, other], k1=1.2, b=0.0, field_weights={"text": 1.0}
    )
    row = terms.index("alpha")
    assert list(indices[indptr[row] : indptr[row + 1]]) == [0]
    idf = math.log1p((2 - 1 + 0.5) / (1 + 0.5))
    assert data[indptr[row]] == pytest.approx(idf * 1 * 2.2 / (1.2 + 1), rel=1e-6)


def test_identifier_spelling_finds_snake_case_docs(index: KeywordIndex) -> None:
    result = index.search("findAssets", 3)
    assert result.rows[0] == 0


def test_title_and_path_outweigh_a_passing_mention(index: KeywordIndex) -> None:
    result = index.search("glossary", 4)
    assert result.rows[0] == 3
    result = index.search("assets", 4)
    assert result.rows[0] == 0


def test_inflected_query_matches_through_expansion(index: KeywordIndex) -> None:
    weighted = dict(index.weighted_terms("create domains"))
    assert weighted["creating"] == pytest.approx(0.5)
    assert index.search("create domains", 2).rows[0] == 1


def test_mask_and_no_match(index: KeywordIndex) -> None:
    mask = np.array([False, True, True, True])
    result = index.search("assets", 4, mask)
    assert 0 not in result.rows.tolist()
    assert index.search("zzzunknown", 5).rows.size == 0
    assert index.search("", 5).rows.size == 0


def test_other_format_or_tokenizer_is_refused(tmp_path: Path) -> None:
    section = write_keyword_index(CHUNKS, tmp_path)
    check_section(section)
    with pytest.raises(BundleError, match="tokenizer 'atlas-tokens-0'"):
        check_section({**section, "tokenizer": "atlas-tokens-0"})
    with pytest.raises(BundleError, match="bm25-per-field"):
        check_section({**section, "format": "bm25-per-field"})


def test_empty_corpus(tmp_path: Path) -> None:
    section = write_keyword_index([], tmp_path)
    assert section["n_terms"] == 0
    assert KeywordIndex.from_dir(tmp_path, 0).search("assets", 3).rows.size == 0


@pytest.mark.parametrize("n", [10, 5_000, 100_003])
@pytest.mark.parametrize("kind", ["random", "ties", "sparse", "negative"])
def test_top_k_block_bound_is_exact(n: int, kind: str) -> None:
    rng = np.random.default_rng(n)
    scores = rng.standard_normal(n).astype(np.float32)
    if kind == "ties":
        scores = np.round(scores, 1)
    elif kind == "sparse":
        scores = np.zeros(n, dtype=np.float32)
        scores[rng.integers(0, n, 5)] = 1.0
    elif kind == "negative":
        scores = -np.abs(scores)
        scores[::7] = -np.inf
    for k in (1, 10, 100):
        expected = np.lexsort((np.arange(n), -scores))[:k]
        assert top_k(scores, k).tolist() == expected.tolist()


def test_top_k_orders_and_breaks_ties_by_row() -> None:
    scores = np.array([0.5, 2.0, 0.5, 1.0], dtype=np.float32)
    assert top_k(scores, 3).tolist() == [1, 3, 0]
    assert top_k(scores, 10).tolist() == [1, 3, 0, 2]
    assert top_k(scores, 0).tolist() == []


def test_words_of_a_query_find_the_compound_they_spell(tmp_path: Path) -> None:
    chunks = [
        make_chunk(0, "api/imports.md", "Imports", "Imports > Options", "Set sendNotification."),
        # both words, apart, and more often: plain BM25 puts this page first
        make_chunk(
            1,
            "guides/notification.md",
            "Notification",
            "Notification > Send",
            "Send a notification. We send it once; the notification is short.",
        ),
    ]
    write_keyword_index(chunks, tmp_path)
    index = KeywordIndex.from_dir(tmp_path, len(chunks))
    weighted = dict(index.weighted_terms("send a notification"))
    assert weighted == {"send": 1.0, "notification": 1.0, "sendnotification": JOIN_WEIGHT}
    assert 0 < JOIN_WEIGHT < 1
    assert index.search("send a notification", 2).rows[0] == 0
    index.join_weight = 0.0
    assert index.search("send a notification", 2).rows[0] == 1


def test_a_camel_case_query_finds_the_words(index: KeywordIndex) -> None:
    # a camelCase or snake_case query splits into its words, which chunk 1's prose holds
    assert index.search("createDomain", 2).rows[0] == 1
    assert index.search("create_domain", 2).rows[0] == 1
