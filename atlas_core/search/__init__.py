"""Search over a bundle's chunks: fielded BM25 (`keyword`), exact cosine (`dense`), their fusion,
the optional cross-encoder (`rerank`), the identifier-aware tokenizer, query limits, passage
excerpts cut at word and sentence boundaries (`excerpt`), the chunk columns the engine keeps in
memory, the page cards (`cards`), the trained ranking (`learn`) and the knobs a search runs with (`settings`).

Names load on first use: `keyword` and `dense` import numpy, which a language server never needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.search.cards import (
        CARDS_FILE,
        card_boost,
        cards_problems,
        describe_cards,
        load_cards,
        write_cards,
    )
    from atlas_core.search.chunks import ChunkTable
    from atlas_core.search.dense import DenseIndex, best_rows
    from atlas_core.search.excerpt import ELLIPSIS, clip, cut_point, excerpt_at, make_snippet
    from atlas_core.search.fusion import Ranked, diversify, fuse
    from atlas_core.search.headings import (
        HEADINGS_FILE,
        describe_headings,
        heading_lift,
        headings_problems,
        load_headings,
        write_headings,
    )
    from atlas_core.search.keyword import (
        DATA,
        INDICES,
        INDPTR,
        VOCAB,
        KeywordIndex,
        KeywordResult,
        TermCounts,
        index_problems,
        write_keyword_index,
    )
    from atlas_core.search.learn import (
        RANKING_FILE,
        RankContext,
        RankingModel,
        describe_ranking,
        gather,
        rank,
        ranking_problems,
        spec_publications,
        write_ranking,
    )
    from atlas_core.search.limits import (
        CONTROL_CHARS,
        MAX_LIMIT,
        MAX_QUERY_CHARS,
        MAX_TOP_K,
        check_mode,
        check_scope,
        clamp_count,
        clean_query,
        looks_like_identifier,
    )
    from atlas_core.search.rerank import Reranker, load_reranker
    from atlas_core.search.settings import SearchSettings
    from atlas_core.search.synonyms import verify_problems
    from atlas_core.search.tokenize import expand_query, query_terms, tokenize
    from atlas_core.search.train import train_ranking
    from atlas_core.search.twins import with_twins

_EXPORTS = {
    "CARDS_FILE": "cards",
    "card_boost": "cards",
    "cards_problems": "cards",
    "describe_cards": "cards",
    "load_cards": "cards",
    "write_cards": "cards",
    "ChunkTable": "chunks",
    "DenseIndex": "dense",
    "best_rows": "dense",
    "HEADINGS_FILE": "headings",
    "describe_headings": "headings",
    "heading_lift": "headings",
    "headings_problems": "headings",
    "load_headings": "headings",
    "write_headings": "headings",
    "Ranked": "fusion",
    "diversify": "fusion",
    "fuse": "fusion",
    "KeywordIndex": "keyword",
    "KeywordResult": "keyword",
    "write_keyword_index": "keyword",
    "RANKING_FILE": "learn",
    "RankContext": "learn",
    "RankingModel": "learn",
    "describe_ranking": "learn",
    "gather": "learn",
    "rank": "learn",
    "spec_publications": "learn",
    "CONTROL_CHARS": "limits",
    "MAX_LIMIT": "limits",
    "MAX_QUERY_CHARS": "limits",
    "MAX_TOP_K": "limits",
    "check_mode": "limits",
    "check_scope": "limits",
    "clamp_count": "limits",
    "clean_query": "limits",
    "looks_like_identifier": "limits",
    "clip": "excerpt",
    "cut_point": "excerpt",
    "make_snippet": "excerpt",
    "Reranker": "rerank",
    "load_reranker": "rerank",
    "SearchSettings": "settings",
    "expand_query": "tokenize",
    "query_terms": "tokenize",
    "tokenize": "tokenize",
    "DATA": "keyword",
    "INDICES": "keyword",
    "INDPTR": "keyword",
    "VOCAB": "keyword",
    "index_problems": "keyword",
    "verify_problems": "synonyms",
    "ranking_problems": "learn",
    "TermCounts": "keyword",
    "write_ranking": "learn",
    "train_ranking": "train",
    "ELLIPSIS": "excerpt",
    "excerpt_at": "excerpt",
    "with_twins": "twins",
}
__all__ = [
    "CARDS_FILE",
    "CONTROL_CHARS",
    "DATA",
    "ELLIPSIS",
    "HEADINGS_FILE",
    "INDICES",
    "INDPTR",
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_TOP_K",
    "RANKING_FILE",
    "VOCAB",
    "ChunkTable",
    "DenseIndex",
    "KeywordIndex",
    "KeywordResult",
    "RankContext",
    "Ranked",
    "RankingModel",
    "Reranker",
    "SearchSettings",
    "TermCounts",
    "best_rows",
    "card_boost",
    "cards_problems",
    "check_mode",
    "check_scope",
    "clamp_count",
    "clean_query",
    "clip",
    "cut_point",
    "describe_cards",
    "describe_headings",
    "describe_ranking",
    "diversify",
    "excerpt_at",
    "expand_query",
    "fuse",
    "gather",
    "heading_lift",
    "headings_problems",
    "index_problems",
    "load_cards",
    "load_headings",
    "load_reranker",
    "looks_like_identifier",
    "make_snippet",
    "query_terms",
    "rank",
    "ranking_problems",
    "spec_publications",
    "tokenize",
    "train_ranking",
    "verify_problems",
    "with_twins",
    "write_cards",
    "write_headings",
    "write_keyword_index",
    "write_ranking",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
