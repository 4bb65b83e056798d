"""Workspace-symbol search over an opened identifier table: exact names, prefixes, camel-hump
initials, substrings, then near spellings."""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate
from pathlib import Path
from typing import Any

from atlas_core.identifiers.spelling import compact
from atlas_core.identifiers.store.table_reader import StoredTable
from atlas_core.search import MAX_LIMIT, MAX_QUERY_CHARS, clamp_count
from atlas_core.types import Symbol


class SymbolSearch(StoredTable):
    """`symbols`; the substring blob over every search key is built on the first substring
    search."""

    def __init__(self, directory: Path, meta: dict[str, Any]) -> None:
        super().__init__(directory, meta)
        self._blob = ""
        self._starts: list[int] = []

    def _substring_rows(self, q: str, cap: int) -> list[int]:
        if not self._starts and self.count:
            search = self._search_list()
            self._blob = "\n".join(search)
            self._starts = list(accumulate((len(s) + 1 for s in search), initial=0))
        out: list[int] = []
        pos = self._blob.find(q)
        while pos >= 0 and len(out) < cap:
            row = bisect_right(self._starts, pos) - 1
            out.append(row)
            pos = self._blob.find(q, self._starts[row + 1])  # next row: one hit per row is enough
        return out

    def symbols(self, query: str, limit: int = 50) -> list[Symbol]:
        """Fuzzy workspace-symbol search: exact, then prefix, camel humps, substring, fuzzy."""
        limit = clamp_count(limit, "limit", MAX_LIMIT, strict=False)
        if not self.count:
            return []
        q = compact((query or "")[:MAX_QUERY_CHARS])
        if not q:
            # Rows are stored kind-major (endpoints first), so the first rows are a sensible page.
            return [self._symbol(row, 1.0) for row in range(min(limit, self.count))]
        search = self._search_list()
        scores: dict[int, float] = {}
        cap = max(500, limit * 10)

        def offer(rows: Iterable[int], score_of: Any) -> None:
            for row in rows:
                score = score_of(row)
                if score > scores.get(row, 0.0):
                    scores[row] = score

        # Symbols match what the user sees, so aliases (an endpoint's operationId) do not count.
        offer(self._rows("search", q), lambda r: 100.0)
        offer(self._rows_named(query.strip()), lambda r: 100.0)
        offer(self._prefix_rows("search", q, cap), lambda r: 90.0 + 9.0 * len(q) / len(search[r]))
        if 1 < len(q) <= 8:
            offer(self._prefix_rows("initials", q, cap), lambda r: 82.0)
            offer(self._rows("initials", q), lambda r: 88.0)
        if len(scores) < limit:
            offer(
                self._substring_rows(q, cap), lambda r: 70.0 + 9.0 * len(q) / max(len(search[r]), 1)
            )
        if len(scores) < limit and len(q) >= 3:
            from rapidfuzz import fuzz, process

            keys, rows = self._first_char_slice(q)
            hits = process.extract(q, keys, scorer=fuzz.ratio, limit=limit, score_cutoff=60)
            found = self._checked("search", [rows[i] for _, _, i in hits])
            for row, (_, score, _) in zip(found, hits, strict=True):
                if row not in scores:
                    scores[row] = 0.69 * score
        best = heapq.nsmallest(
            limit,
            scores.items(),
            key=lambda kv: (-kv[1], self._kinds[kv[0]], len(search[kv[0]]), kv[0]),
        )
        return [self._symbol(row, score / 100.0) for row, score in best]

    def _symbol(self, row: int, score: float) -> Symbol:
        rec = self.record(row, full=False)
        return Symbol(
            name=self._names[row],
            kind=self.kind(row),
            file=rec.get("file", ""),
            line=int(rec.get("line", 0)),
            url=rec.get("url", ""),
            score=round(score, 4),
            container=rec.get("publication", "") or rec.get("file", ""),
        )
