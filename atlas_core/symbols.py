"""Identifier resolution and workspace-symbol search over a bundle's identifier table.

The table (``identifiers/`` in a bundle, see ``bundle_spec/SPEC.md``) is plain JSON: hot columns in
``table.json`` that open in a few tens of milliseconds, and one JSON record per row in
``records.jsonl`` read through a memory map only for rows that are returned. This module imports
neither numpy nor rapidfuzz at import time: the language server opens it on its cold-start path,
where ``import numpy`` alone can cost hundreds of milliseconds on a loaded machine.
"""

from __future__ import annotations

import bisect
import json
import logging
import mmap
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from atlas_core.errors import BundleError
from atlas_core.types import Candidate, Deprecation, Param, Symbol

log = logging.getLogger(__name__)

TABLE_FORMAT = "atlas-identifiers"
TABLE_VERSION = 1
TABLE_DIR = "identifiers"
TABLE_FILE = "table.json"
RECORDS_FILE = "records.jsonl"
DEPRECATIONS_FILE = "deprecations.json"
KEYWORD_FILE = "keyword.json"

KIND_ORDER: tuple[str, ...] = (
    "endpoint",
    "operation",
    "schema",
    "type",
    "json_key",
    "cli",
    "graphql",
    "heading",
)
HTTP_METHODS: tuple[str, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
MAX_LIMIT = 100
MAX_QUERY_CHARS = 1000

# ---------------------------------------------------------------------------------------------
# Normalisation, shared with the build side (identifiers.py) so keys agree byte for byte.

_METHOD_RE = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+", re.IGNORECASE)
_SCHEME_HOST_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/\s]*")
# A base URL held in a variable: {base}, ${BASE_URL}, {self.base}, <your_collibra_url>, %7Bbase%7D.
_BASE_VAR_RE = re.compile(r"^(?:\$?\{[^}/]*\}|<[^>/]*>|%7B[^/]*?%7D)+(?=/)", re.IGNORECASE)
# Only the 2.0 prefix is implied by the templates; /rest/1.0 paths are a different (older) API.
_REST_PREFIX_RE = re.compile(r"^/rest/2\.0(?=/|$)")
_PARAM_SEG_RE = re.compile(
    r"^(?:\$?\{[^}]*\}|<[^>]*>|:[A-Za-z_][\w.]*|%7B.*%7D|\[[^\]]*\]|\*)$", re.IGNORECASE
)
_UUID_RE = re.compile(
    r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
)
_NUMBER_RE = re.compile(r"^\d+$")
_NON_ALNUM_RE = re.compile(r"[\W_]+")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*|\d+")
_CALL_SUFFIX_RE = re.compile(r"\([^()]*\)\s*;?$")
_GENERIC_RE = re.compile(r"<[^<>]*>")
_BUILDER_PARTS = frozenset({"builder", "build", "newbuilder", "getinstance", "class", "new"})
_QUOTES = "\"'`"
_QUERY_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from how i in is it many much of on or per the "
    "to what when where which who why with"
)
_QUERY_STOPWORDS = frozenset(_QUERY_STOPWORD_TEXT.split())


def compact(text: str) -> str:
    """Lowercase letters and digits only: findAssets, find_assets, find-assets all meet here."""
    return _NON_ALNUM_RE.sub("", text.lower())


def split_words(text: str) -> list[str]:
    """Lowercased words of an identifier or phrase, splitting camelCase, snake_case and paths."""
    out: list[str] = []
    for token in _WORD_RE.findall(text):
        out.extend(part.lower() for part in _CAMEL_RE.findall(token))
    return out


def initials(text: str) -> str:
    """Camel-hump initials: findAssets -> fa, GET /assets/{assetId} -> gaai."""
    return "".join(word[0] for word in split_words(text))


