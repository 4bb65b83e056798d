"""Identifier resolution and workspace-symbol search over a bundle's identifier table.

The table (``identifiers/`` in a bundle, written by `atlas_core.identifiers.table`, byte layout in
``bundle_spec/SPEC.md``) is sorted key files, small ``.npy`` arrays and JSON records. Lookups bisect
sorted key files, so opening builds no dictionaries, and JSON is decoded only for returned rows.
This module imports neither numpy nor rapidfuzz at import time: the language server opens it on
its cold-start path, where ``import numpy`` alone can cost hundreds of milliseconds.
"""

from __future__ import annotations

import heapq
import logging
import mmap
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from itertools import accumulate
from pathlib import Path
from typing import Any, TypeVar

from atlas_core.errors import BundleError
from atlas_core.identifiers.checks import checked_record, meta_problem, offsets_problem
from atlas_core.identifiers.mentions import MENTIONS_DIR, MentionIndex
from atlas_core.identifiers.normalize import (
    HTTP_METHODS,
    QUOTES,
    compact,
    looks_like_path,
    name_variants,
    path_key,
    split_words,
    strip_path,
)
from atlas_core.identifiers.ranking import (
    BASE_VARIANT,
    MATCH_TIERS,
    Evidence,
    Ranked,
    Spelling,
    calibrated,
    evidence_by_file,
    mention_candidate,
    style_clash,
)
from atlas_core.identifiers.table import (
    DEPRECATIONS_FILE,
    GENERATED_FILE,
    META_FILE,
    OWNED_KINDS,
    RECORDS_FILE,
    TABLE_DIR,
    TABLE_FORMAT,
    TABLE_VERSION,
    WEIGHT_FILE,
    read_deprecations,
    read_lines,
    read_npy,
)
from atlas_core.safeio import MAX_RECORD_DEPTH, loads_bounded, read_json
from atlas_core.search import MAX_LIMIT, MAX_QUERY_CHARS, clamp_count
from atlas_core.types import Candidate, Definition, Deprecation, Param, Symbol

# Normalisation helpers stay importable from here, where the resolver's callers look for them.
__all__ = ["IdentifierIndex", "compact", "name_variants", "path_key", "split_words", "strip_path"]

log = logging.getLogger(__name__)
T = TypeVar("T")

# Best rows whose file is read to spread a list over files: enough that pages naming a heading a
# dozen times each ("Parameters" under every operation) cannot fill the list, and a bound on the
# work for a name found hundreds of times.
DIVERSIFY_MIN_ROWS = 100
# Candidates tied at the top whose records are read to settle the tie.
TIE_ROWS = 32
SUMMARY_CHARS = 400  # a parameter's description shown as its candidate's summary
# Rows of one name read for its definitions: `id` or `name` is a property of hundreds of schemas,
# and no list a person reads needs more.
MAX_DEFINITION_ROWS = 200
MAX_CACHED_DEFINITIONS = 20_000  # decoded definitions kept (a few MB at most)
MAX_REMEMBERED_ANSWERS = 1024  # lookup and definitions answers kept, the oldest dropped first


