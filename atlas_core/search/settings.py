"""The ranking knobs a search runs with (`SearchSettings`), kept beside the search they tune so
that the build (which trains the ranking with them) and the engine read one definition."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class SearchSettings:
    """Ranking knobs; the defaults are the values tuned on the development set.

    Measured on benchmarks/dev_queries.jsonl (mean of MRR@10 and nDCG@10 over its 62 questions):
    score fusion 0.784 against RRF 0.776; vector weight 0.6 over 0.5 (+0.018); file penalty and
    candidate depth flat within 0.003; a cluster-tag boost of 0.1 gained 0.004, inside the noise,
    so it stays off. No cross-encoder was available to evaluate, so reranking stays opt-in.
    The 38 identifier cases of the set, searched as queries: MRR@10 0.697 with the vector weight
    at 0.6, 0.834 at 0.2, 0.839 keyword alone; 0.2 keeps the vector list as a tie-breaker.
    """

    fusion: str = "score"  # "score" | "rrf"
    vector_weight: float = 0.6  # share of the vector list in fusion (keyword gets the rest)
    # Identifier-shaped queries (findAssets, /assets/{id}, AssetApi.find): the exact tokens carry
    # the meaning and a sentence model reads them poorly, so the keyword list counts for more.
    identifier_vector_weight: float = 0.2
    rrf_k: int = 60
    # Per earlier chunk of the same file. Recall@5 counts pages, and a page whose several
    # sections all match the question's words filled the top five: on the held-out questions
    # (benchmarks/questions, real Collibra bundle) hybrid MRR@10 / Recall@5 at 0.4 against 0.85:
    # dev 0.871 / 0.873 against 0.861 / 0.858, test 0.806 / 0.830 against 0.798 / 0.781; flat
    # from 0.4 down to 0 on dev (0.5: 0.870 / 0.863, 0.6: 0.866 / 0.863).
    file_penalty: float = 0.4
    # A source file holds many answers (one per function): on the code-search set (click 8.1.8,
    # benchmarks/code_search.py) no penalty scored hybrid MRR@10 0.586 against 0.571 at 0.85.
    project_file_penalty: float = 1.0
    tag_boost: float = 0.0  # relative boost when a chunk's cluster_tags meet the query's tokens
    # A third party's page's score is multiplied by this (the bundle's `publishers`), so that of
    # near-equal pages the vendor's own comes first. Off: on the held-out questions (hash model)
    # 0.97 moved dev MRR@10 +0.001 and Recall@5 -0.002 but test MRR@10 0.571 -> 0.549, 0.9 and
    # 0.8 traded dev Recall@5 for MRR. Identifier lookup carries source authority instead.
    third_party_factor: float = 1.0
    candidates: int = 50  # per list, before fusion and diversification
    # Re-score hybrid candidates with the bundle's trained ranking when it has one (see
    # atlas_core/search/learn.py). Off by default: it did not generalise. On the held-out
    # questions (benchmarks/questions, real Collibra bundle) hybrid MRR@10 / Recall@5 with it on
    # against off: dev 0.830 / 0.796 against 0.854 / 0.858, test 0.746 / 0.788 against
    # 0.771 / 0.780.
    learned: bool = False
    # Share of the page card's cosine added to every candidate of hybrid search on the docs (see
    # atlas_core/search/cards.py); 0 turns cards off. Dev MRR@10 0.854 at 0, 0.850 at 0.05, 0.861
    # at 0.1, 0.864 at 0.15 (Recall@5 0.851 against 0.858), 0.855 at 0.2, 0.851 at 0.3.
    card_weight: float = 0.1
    # How far vector search lifts a chunk's cosine toward its head's (title and heading path;
    # see atlas_core/search/headings.py) where that is higher; 0 turns it off. Held-out
    # questions, hybrid MRR@10 / Recall@5: dev 0.872 / 0.882 at 0, 0.872 / 0.886 at 0.1, 0.875 /
    # 0.886 at 0.2 to 0.5; train 0.885 / 0.902 at 0, 0.891 / 0.905 at 0.1, 0.891 / 0.902 at
    # 0.2, 0.893 / 0.904 at 0.3, 0.888 / 0.906 at 0.5.
    heading_weight: float = 0.3
    # Of the first this many results of hybrid and vector search, a third party's page gets the
    # vendor's section on the same named subject placed just above it (see
    # atlas_core/search/twins.py); 0 turns it off. Held-out questions, hybrid MRR@10 / Recall@5
    # at 5 against 0: dev 0.872 / 0.882 against 0.871 / 0.873, train 0.885 / 0.902 against
    # 0.880 / 0.868, test 0.817 / 0.858 against 0.806 / 0.830. Keyword search keeps its exact
    # order (dev Recall@5 0.848 -> 0.843 with it).
    twin_depth: int = 5
    rerank_depth: int = 30  # candidates the cross-encoder re-scores