def strip_path(raw: str) -> tuple[str, str]:
    """Split a REST path spelling into (METHOD or "", path without base, prefix, query, fragment)."""
    text = raw.strip().strip(_QUOTES).strip()
    if text[:2] in ("f'", 'f"', "f`"):
        text = text[2:].strip(_QUOTES)
    method = ""
    m = _METHOD_RE.match(text)
    if m:
        method = m.group(1).upper()
        text = text[m.end() :].strip().strip(_QUOTES)
    text = _SCHEME_HOST_RE.sub("", text)
    text = _BASE_VAR_RE.sub("", text)
    if not text.startswith("/"):
        # A host without a scheme (api.example.com/rest/2.0/...) or a bare "rest/2.0/...".
        first, sep, rest = text.partition("/")
        if first == "rest":
            text = "/" + text
        elif sep and ("." in first or ":" in first):
            text = "/" + rest
        else:
            text = "/" + text
    text = re.split(r"[?#]", text, maxsplit=1)[0]
    text = _REST_PREFIX_RE.sub("", text)
    text = re.sub(r"/{2,}", "/", text).rstrip("/") or "/"
    return method, text


def path_key(path: str) -> str:
    """The normalised form of a path template or a concrete path: params become {}."""
    segments = []
    for seg in path.split("/"):
        if not seg:
            continue
        if _PARAM_SEG_RE.match(seg) or _UUID_RE.match(seg) or _NUMBER_RE.match(seg):
            segments.append("{}")
        else:
            segments.append(seg.lower())
    return "/" + "/".join(segments)


def looks_like_path(text: str) -> bool:
    body = _METHOD_RE.sub("", text.strip().strip(_QUOTES))
    return "/" in body and not re.search(r"\s", body.strip())


def name_variants(raw: str) -> list[tuple[str, float]]:
    """Compact keys to try for a non-path identifier, each with the confidence of a match."""
    text = raw.strip().strip(_QUOTES + ",;").strip()
    variants: list[tuple[str, float]] = []

    def add(key: str, confidence: float) -> None:
        if key and all(key != k for k, _ in variants):
            variants.append((key, confidence))

    # A JSON pair such as "resourceType": "Asset": the key first, then the value.
    if ":" in text and not text.startswith(":") and "::" not in text:
        key, _, value = text.partition(":")
        if key.strip().strip(_QUOTES) and (
            key.strip()[:1] in _QUOTES or value.strip()[:1] in _QUOTES
        ):
            add(compact(key), 0.9)
            add(compact(value), 0.85)
            return variants
    if text.lower().startswith("new "):
        text = text[4:]
    while _CALL_SUFFIX_RE.search(text):
        text = _CALL_SUFFIX_RE.sub("", text).rstrip()
    text = _GENERIC_RE.sub("", text).replace("::", ".").replace("#", ".")
    parts = [p for p in (s.strip() for s in text.split(".")) if p]
    parts = [p for p in parts if compact(p) not in _BUILDER_PARTS] or parts
    text = ".".join(parts)
    add(compact(text), 0.9)
    if len(parts) > 1:
        # assetApi.addAsset: the member is what the cursor means; its owner type comes next.
        add(compact(parts[-1]), 0.9)
        for part in reversed(parts[:-1]):
            add(compact(part), 0.88)
    words = text.split()
    if len(words) > 1:
        # A CLI command with its program name: "collibra data-contract init".
        add(compact(" ".join(words[1:])), 0.85)
    return variants


def _clamp(limit: int, hi: int = MAX_LIMIT) -> int:
    try:
        value = int(limit)
    except (TypeError, ValueError):
        value = 10
    return max(1, min(hi, value))


# ---------------------------------------------------------------------------------------------


