"""Identifier lookup over a bundle's identifier table: a name as written in code or prose to
its documented candidates, best first, and endpoint completion.

`IdentifierIndex` is the table opened (`store.table_reader`) with every question asked of it:
`lookup` and `endpoints` here, `definitions` (`field_definitions`) and `symbols` (`symbols`).
Table rows and pages of mentions are ranked in one list (`ranking`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Self

from atlas_core.identifiers.lookup.field_definitions import FieldDefinitions
from atlas_core.identifiers.lookup.ranking import (
    BASE_VARIANT,
    MATCH_TIERS,
    Evidence,
    Ranked,
    Spelling,
    calibrated,
    evidence_by_file,
    mention_candidate,
    style_clash,
    vendor_first,
)
from atlas_core.identifiers.lookup.symbols import SymbolSearch
from atlas_core.identifiers.spelling import (
    HTTP_METHODS,
    QUOTES,
    compact,
    looks_like_path,
    name_variants,
    path_key,
    strip_path,
)
from atlas_core.identifiers.store.table import OWNED_KINDS
from atlas_core.identifiers.store.table_reader import record_params
from atlas_core.search import MAX_LIMIT, MAX_QUERY_CHARS, clamp_count
from atlas_core.sources import THIRD_PARTY
from atlas_core.types import Candidate

__all__ = ["IdentifierIndex"]

# Best rows whose file is read to spread a list over files: enough that pages naming a heading a
# dozen times each ("Parameters" under every operation) cannot fill the list, and a bound on the
# work for a name found hundreds of times.
DIVERSIFY_MIN_ROWS = 100
# Candidates tied at the top whose records are read to settle the tie.
TIE_ROWS = 32
SUMMARY_CHARS = 400  # a parameter's description shown as its candidate's summary


def _no_publisher(file: str) -> str:
    return ""


class IdentifierIndex(FieldDefinitions, SymbolSearch):
    """An opened identifier table and what is asked of it: lookup, definitions, symbols,
    endpoint completion, deprecations and the API model's rows."""

    def __init__(self, directory: Path, meta: dict[str, Any]) -> None:
        super().__init__(directory, meta)
        self._row_files: dict[int, str] = {}
        # Who publishes a page (`Bundle.publisher`); a bundle without publishers says "".
        self._publisher: Callable[[str], str] = _no_publisher
        self._heading_kind = (
            self._kind_names.index("heading") if "heading" in self._kind_names else -1
        )

    @classmethod
    def open(cls, bundle: Any) -> Self:
        """The table of a `Bundle` (which also says who publishes each page) or a directory."""
        index = super().open(bundle)
        if getattr(bundle, "has_publishers", False):
            index._publisher = bundle.publisher
        return index

    # -- lookup --------------------------------------------------------------------------------

    def lookup(self, identifier: str, limit: int = 10) -> list[Candidate]:
        """`_lookup`, remembered: an editor asks about the same few names again and again
        (every hover inside a call looks its endpoint up), and the table never changes."""
        key = (identifier, limit)
        found = self._answers.get(key)
        if found is None:
            found = self._remember(key, self._lookup(identifier, limit))
        return list(found)

    def _lookup(self, identifier: str, limit: int = 10) -> list[Candidate]:
        """Resolve an identifier as written in code or prose; best candidates first.

        One ranking over the table's definitions and the mention index (`ranking`): match
        strength first (exact, normalized, fuzzy), then how much each page is about the name.
        Nothing that matches well gives an empty list: lookup never guesses from loose words."""
        limit = clamp_count(limit, "limit", MAX_LIMIT, strict=False)
        query = (identifier or "").strip()[:MAX_QUERY_CHARS]
        if not query:
            return []
        mentions = self.mentions()
        spelling = Spelling.of(query, mentions.bases if mentions is not None else ())
        found = self._table_matches(spelling, limit) if self.count else {}
        evidence = evidence_by_file(mentions, spelling) if mentions is not None else {}
        if not found and not evidence and self.count:
            # A near spelling of a name; a heading is prose, and a name one edit from a
            # heading's words ("serverModes" and "Server Modes") is not what it documents.
            for row, confidence in self._fuzzy(query, limit):
                if self._kinds[row] != self._heading_kind:
                    found[row] = (confidence, "fuzzy")
        if not found and not evidence:
            return []
        items = [self._row_item(row, *found[row], spelling, evidence) for row in found]
        row_tier: dict[str, int] = {}  # each file's strongest table match
        for item in items:
            row_tier[item.file] = min(row_tier.get(item.file, 9), MATCH_TIERS[item.match])
        # A page's mentions stand on their own where they match better than its table rows.
        items.extend(
            Ranked.of_mention(ev)
            for file, ev in evidence.items()
            if MATCH_TIERS[ev.match] < row_tier.get(file, 9)
        )
        for item in items:
            item.third_party = self._publisher(item.file) == THIRD_PARTY
        best = heapq.nsmallest(max(limit * 4, DIVERSIFY_MIN_ROWS), items, key=Ranked.key)
        best = vendor_first(self._schema_properties_first(best))
        return self._diversified(calibrated(best), limit)

    def _schema_properties_first(self, ranked: list[Ranked]) -> list[Ranked]:
        """Among the leading candidates tied on all but their row, a property of a named schema
        comes before the same field inline in one operation's body: the schema is where the
        spec defines it, and its page lists every request that uses it. (Only a tie's records
        are read, at most TIE_ROWS of them.)"""
        head = ranked[0].key()[:-2] if ranked else ()
        run = 0
        while run < min(len(ranked), TIE_ROWS) and ranked[run].key()[:-2] == head:
            run += 1
        if run < 2:
            return ranked

        def inline(item: Ranked) -> bool:
            row = item.row
            return row is None or self.kind(row) != "property" or not self.record(row).get("owner")

        return sorted(ranked[:run], key=inline) + ranked[run:]

    def _row_item(
        self,
        row: int,
        confidence: float,
        match: str,
        spelling: Spelling,
        evidence: dict[str, Evidence],
    ) -> Ranked:
        """A table row ready to rank beside the pages of mentions."""
        file = self._row_files.get(row)
        if file is None:
            # A common name (`id`, `name`) has a row in hundreds of operations and schemas, and
            # each lookup of it reads their files; remember them, one short string per row.
            file = self._row_files[row] = self._file_of(row)
        name = self._names[row]
        page = evidence.get(file)
        heading = self._kinds[row] == self._heading_kind
        written = spelling.tokens[0] if spelling.tokens else spelling.command
        if match != "exact" and name == written:
            confidence, match = 1.0, "exact"  # "name" quoted is the name
        elif (
            match == "normalized"
            and page is not None
            and page.match == "exact"
            and not heading  # a heading is words, not a name
            and compact(name) == compact(page.name)
        ):
            # find_assets on the page that defines findAssets: the page writes it as asked.
            confidence, match = 1.0, "exact"
        weights, generated = self._ranking_arrays()
        return Ranked.of_row(
            row,
            file,
            confidence,
            match,
            heading=heading,
            clash=match != "exact" and style_clash(written or spelling.query, name),
            evidence=page,
            weight=weights[row] if weights else 0,
            generated=bool(generated[row]) if generated else False,
            kind_order=self._kinds[row],
            method_rank=self._method_rank(row) if spelling.is_path else 0,
        )

    def _table_matches(self, spelling: Spelling, limit: int) -> dict[int, tuple[float, str]]:
        """Rows whose name, alias or path matches, with confidence and match strength."""
        found: dict[int, tuple[float, str]] = {}

        def take(rows: Iterable[int], confidence: float, match: str) -> None:
            for row in rows:
                if row not in found or found[row][0] < confidence:
                    found[row] = (confidence, match)

        query = spelling.query
        take(self._rows_named(query), 1.0, "exact")
        if spelling.is_path:
            method, path = spelling.method, spelling.path
            if method:
                take(self._rows_named(f"{method} {path}"), 1.0, "exact")
            else:
                take(self._rows("alias", "path:" + path), 1.0, "exact")
            self._path_matches(method, path, take)
            # The same path under another base the docs or specs use, both ways round.
            for variant in spelling.path_variants[1:]:
                if not found:
                    take(self._rows("alias", "path:" + variant), BASE_VARIANT, "normalized")
                    self._path_matches(
                        method, variant, lambda r, c, m: take(r, c * BASE_VARIANT, m)
                    )
        else:
            for n, token in enumerate(spelling.tokens):
                take(self._rows_named(token), 0.9 if n else 1.0, "normalized" if n else "exact")
            for key, confidence in name_variants(query):
                take(self._rows_compact(key), confidence, "normalized")
        return found

    def _diversified(self, ranked: list[Ranked], limit: int) -> list[Candidate]:
        """The first `limit` of `ranked` (best first) with each run of equally strong matches
        spread over files, as search does: a second row of a file already listed comes after the
        rows of files not listed yet. Runs never mix, so confidences still only go down."""
        listed: dict[str, int] = {}
        out: list[Ranked] = []
        run: list[tuple[int, int, Ranked]] = []
        strength: tuple[str, float] | None = None
        for item in ranked:
            if (item.match, item.confidence) != strength:
                out.extend(entry for _, _, entry in sorted(run, key=lambda r: r[:2]))
                run, strength = [], (item.match, item.confidence)
                if len(out) >= limit:
                    break
            earlier = listed.get(item.file, 0)
            listed[item.file] = earlier + 1
            run.append((earlier, len(run), item))
        out.extend(entry for _, _, entry in sorted(run, key=lambda r: r[:2]))
        found = [
            self._candidate(item.row, item.confidence, item.match)
            if item.row is not None
            else mention_candidate(item, self._deprecated_terms())
            for item in out[:limit]
        ]
        if self._publisher is _no_publisher:
            return found
        return [replace(c, publisher=self._publisher(c.file)) for c in found]

    def _method_rank(self, row: int) -> int:
        """GET before POST before the rest, so a bare path resolves to its read first."""
        if self._kinds[row] != 0:
            return 0
        method = self._names[row].partition(" ")[0]
        return HTTP_METHODS.index(method) if method in HTTP_METHODS else len(HTTP_METHODS)

    def _path_matches(self, method: str, path: str, take: Any) -> None:
        key = path_key(path)
        if method:
            take(self._rows("path", f"{method} {key}"), 0.9, "normalized")
            take(self._rows("path", key), 0.8, "normalized")
        else:
            take(self._rows("path", key), 0.9, "normalized")
        if self._rows("path", key):
            return
        # A literal value in a parameter position that is not a UUID or number: generalise one
        # segment at a time, right to left (ids are usually last).
        segments = key.strip("/").split("/")
        for i in range(len(segments) - 1, -1, -1):
            if segments[i] == "{}":
                continue
            trial = "/" + "/".join([*segments[:i], "{}", *segments[i + 1 :]])
            rows = self._rows("path", f"{method} {trial}") if method else []
            rows = rows or self._rows("path", trial)
            if rows:
                take(rows, 0.75, "normalized")
                return

    def _fuzzy(self, query: str, limit: int) -> list[tuple[int, float]]:
        from rapidfuzz import fuzz, process

        if looks_like_path(query):
            keys, rows = self._family("path")
            target = path_key(strip_path(query)[1])
            hits = process.extract(
                target, keys, scorer=fuzz.ratio, limit=limit * 3, score_cutoff=85
            )
            best: dict[int, float] = {}
            for _, score, slot in hits:
                row = self._checked("path", [rows[slot]])[0]
                best[row] = max(best.get(row, 0.0), score)
            return [(row, 0.85 * score / 100) for row, score in best.items()]
        variants = name_variants(query)
        key = variants[0][0] if variants else compact(query)
        if len(key) < 3:
            return []
        keys, rows = self._first_char_slice(key)
        hits = process.extract(key, keys, scorer=fuzz.ratio, limit=limit, score_cutoff=80)
        found = self._checked("search", [rows[i] for _, _, i in hits])
        return [(row, 0.85 * score / 100) for row, (_, score, _) in zip(found, hits, strict=True)]

    def _candidate(self, row: int, confidence: float, match: str) -> Candidate:
        rec = self.record(row)
        params = record_params(rec)
        summary = rec.get("summary", "")
        if not summary and params and self.kind(row) in OWNED_KINDS:
            summary = " ".join(params[0].description.split())[:SUMMARY_CHARS]
        return Candidate(
            name=self._names[row],
            kind=self.kind(row),
            file=rec.get("file", ""),
            line=int(rec.get("line", 0)),
            url=rec.get("url", ""),
            confidence=round(confidence, 4),
            summary=summary,
            anchor=rec.get("anchor", ""),
            publication=rec.get("publication", ""),
            method=rec.get("method", ""),
            path=rec.get("path", ""),
            operation_id=rec.get("operation_id", ""),
            params=params,
            request_schema=rec.get("request_schema", ""),
            response_schema=rec.get("response_schema", ""),
            deprecated=bool(rec.get("deprecated", False)),
            replacement=rec.get("replacement", ""),
            match=match,
            owner=rec.get("owner", ""),
        )

    # -- completion ----------------------------------------------------------------------------

    def endpoints(self, prefix: str, limit: int = 50) -> list[Candidate]:
        """Endpoint templates whose path starts like `prefix` (completion in string literals)."""
        limit = clamp_count(limit, "limit", MAX_LIMIT, strict=False)
        raw = (prefix or "").strip()[:MAX_QUERY_CHARS]
        method, path = strip_path(raw) if raw else ("", "/")
        typed = raw.strip(QUOTES)
        if typed and "/rest/2.0".startswith(typed.rstrip("/") or "/"):
            path = "/"  # still typing the prefix itself
        want = path.lower()
        if raw.endswith("/") and want != "/":
            want += "/"
        rows = self._prefix_rows("template", want, self.count if method else limit * 4)
        if method:
            rows = [r for r in rows if self._names[r].startswith(method + " ")]
        # One row per endpoint: several pages may document it; rows are ordered by file.
        seen: dict[str, int] = {}
        for row in rows:
            seen.setdefault(self._names[row], row)
        return [self._candidate(row, 0.9, "prefix") for row in list(seen.values())[:limit]]