class IdentifierIndex:
    """An opened identifier table. Opening reads names and two small arrays; the sorted key
    families, the substring blob and the keyword index load on first use."""

    def __init__(self, directory: Path, meta: dict[str, Any]) -> None:
        self.directory = directory
        self.meta = meta
        self._kind_names: list[str] = list(meta["kinds"])
        self._names = self._load(directory / "names.txt", read_lines)
        self._kinds = self._load(directory / "kind.npy", read_npy)
        offsets_path = directory / "record_offsets.npy"
        self._offsets = self._load(offsets_path, read_npy)
        self.count = len(self._names)
        if len(self._kinds) != self.count or len(self._offsets) != self.count + 1:
            raise _damaged(
                directory,
                f"names.txt ({self.count}), kind.npy ({len(self._kinds)}) and "
                f"record_offsets.npy ({len(self._offsets)} - 1) disagree on the row count",
            )
        # bytes.translate deletes the valid codes in one C pass; max() over an array of 100,000
        # rows would box each value, a few milliseconds of the language server's cold start.
        valid = bytes(range(min(len(self._kind_names), 256)))
        if self._kinds.tobytes().translate(None, valid):
            raise _damaged(
                directory / "kind.npy",
                f"holds kind {max(self._kinds)}, meta.json names {len(self._kind_names)} kinds",
            )
        self._families: dict[str, tuple[list[str], array]] = {}
        self._search: list[str] | None = None
        self._blob = ""
        self._starts: list[int] = []
        self._mentions: MentionIndex | None = None
        self._mentions_opened = False
        self._row_files: dict[int, str] = {}
        # Decoded definitions by row: a hover inside a call asks for the same common names
        # (`limit`, `offset`, `name`: up to 200 rows each) again and again.
        self._definition_cache: dict[int, Definition] = {}
        # Answers of `lookup` and `definitions` by their arguments (insertion order: oldest first).
        self._answers: dict[tuple, tuple] = {}
        self._heading_kind = (
            self._kind_names.index("heading") if "heading" in self._kind_names else -1
        )
        self._ranking: tuple[array | None, array | None] | None = None
        self._deprecations: list[Deprecation] | None = None
        self._deprecated: dict[str, str] | None = None
        self._records_file = self._load(directory / RECORDS_FILE, _open_binary)
        try:
            self._records: mmap.mmap | bytes = mmap.mmap(
                self._records_file.fileno(), 0, access=mmap.ACCESS_READ
            )
        except ValueError:  # an empty file cannot be mapped
            self._records = b""
        # Only the ends here (opening stays O(1) in the records); a record whose offsets are out
        # of order fails to decode, and `record` names the file then.
        problem = offsets_problem(self._offsets, len(self._records), ordered=False)
        if problem:
            self.close()
            raise _damaged(offsets_path, f"{problem} (the size of {RECORDS_FILE})")

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(cls, bundle: Any) -> IdentifierIndex:
        """Open the table of a `Bundle` (anything with ``.file(relpath)``) or of a directory
        (the bundle directory or its ``identifiers/`` folder)."""
        if hasattr(bundle, "file"):
            directory = Path(bundle.file(f"{TABLE_DIR}/{META_FILE}")).parent
        else:
            directory = Path(bundle)
            if (directory / TABLE_DIR / META_FILE).is_file():
                directory = directory / TABLE_DIR
        path = directory / META_FILE
        try:
            meta = read_json(path)
        except FileNotFoundError:
            raise BundleError(
                f"identifier table missing: {path}",
                hint="rebuild the bundle with `atlas build`",
                path=str(path),
            ) from None
        except (OSError, ValueError) as exc:
            raise BundleError(
                f"identifier table unreadable: {path}: {exc}",
                hint="the bundle is corrupt; run `atlas verify` and rebuild or re-download it",
                path=str(path),
            ) from None
        if not isinstance(meta, dict) or (meta.get("format"), meta.get("version")) != (
            TABLE_FORMAT,
            TABLE_VERSION,
        ):
            found = (meta.get("format"), meta.get("version")) if isinstance(meta, dict) else meta
            raise BundleError(
                f"identifier table {path} has format/version {found!r}; this Atlas reads "
                f"{TABLE_FORMAT} version {TABLE_VERSION}",
                hint="upgrade Atlas or rebuild the bundle",
                path=str(path),
            )
        problem = meta_problem(meta)
        if problem:
            raise _damaged(path, problem)
        try:
            return cls(directory, meta)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise _damaged(directory, str(exc)) from None

    def close(self) -> None:
        if self._mentions is not None:
            self._mentions.close()
        if isinstance(self._records, mmap.mmap):
            self._records.close()
        self._records_file.close()

    def __len__(self) -> int:
        return self.count

    # -- rows ----------------------------------------------------------------------------------

    def record(self, row: int, *, full: bool = True) -> dict[str, Any]:
        """The cold fields of one row (file, line, url, summary, params, ...), checked: all of
        them, or (not `full`) the file, line, url and publication a symbol shows."""
        start, end = self._offsets[row], self._offsets[row + 1]
        try:
            raw = self._records[start:end]
            # Written by Python's encoder, which lets an example value be NaN.
            record = loads_bounded(raw, max_depth=MAX_RECORD_DEPTH, rfc8259=False)
            return checked_record(record, full=full)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError too
            # Either file may be the damaged one: the record, or the offsets that cut it out.
            where = f"row {row} (bytes {start}-{end} by record_offsets.npy)"
            raise _damaged(self.directory / RECORDS_FILE, f"{where}: {exc}") from None

    def _file_of(self, row: int) -> str:
        """A row's file without decoding its whole record: the writer puts ``"file"`` first, so
        the name is the bytes up to ``","line":``; any other layout is decoded in full."""
        start, end = self._offsets[row], self._offsets[row + 1]
        head = self._records[start : min(end, start + 600)]
        stop = head.find(b'","line":')
        if head.startswith(b'{"file":"') and stop > 0 and b"\\" not in head[9:stop]:
            try:
                return head[9:stop].decode("utf-8")
            except UnicodeDecodeError:
                pass  # decoded in full below, which names the damaged file
        return str(self.record(row, full=False)["file"])

    def kind(self, row: int) -> str:
        return self._kind_names[self._kinds[row]]

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

    # -- sorted key families -------------------------------------------------------------------

    def _family(self, name: str) -> tuple[list[str], array]:
        fam = self._families.get(name)
        if fam is None:
            keys_path = self.directory / f"keys_{name}.txt"
            rows_path = self.directory / f"rows_{name}.npy"
            keys = self._load(keys_path, read_lines)
            rows = self._load(rows_path, read_npy)
            if len(keys) != len(rows):
                raise _damaged(rows_path, f"{len(rows)} rows for the {len(keys)} keys")
            fam = self._families[name] = (keys, rows)
        return fam

    def _checked(self, family: str, rows: list[int]) -> list[int]:
        """Rows read from a key family, each checked as it is used (checking a whole family on
        load would cost the cold start more than the lookup): one outside the table means the
        file is damaged, and a negative one would otherwise name a row from the end."""
        if rows and (min(rows) < 0 or max(rows) >= self.count):
            bad = next(row for row in rows if not 0 <= row < self.count)
            raise _damaged(
                self.directory / f"rows_{family}.npy",
                f"holds row {bad}, the table has rows 0 to {self.count - 1}",
            )
        return rows

    @staticmethod
    def _load(path: Path, read: Callable[[Path], T]) -> T:
        """One lazily read file of the table; BundleError naming it when it is damaged or gone."""
        try:
            return read(path)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise _damaged(path, str(exc)) from None

    def _rows(self, family: str, key: str) -> list[int]:
        keys, rows = self._family(family)
        i = bisect_left(keys, key)
        j = bisect_right(keys, key, i)
        return self._checked(family, list(rows[i:j]))

    def _prefix_rows(self, family: str, prefix: str, cap: int) -> list[int]:
        keys, rows = self._family(family)
        i = bisect_left(keys, prefix)
        j = bisect_left(keys, prefix + "\U0010ffff", i)
        return self._checked(family, list(rows[i : min(j, i + cap)]))

    def _rows_named(self, name: str) -> list[int]:
        """Rows whose display name is exactly `name` (equal names have equal compact keys)."""
        return [r for r in self._rows("search", compact(name)) if self._names[r] == name]

    def _rows_compact(self, key: str) -> list[int]:
        rows = self._rows("search", key)
        rows.extend(r for r in self._rows("alias", key) if r not in rows)
        return rows

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
        best = heapq.nsmallest(max(limit * 4, DIVERSIFY_MIN_ROWS), items, key=Ranked.key)
        return self._diversified(calibrated(self._schema_properties_first(best)), limit)

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

    def mentions(self) -> MentionIndex | None:
        """The bundle's mention index beside this table; None for a bundle built before it."""
        if not self._mentions_opened:
            self._mentions_opened = True
            if self.directory.name == TABLE_DIR:
                self._mentions = MentionIndex.open(self.directory.parent / MENTIONS_DIR)
        return self._mentions

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
            self._resolve_path(method, path, take)
            # The same path under another base the docs or specs use, both ways round.
            for variant in spelling.path_variants[1:]:
                if not found:
                    take(self._rows("alias", "path:" + variant), BASE_VARIANT, "normalized")
                    self._resolve_path(
                        method, variant, lambda r, c, m: take(r, c * BASE_VARIANT, m)
                    )
        else:
            for n, token in enumerate(spelling.tokens):
                take(self._rows_named(token), 0.9 if n else 1.0, "normalized" if n else "exact")
            for key, confidence in name_variants(query):
                take(self._rows_compact(key), confidence, "normalized")
        return found

    def _ranking_arrays(self) -> tuple[array | None, array | None]:
        """Per-row section weight and generated-page flag; None for a table written before them
        (its rows of one name are still in the builder's order of preference)."""
        if self._ranking is None:
            arrays: list[array | None] = []
            for name in (WEIGHT_FILE, GENERATED_FILE):
                path = self.directory / name
                try:
                    arr = read_npy(path) if path.is_file() else None
                    if arr is not None and len(arr) != self.count:
                        raise ValueError(f"{len(arr)} rows, the table has {self.count}")
                except (OSError, ValueError) as exc:
                    raise BundleError(
                        f"identifier table unreadable: {path}: {exc}",
                        hint="the bundle is corrupt; run `atlas verify` and rebuild or re-download it",
                        path=str(path),
                    ) from None
                arrays.append(arr)
            self._ranking = (arrays[0], arrays[1])
        return self._ranking

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
        return [
            self._candidate(item.row, item.confidence, item.match)
            if item.row is not None
            else mention_candidate(item, self._deprecated_terms())
            for item in out[:limit]
        ]

    def _method_rank(self, row: int) -> int:
        """GET before POST before the rest, so a bare path resolves to its read first."""
        if self._kinds[row] != 0:
            return 0
        method = self._names[row].partition(" ")[0]
        return HTTP_METHODS.index(method) if method in HTTP_METHODS else len(HTTP_METHODS)

    def _resolve_path(self, method: str, path: str, take: Any) -> None:
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

    def _search_list(self) -> list[str]:
        if self._search is None:
            path = self.directory / "search.txt"
            search = self._load(path, lambda p: read_lines(p, self.count))
            if len(search) != self.count:
                raise _damaged(path, f"{len(search)} keys for {self.count} rows")
            self._search = search
        return self._search

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

    def _first_char_slice(self, key: str) -> tuple[list[str], array]:
        """Sorted search keys sharing the first character of `key`: a contiguous slice, so the
        fuzzy scorer sees a few thousand choices instead of every row. A typo in the very first
        character is the price; people type the start of a name right."""
        keys, rows = self._family("search")
        i = bisect_left(keys, key[0])
        j = bisect_left(keys, key[0] + "\U0010ffff", i)
        return keys[i:j], rows[i:j]  # callers check the rows they use

    # -- parameter and property definitions ----------------------------------------------------

    def definitions(
        self,
        name: str,
        *,
        method: str = "",
        path: str = "",
        schema: str = "",
        limit: int = 50,
    ) -> list[Definition]:
        """`_definitions`, remembered as `lookup` is."""
        key = ("definitions", name, method, path, schema, limit)
        found = self._answers.get(key)
        if found is None:
            found = self._remember(
                key, self._definitions(name, method=method, path=path, schema=schema, limit=limit)
            )
        return list(found)

    def _remember(self, key: tuple, answer: list) -> tuple:
        if len(self._answers) >= MAX_REMEMBERED_ANSWERS:
            self._answers.pop(next(iter(self._answers)))  # the oldest
        found = self._answers[key] = tuple(answer)
        return found

    def _definitions(
        self,
        name: str,
        *,
        method: str = "",
        path: str = "",
        schema: str = "",
        limit: int = 50,
    ) -> list[Definition]:
        """The parameter and property definitions of `name`, most common meaning first.

        `name` is matched exactly and by its compact key (``name_match_mode`` finds
        ``nameMatchMode``). `method` and `path` keep one operation's own parameters and the
        properties of its request and response schemas; `schema` keeps that schema's properties.
        Each definition's `meaning` counts the definitions sharing its kind, location and JSON
        type; groups come largest first, in table order within a group. At most
        `MAX_DEFINITION_ROWS` rows of a name are read."""
        limit = clamp_count(limit, "limit", MAX_LIMIT, strict=False)
        query = (name or "").strip()[:MAX_QUERY_CHARS]
        key = compact(query)
        if not key or not self.count:
            return []
        owned = {self._kind_names.index(k) for k in OWNED_KINDS if k in self._kind_names}
        if not owned:
            return []  # a table written before parameters and properties were
        rows = [r for r in self._rows_named(query) if self._kinds[r] in owned]
        rows += [r for r in self._rows("search", key) if self._kinds[r] in owned and r not in rows]
        found = [self._definition(row) for row in rows[:MAX_DEFINITION_ROWS]]
        if method or path or schema:
            schemas = {schema} if schema else set()
            if path:
                schemas |= self._operation_schemas(method, path)
            template = path_key(strip_path(path)[1]) if path else ""
            found = [
                d
                for d in found
                if (d.owner and d.owner in schemas)
                or (
                    template
                    and path_key(d.path) == template
                    and (not method or d.method == method.upper())
                )
            ]
        meaning = Counter(_meaning(d) for d in found)
        found.sort(key=lambda d: -meaning[_meaning(d)])  # stable: table order within a meaning
        return [replace(d, meaning=meaning[_meaning(d)]) for d in found[:limit]]

    def _definition(self, row: int) -> Definition:
        cached = self._definition_cache.get(row)
        if cached is None:
            if len(self._definition_cache) >= MAX_CACHED_DEFINITIONS:
                self._definition_cache.clear()
            cached = self._definition_cache[row] = self._decode_definition(row)
        return cached

    def _decode_definition(self, row: int) -> Definition:
        rec = self.record(row)
        params = record_params(rec)
        p = params[0] if params else Param(self._names[row], "")
        return Definition(
            name=self._names[row],
            kind=self.kind(row),
            location=p.location,
            type=p.type,
            required=p.required,
            description=p.description,
            file=rec["file"],
            line=rec["line"],
            format=p.format,
            enum=p.enum,
            default=p.default,
            owner=rec.get("owner", ""),
            method=rec.get("method", ""),
            path=rec.get("path", ""),
            operation_id=rec.get("operation_id", ""),
            anchor=rec.get("anchor", ""),
            url=rec.get("url", ""),
            publication=rec.get("publication", ""),
            example=p.example,
            deprecated=p.deprecated,
        )

    def _operation_schemas(self, method: str, path: str) -> set[str]:
        """The request and response schemas of the endpoints `method` and `path` name."""
        key = path_key(strip_path(path)[1])
        rows = self._rows("path", f"{method.upper()} {key}" if method else key)
        out: set[str] = set()
        for row in rows[:MAX_DEFINITION_ROWS]:
            rec = self.record(row)
            out.update(filter(None, (rec.get("request_schema"), rec.get("response_schema"))))
        return out

    # -- symbols -------------------------------------------------------------------------------

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

    # -- the API model -------------------------------------------------------------------------

    def endpoint_rows(self) -> Iterator[tuple[str, dict[str, Any], tuple[Param, ...]]]:
        """(name, record, params) of every endpoint row, in table order (`apicheck`)."""
        if "endpoint" not in self._kind_names:
            return
        kind = self._kind_names.index("endpoint")
        for row in range(self.count):
            if self._kinds[row] == kind:
                rec = self.record(row)
                yield self._names[row], rec, record_params(rec)

    def rows_of(self, kinds: Iterable[str]) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(kind, name, record) of every row of `kinds`, in table order (`changes`)."""
        codes = {self._kind_names.index(k) for k in kinds if k in self._kind_names}
        for row in range(self.count):
            if self._kinds[row] in codes:
                yield self.kind(row), self._names[row], self.record(row)

    def schema_params(self, name: str, publication: str = "") -> tuple[Param, ...] | None:
        """The properties of the schema `name` (from `publication` when several have one), or
        None when the table has no such schema."""
        if "schema" not in self._kind_names:
            return None
        kind = self._kind_names.index("schema")
        found = None
        for row in self._rows_named(name):
            if self._kinds[row] != kind:
                continue
            rec = self.record(row)
            if found is None or rec.get("publication") == publication:
                found = record_params(rec)
                if rec.get("publication") == publication:
                    break
        return found

    # -- completion and deprecations -----------------------------------------------------------

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

    def _deprecated_terms(self) -> dict[str, str]:
        """Deprecated term -> its replacement ("" when the docs give none), for mentions."""
        if self._deprecated is None:
            self._deprecated = {d.term: d.replacement for d in self.deprecations()}
        return self._deprecated

    def deprecations(self) -> list[Deprecation]:
        if self._deprecations is None:
            self._deprecations = self._load(
                self.directory / DEPRECATIONS_FILE, lambda path: read_deprecations(path.parent)
            )
        return list(self._deprecations)


# A generated client's type names for the spec's JSON types: `str` and `string` mean the same.
_TYPE_FAMILIES = {"str": "string", "int": "integer", "bool": "boolean", "float": "number"}


def _meaning(d: Definition) -> tuple[str, str, str]:
    """What a definition means, apart from its owner: kind, location and JSON type (a spec's
    `string (uuid)` and a client's `str` are one meaning)."""
    family = d.type.split(" ", 1)[0].split("[", 1)[0].lower()
    return (d.kind, d.location, _TYPE_FAMILIES.get(family, family))


def record_params(rec: dict[str, Any]) -> tuple[Param, ...]:
    """A checked record's params with their format, values, default and example
    (`param_details`, absent in tables written before them)."""
    raw = rec.get("params", ())
    details = rec.get("param_details") or [{}] * len(raw)
    return tuple(
        Param(
            p[0],
            p[1],
            p[2],
            bool(p[3]),
            p[4],
            format=d.get("format", ""),
            enum=tuple(d.get("enum", ())),
            default=d.get("default", ""),
            deprecated=d.get("deprecated", False),
            example=d.get("example", ""),
        )
        for p, d in zip(raw, details, strict=True)
    )


def _open_binary(path: Path) -> Any:
    return open(path, "rb")  # held by the index until close()


def _damaged(path: Path, reason: str) -> BundleError:
    return BundleError(
        f"identifier table unreadable: {path}: {reason}",
        hint="run `atlas verify` on the bundle, then re-download it (`atlas download`) or "
        "rebuild it (`atlas build`)",
        path=str(path),
    )