class IdentifierIndex:
    """An opened identifier table. Cheap to open; indexes are built from the columns lazily."""

    def __init__(self, directory: Path, table: dict[str, Any], name: str = "") -> None:
        self.directory = directory
        self.bundle_name = name
        self._names: list[str] = table["names"]
        self._kinds: list[int] = table["kind"]
        self._kind_names: list[str] = table["kinds"]
        self._search: list[str] = table["search"]
        self._initials: list[str] = table["initials"]
        self._offsets: list[int] = table["record_offsets"]
        self._name_prev: list[int] = table["name_prev"]
        self._search_prev: list[int] = table["search_prev"]
        self._path_rows: list[int] = table["path_rows"]
        self._path_keys: list[str] = table["path_keys"]
        self._path_prev: list[int] = table["path_prev"]
        self._aliases: list[list[Any]] = table.get("aliases", [])
        self.count = len(self._names)
        self._by_name: dict[str, int] | None = None
        self._by_search: dict[str, int] | None = None
        self._by_path: dict[str, int] | None = None
        self._by_alias: dict[str, list[int]] | None = None
        self._blob: str | None = None
        self._starts: list[int] = []
        self._kw: dict[str, Any] | None = None
        self._deprecations: list[Deprecation] | None = None
        self._templates: list[tuple[str, int]] | None = None
        self._records_file = open(directory / RECORDS_FILE, "rb")  # noqa: SIM115 - held until close()
        try:
            self._records = mmap.mmap(self._records_file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            self._records = b""  # type: ignore[assignment]

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(cls, bundle: Any) -> IdentifierIndex:
        """Open the table of a `Bundle` (anything with ``.file(relpath)``) or of a directory."""
        if hasattr(bundle, "file"):
            directory = Path(bundle.file(f"{TABLE_DIR}/{TABLE_FILE}")).parent
        else:
            directory = Path(bundle)
            if (directory / TABLE_DIR / TABLE_FILE).is_file():
                directory = directory / TABLE_DIR
        path = directory / TABLE_FILE
        try:
            table = json.loads(path.read_bytes())
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
        if table.get("format") != TABLE_FORMAT or table.get("version") != TABLE_VERSION:
            raise BundleError(
                f"identifier table {path} has format {table.get('format')!r} version "
                f"{table.get('version')!r}; this Atlas reads {TABLE_FORMAT} {TABLE_VERSION}",
                hint="upgrade Atlas or rebuild the bundle",
                path=str(path),
            )
        return cls(directory, table)

    def close(self) -> None:
        if isinstance(self._records, mmap.mmap):
            self._records.close()
        self._records_file.close()

    def __len__(self) -> int:
        return self.count

    # -- rows ----------------------------------------------------------------------------------

    def record(self, row: int) -> dict[str, Any]:
        """The cold fields of one row (file, line, url, summary, params, ...)."""
        start, end = self._offsets[row], self._offsets[row + 1]
        return json.loads(self._records[start:end])

    def kind(self, row: int) -> str:
        return self._kind_names[self._kinds[row]]

    def _candidate(self, row: int, confidence: float, match: str) -> Candidate:
        rec = self.record(row)
        return Candidate(
            name=self._names[row],
            kind=self.kind(row),
            file=rec.get("file", ""),
            line=int(rec.get("line", 0)),
            url=rec.get("url", ""),
            confidence=round(confidence, 4),
            summary=rec.get("summary", ""),
            anchor=rec.get("anchor", ""),
            publication=rec.get("publication", ""),
            method=rec.get("method", ""),
            path=rec.get("path", ""),
            operation_id=rec.get("operation_id", ""),
            params=tuple(Param(p[0], p[1], p[2], bool(p[3]), p[4]) for p in rec.get("params", ())),
            request_schema=rec.get("request_schema", ""),
            response_schema=rec.get("response_schema", ""),
            deprecated=bool(rec.get("deprecated", False)),
            replacement=rec.get("replacement", ""),
            match=match,
            bundle=self.bundle_name,
        )

    # -- indexes -------------------------------------------------------------------------------

    def _ensure_dicts(self) -> None:
        if self._by_name is not None:
            return
        # dict(zip(...)) keeps the last row per key; *_prev chains link back to earlier rows.
        self._by_name = dict(zip(self._names, range(self.count), strict=True))
        self._by_search = dict(zip(self._search, range(self.count), strict=True))
        self._by_path = dict(zip(self._path_keys, range(len(self._path_keys)), strict=True))
        aliases: dict[str, list[int]] = {}
        for key, row in self._aliases:
            aliases.setdefault(key, []).append(row)
        self._by_alias = aliases

    @staticmethod
    def _chain(last: int | None, prev: list[int]) -> list[int]:
        rows: list[int] = []
        i = -1 if last is None else last
        while i >= 0:
            rows.append(i)
            i = prev[i]
        rows.reverse()
        return rows

    def _rows_named(self, name: str) -> list[int]:
        assert self._by_name is not None
        return self._chain(self._by_name.get(name), self._name_prev)

    def _rows_compact(self, key: str) -> list[int]:
        assert self._by_search is not None and self._by_alias is not None
        rows = self._chain(self._by_search.get(key), self._search_prev)
        for row in self._by_alias.get(key, ()):
            if row not in rows:
                rows.append(row)
        return rows

    def _rows_path(self, key: str) -> list[int]:
        """Endpoint rows whose normalised path key (with or without METHOD) is `key`."""
        assert self._by_path is not None
        slots = self._chain(self._by_path.get(key), self._path_prev)
        return [self._path_rows[s] for s in slots]

    # -- lookup --------------------------------------------------------------------------------

    def lookup(self, identifier: str, limit: int = 10) -> list[Candidate]:
        """Resolve an identifier as written in code or prose; best candidates first."""
        limit = _clamp(limit)
        query = (identifier or "").strip()[:MAX_QUERY_CHARS]
        if not query or not self.count:
            return []
        self._ensure_dicts()
        found: dict[int, tuple[float, str]] = {}

        def take(rows: Iterable[int], confidence: float, match: str) -> None:
            for row in rows:
                if row not in found or found[row][0] < confidence:
                    found[row] = (confidence, match)

        take(self._rows_named(query), 1.0, "exact")
        if looks_like_path(query):
            method, path = strip_path(query)
            if method:
                take(self._rows_named(f"{method} {path}"), 1.0, "exact")
            else:
                take((r for r in self._rows_named_path(path)), 1.0, "exact")
            self._resolve_path(method, path, take)
        else:
            for key, confidence in name_variants(query):
                take(self._rows_compact(key), confidence, "normalized")
        if not found:
            take_fuzzy = self._fuzzy(query, limit)
            for row, confidence in take_fuzzy:
                take((row,), confidence, "fuzzy")
        if not found:
            return self._keyword(query, limit)
        order = sorted(
            found.items(),
            key=lambda kv: (-kv[1][0], self._kinds[kv[0]], self._method_rank(kv[0]), kv[0]),
        )
        return [self._candidate(row, conf, match) for row, (conf, match) in order[:limit]]

    def _method_rank(self, row: int) -> int:
        """GET before POST before the rest, so a bare path resolves to its read first."""
        if self._kinds[row] != 0:
            return 0
        method = self._names[row].partition(" ")[0]
        return HTTP_METHODS.index(method) if method in HTTP_METHODS else len(HTTP_METHODS)

    def _rows_named_path(self, path: str) -> list[int]:
        """Endpoint rows whose template is exactly `path` (after prefix stripping only)."""
        assert self._by_alias is not None
        return list(self._by_alias.get("path:" + path, ()))

    def _resolve_path(self, method: str, path: str, take: Any) -> None:
        key = path_key(path)
        if method:
            take(self._rows_path(f"{method} {key}"), 0.9, "normalized")
            take(self._rows_path(key), 0.8, "normalized")
        else:
            take(self._rows_path(key), 0.9, "normalized")
        if self._rows_path(key):
            return
        # A literal value in a parameter position that is not a UUID or number: try generalising
        # one segment at a time, right to left (ids are usually last).
        segments = key.strip("/").split("/")
        for i in range(len(segments) - 1, -1, -1):
            if segments[i] == "{}":
                continue
            trial = "/" + "/".join([*segments[:i], "{}", *segments[i + 1 :]])
            rows = self._rows_path(f"{method} {trial}") if method else []
            rows = rows or self._rows_path(trial)
            if rows:
                take(rows, 0.75, "normalized")
                return

    def _fuzzy(self, query: str, limit: int) -> list[tuple[int, float]]:
        from rapidfuzz import fuzz, process

        if looks_like_path(query):
            _, path = strip_path(query)
            choices = self._path_keys
            hits = process.extract(
                path_key(path), choices, scorer=fuzz.ratio, limit=limit * 3, score_cutoff=85
            )
            rows = {}
            for _, score, slot in hits:
                row = self._path_rows[slot]
                rows[row] = max(rows.get(row, 0.0), score)
            return [(row, 0.85 * score / 100) for row, score in rows.items()]
        key = compact(name_variants(query)[0][0] if name_variants(query) else query)
        if len(key) < 3:
            return []
        hits = process.extract(key, self._search, scorer=fuzz.ratio, limit=limit, score_cutoff=80)
        return [(row, 0.85 * score / 100) for _, score, row in hits]

    def _keyword(self, query: str, limit: int) -> list[Candidate]:
        """Token-overlap search over names and summaries when nothing resolves; confidence <= 0.5."""
        if self._kw is None:
            path = self.directory / KEYWORD_FILE
            self._kw = json.loads(path.read_bytes()) if path.is_file() else {"vocab": {}}
        vocab: dict[str, list[int]] = self._kw["vocab"]
        tokens: set[str] = set()
        for word in {*split_words(query), compact(query)} - _QUERY_STOPWORDS:
            # Plural and singular meet without stemming the table: page/pages, item/items.
            tokens.update((word, word + "s", word[:-1] if word.endswith("s") else word))
        scores: dict[int, float] = {}
        for token in tokens:
            postings = vocab.get(token)
            if not postings:
                continue
            idf = 1.0 / (1.0 + len(postings) ** 0.5)
            for packed in postings:
                row, weight = divmod(packed, 4)
                scores[row] = scores.get(row, 0.0) + idf * weight
        if not scores:
            return []
        best = max(scores.values())
        order = sorted(scores.items(), key=lambda kv: (-kv[1], self._kinds[kv[0]], kv[0]))[:limit]
        return [self._candidate(row, 0.5 * score / best, "keyword") for row, score in order]

    # -- symbols -------------------------------------------------------------------------------

    def _ensure_blob(self) -> None:
        if self._blob is not None:
            return
        starts = []
        pos = 1
        for s in self._search:
            starts.append(pos)
            pos += len(s) + 1
        self._starts = starts
        self._blob = "\n" + "\n".join(self._search) + "\n"
        self._initials_blob = "\n" + "\n".join(self._initials) + "\n"
        self._initial_starts = []
        pos = 1
        for s in self._initials:
            self._initial_starts.append(pos)
            pos += len(s) + 1

    def _row_at(self, starts: list[int], pos: int) -> int:
        return bisect.bisect_right(starts, pos) - 1

    def symbols(self, query: str, limit: int = 50) -> list[Symbol]:
        """Fuzzy workspace-symbol search: exact, then prefix, camel humps, substring, fuzzy."""
        limit = _clamp(limit, 1000)
        q = compact((query or "")[:MAX_QUERY_CHARS])
        if not self.count:
            return []
        if not q:
            order = sorted(range(self.count), key=lambda r: (self._kinds[r], r))[:limit]
            return [self._symbol(row, 1.0) for row in order]
        self._ensure_dicts()
        self._ensure_blob()
        assert self._blob is not None
        scores: dict[int, float] = {}
        cap = max(2000, limit * 20)

        def offer(row: int, score: float) -> None:
            if score > scores.get(row, 0.0):
                scores[row] = score

        # Symbols match what the user sees, so aliases (an endpoint's operationId) do not count.
        assert self._by_search is not None
        for row in self._chain(self._by_search.get(q), self._search_prev):
            offer(row, 100.0)
        for row in self._rows_named(query.strip()):
            offer(row, 100.0)
        for n, m in enumerate(re.finditer(re.escape(q), self._blob), 1):
            row = self._row_at(self._starts, m.start())
            length = len(self._search[row]) or 1
            if m.start() == self._starts[row]:
                offer(row, 90.0 + 9.0 * len(q) / length)
            else:
                offer(row, 70.0 + 9.0 * len(q) / length)
            if n >= cap:
                break
        if 1 < len(q) <= 8:
            for n, m in enumerate(re.finditer("\n" + re.escape(q), self._initials_blob), 1):
                row = self._row_at(self._initial_starts, m.start() + 1)
                exact = len(self._initials[row]) == len(q)
                offer(row, 88.0 if exact else 82.0)
                if n >= cap:
                    break
        if len(scores) < limit and len(q) >= 3:
            from rapidfuzz import fuzz, process

            for _, score, row in process.extract(
                q, self._search, scorer=fuzz.ratio, limit=limit, score_cutoff=60
            ):
                offer(row, 0.69 * score)
        order = sorted(
            scores.items(),
            key=lambda kv: (-kv[1], self._kinds[kv[0]], len(self._search[kv[0]]), kv[0]),
        )[:limit]
        return [self._symbol(row, score / 100.0) for row, score in order]

    def _symbol(self, row: int, score: float) -> Symbol:
        rec = self.record(row)
        return Symbol(
            name=self._names[row],
            kind=self.kind(row),
            file=rec.get("file", ""),
            line=int(rec.get("line", 0)),
            url=rec.get("url", ""),
            score=round(score, 4),
            container=rec.get("publication", "") or rec.get("file", ""),
            bundle=self.bundle_name,
        )

    # -- completion and deprecations -----------------------------------------------------------

    def endpoints(self, prefix: str, limit: int = 50) -> list[Candidate]:
        """Endpoint templates whose path starts like `prefix` (completion in string literals)."""
        limit = _clamp(limit)
        raw = (prefix or "").strip()[:MAX_QUERY_CHARS]
        self._ensure_dicts()
        method, path = strip_path(raw) if raw else ("", "/")
        if raw and "/rest/2.0".startswith(raw.strip(_QUOTES).rstrip("/") or "/"):
            path = "/"  # still typing the prefix itself
        want = path.lower()
        if raw.endswith("/") and want != "/":
            want += "/"
        templates = self._endpoint_templates()
        out: list[int] = []
        i = bisect.bisect_left(templates, (want, -1))
        while i < len(templates) and templates[i][0].startswith(want) and len(out) < limit:
            row = templates[i][1]
            if not method or self._names[row].startswith(method + " "):
                out.append(row)
            i += 1
        return [self._candidate(row, 0.9, "prefix") for row in out]

    def _endpoint_templates(self) -> list[tuple[str, int]]:
        if self._templates is None:
            rows = set(self._path_rows)
            self._templates = sorted((self._names[r].partition(" ")[2].lower(), r) for r in rows)
        return self._templates

    def deprecations(self) -> list[Deprecation]:
        if self._deprecations is None:
            path = self.directory / DEPRECATIONS_FILE
            rows = json.loads(path.read_bytes()) if path.is_file() else []
            self._deprecations = [
                Deprecation(
                    term=d["term"],
                    replacement=d.get("replacement", ""),
                    file=d.get("file", ""),
                    line=int(d.get("line", 0)),
                    url=d.get("url", ""),
                    note=d.get("note", ""),
                    whole_word=bool(d.get("whole_word", True)),
                )
                for d in rows
            ]
        return list(self._deprecations)
