"""Searching the open bundles: keyword, vector or both, each bundle on its own, merged by score.

`HybridSearch` owns the steps of one search (the shape of txtai's `Search`, which its
`Embeddings` facade builds and calls): per bundle, the candidates of each list, their fusion or
the bundle's trained ranking, diversification by file; then the merge across bundles, the
optional cross-encoder, and the hits built from the chunk columns.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas_core.engine.parts import OpenBundle, OpenBundles, load_once
from atlas_core.errors import ModelError
from atlas_core.search import (
    MAX_TOP_K,
    ChunkTable,
    SearchSettings,
    check_mode,
    check_scope,
    clamp_count,
    clean_query,
    looks_like_identifier,
    make_snippet,
)
from atlas_core.types import Hit, SearchFilters

if TYPE_CHECKING:
    import numpy as np

    from atlas_core.search import Ranked, Reranker

RERANK_ENV = "ATLAS_RERANKER"
_WORD = re.compile(r"\w+")

Found = list[tuple[float, int, int]]  # (score, bundle index, row), best first


def intact_mode(part: OpenBundle, mode: str, fallback: bool) -> str:
    """`mode` narrowed to the search lists of `part` whose files are intact: hybrid answers from
    the list left when one is off; a single list that is off raises the error naming its file,
    or with `fallback` (a host that answers with a note) gives way to the other list."""
    wanted = ("keyword", "vector") if mode == "hybrid" else (mode,)
    left = [m for m in wanted if part.intact(m)]
    if len(left) == len(wanted):
        return mode
    if left:
        return left[0]
    other = "vector" if mode == "keyword" else "keyword"
    if fallback and mode != "hybrid" and part.intact(other):
        return other
    raise part.off()[wanted[0]]


class HybridSearch:
    """Ranked passages over the open bundles, with the settings they rank by."""

    def __init__(
        self, bundles: OpenBundles, settings: SearchSettings, reranker_dir: Path | None
    ) -> None:
        self.bundles = bundles
        self.settings = settings
        self.reranker_dir = reranker_dir
        self._reranker: Reranker | None = None
        self._lock = threading.Lock()

    def __call__(
        self,
        query: str,
        mode: str,
        top_k: int,
        filters: SearchFilters | None,
        rerank: bool,
        scope: str,
        snippets: bool,
        fallback: bool = False,
    ) -> list[Hit]:
        text = clean_query(query)
        mode = check_mode(mode)
        scope = check_scope(scope)
        k = clamp_count(top_k, "top_k", MAX_TOP_K)
        filters = filters or SearchFilters()
        depth = max(k, self.settings.rerank_depth) if rerank else k
        found: Found = []
        for index, part in enumerate(self.bundles.parts):
            if scope != "all" and part.scope != scope:
                continue
            found_in = self._search_bundle(part, text, mode, depth, filters, fallback)
            for row, score in found_in:
                found.append((score, index, row))
        found.sort(key=lambda item: (-item[0], item[1], item[2]))
        if rerank and found:
            found = self._rerank(text, found[: max(k, self.settings.rerank_depth)])
        if filters.min_score:
            found = [item for item in found if item[0] >= filters.min_score]
        words = [w.lower() for w in _WORD.findall(text)] if snippets else None
        return [self._hit(rank, item, words) for rank, item in enumerate(found[:k], start=1)]

    def _hit(self, rank: int, found: tuple[float, int, int], words: list[str] | None) -> Hit:
        """A hit read from its chunk's columns; `words` cut the snippet (None: no snippet)."""
        score, index, row = found
        part = self.bundles.parts[index]
        c = part.table().cols
        snippet = (
            ""
            if words is None
            else make_snippet(c["text"][row] or c["embed_text"][row] or "", words)
        )
        hit = Hit(
            rank=rank,
            score=round(float(score), 6),
            chunk_id=c["chunk_id"][row],
            file=c["file"][row],
            publication=c["publication"][row],
            title=c["title"][row],
            heading=c["heading"][row],
            url=c["url"][row] or "",
            snippet=snippet,
            line_start=int(c["line_start"][row] or 0),
            line_end=int(c["line_end"][row] or 0),
            is_code=bool(c["is_code"][row]),
        )
        return self.bundles.tag(hit, part)

    def _search_bundle(
        self,
        part: OpenBundle,
        text: str,
        mode: str,
        k: int,
        filters: SearchFilters,
        fallback: bool,
    ) -> list[tuple[int, float]]:
        """(row, score) of one bundle's best chunks, diversified by file."""
        from atlas_core.search import Ranked, fuse

        table = part.table()
        if table.n == 0:
            return []
        mask = table.mask(filters)
        if mask is not None and not mask.any():
            return []
        mode = intact_mode(part, mode, fallback)
        s = self.settings
        depth = max(s.candidates, 3 * k)
        model = part.ranking()[0] if mode == "hybrid" and s.learned else None
        if model is not None:
            from atlas_core.search import gather, rank

            identifier = looks_like_identifier(text)
            cands = gather(
                part.rank_context(),
                part.keyword(),
                part.dense().scores(part.embedder().embed_query(text)),
                text,
                depth,
                vector_weight=s.identifier_vector_weight if identifier else s.vector_weight,
                identifier=identifier,
                mask=mask,
            )
            rows, scores = rank(model, cands)
            found = self._diversified(table, rows.tolist(), scores, text, part.scope)
            return self._with_twins(table, found)
        keyword = vector = None
        if mode in ("keyword", "hybrid"):
            result = part.keyword().search(text, depth, mask)
            keyword = Ranked(result.rows, result.scores)
        query_vector = None
        if mode in ("vector", "hybrid"):
            query_vector = part.embedder().embed_query(text)
            rows, scores = self._vector_search(part, query_vector, depth, mask)
            vector = Ranked(rows, scores)
        if keyword is not None and vector is not None:
            if keyword.rows.size == 0:
                ranked = vector  # nothing matched a word: the vector list alone, scores kept
            else:
                weight = (
                    s.identifier_vector_weight if looks_like_identifier(text) else s.vector_weight
                )
                ranked = fuse(keyword, vector, method=s.fusion, vector_weight=weight, rrf_k=s.rrf_k)
            if s.card_weight and part.scope == "docs":
                ranked = self._with_cards(part, ranked, query_vector)
        else:
            ranked = keyword if keyword is not None else vector
        assert ranked is not None
        found = self._diversified(table, ranked.rows.tolist(), ranked.scores, text, part.scope)
        return found if mode == "keyword" else self._with_twins(table, found)

    def _vector_search(
        self, part: OpenBundle, query_vector: Any, depth: int, mask: Any
    ) -> tuple[Any, Any]:
        """The best `depth` rows of vector search and their cosines, each lifted toward its
        head's where that is higher (see atlas_core/search/headings.py); plain cosines for a
        bundle without heading vectors."""
        from atlas_core.search import best_rows, heading_lift

        heads = part.headings() if self.settings.heading_weight else None
        if heads is None:
            return part.dense().search(query_vector, depth, mask)
        cosines = part.dense().scores(query_vector)
        lifted = heading_lift(cosines, heads.scores(query_vector), self.settings.heading_weight)
        return best_rows(lifted, depth, mask)

    def _with_twins(
        self, table: ChunkTable, found: list[tuple[int, float]]
    ) -> list[tuple[int, float]]:
        """The vendor's section on a third party page's subject just above that page (see
        atlas_core/search/twins.py); unchanged for a bundle that does not mark third parties."""
        from atlas_core.search import with_twins

        twins = table.twins()
        if not twins or not self.settings.twin_depth:
            return found
        files, headings = table.file_code, table.cols["heading"]
        return with_twins(
            found, twins, lambda row: (int(files[row]), headings[row]), self.settings.twin_depth
        )

    def _with_cards(self, part: OpenBundle, ranked: Ranked, query_vector: Any) -> Ranked:
        """`ranked` with each row's page card added (see atlas_core/search/cards.py), re-sorted;
        unchanged for a bundle without cards."""
        import numpy as np

        from atlas_core.search import Ranked, card_boost

        cards = part.cards()
        if cards is None or ranked.rows.size == 0:
            return ranked
        files = part.table().file_code[ranked.rows]
        scores = np.asarray(ranked.scores, dtype=np.float64) + card_boost(
            cards @ np.asarray(query_vector, dtype=np.float32), files, self.settings.card_weight
        )
        order = np.lexsort((ranked.rows, -scores))
        return Ranked(ranked.rows[order], scores[order])

    def _diversified(
        self, table: ChunkTable, rows_list: list[int], ranked_scores: Any, text: str, scope: str
    ) -> list[tuple[int, float]]:
        import numpy as np

        from atlas_core.search import diversify

        scores = np.asarray(ranked_scores, dtype=np.float64)
        factor = self.settings.third_party_factor
        if table.third_party is not None and factor != 1.0 and rows_list:
            # Source authority: of near-equal pages, the vendor's own before a third party's.
            scores = scores * np.where(table.third_party[rows_list], factor, 1.0)
            order = np.argsort(-scores, kind="stable")
            rows_list = [rows_list[i] for i in order]
            scores = scores[order]
        if self.settings.tag_boost and rows_list:
            scores = scores * self._tag_factors(table, rows_list, text)
            order = np.argsort(-scores, kind="stable")
            rows_list = [rows_list[i] for i in order]
            scores = scores[order]
        files = table.file_code[rows_list].tolist()
        headings = [table.cols["heading"][r] for r in rows_list]
        s = self.settings
        penalty = s.project_file_penalty if scope == "project" else s.file_penalty
        return diversify(rows_list, scores.tolist(), files, headings, penalty=penalty)

    def _tag_factors(self, table: ChunkTable, rows: list[int], text: str) -> np.ndarray:
        import numpy as np

        from atlas_core.search import query_terms

        terms = set(query_terms(text))
        factors = np.ones(len(rows))
        for i, row in enumerate(rows):
            tags = table.cols["cluster_tags"][row] or ()
            if any(t in terms for tag in tags for t in query_terms(tag)):
                factors[i] += self.settings.tag_boost
        return factors

    def _rerank(self, text: str, found: Found) -> Found:
        reranker = self.reranker()
        passages = []
        for _, index, row in found:
            c = self.bundles.parts[index].table().cols
            heading = c["heading"][row] or c["title"][row]
            passages.append(f"{heading}\n{c['text'][row] or c['embed_text'][row]}")
        scores = reranker.score(text, passages)
        rescored = [
            (float(s), index, row) for s, (_, index, row) in zip(scores, found, strict=True)
        ]
        rescored.sort(key=lambda item: -item[0])
        return rescored

    def reranker(self) -> Reranker:
        """The cross-encoder in `reranker_dir` (the `reranker` setting: ``$ATLAS_RERANKER``, else
        the config file's ``[rerank] model``)."""
        return load_once(self, "_reranker", self._lock, self._load_reranker)

    def _load_reranker(self) -> Reranker:
        directory = self.reranker_dir
        if directory is None:
            raise ModelError(
                "reranking asked for, but no cross-encoder is configured",
                hint=f'set {RERANK_ENV}=DIR or [rerank] model = "DIR" in the config '
                "file (DIR holds model.onnx and tokenizer.json)",
            )
        from atlas_core.search import load_reranker

        return load_reranker(directory, prefer=self.bundles.parts[0].prefer)

    def close(self) -> None:
        if self._reranker is not None:
            self._reranker.close()
            self._reranker = None
