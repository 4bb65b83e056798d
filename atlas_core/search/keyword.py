"""Fielded BM25, precomputed at build time into one term-by-chunk sparse matrix.

Build time (`write_keyword_index`): every chunk is tokenized per field (text, title, heading, file
path); the BM25F pseudo term frequency ``sum_f w_f * tf_f / (1 - b + b * len_f / avglen_f)`` is
saturated with ``k1`` and multiplied by the term's idf, so each stored value is the term's whole
contribution to the chunk's score. The matrix is stored in CSR form, one row per vocabulary term:

    keyword/indptr.npy   int64   (n_terms + 1,)
    keyword/indices.npy  int32   (nnz,)   chunk rows, increasing within a term's row
    keyword/data.npy     float32 (nnz,)   idf * saturated weighted tf
    keyword/vocab.txt    UTF-8, one term per line, line i = matrix row i (sorted)
    keyword/synonyms.json  optional: query word -> associated terms (`atlas_core.search.synonyms`)

Query time (`KeywordIndex`) needs numpy only: a query adds its terms' rows into one dense score
vector. Because the parameters are folded in, changing k1, b or a field weight means rewriting the
index (cheap: no embedding involved).
"""

from __future__ import annotations

import bisect
import functools
import logging
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

import numpy as np

from atlas_core.errors import BundleError
from atlas_core.safeio import MAX_JSON_BYTES, read_regular
from atlas_core.search.synonyms import (
    SYNONYMS_FILE,
    SynonymTable,
    mine_table,
    write_synonyms,
)
from atlas_core.search.synonyms import parse as parse_synonyms
from atlas_core.search.synonyms import section as synonyms_section
from atlas_core.search.tokenize import (
    TOKENIZER_VERSION,
    expand_query,
    joined_terms,
    query_terms,
    tokenize,
)
from atlas_core.types import Chunk, Problem

log = logging.getLogger(__name__)

KEYWORD_DIR = "keyword"
FILES = ("indptr.npy", "indices.npy", "data.npy", "vocab.txt")
# Tuned on benchmarks/dev_queries.jsonl (62 questions over 4,431 chunks of the Collibra docs,
# started from k1 2.0, b 0.7): lower k1 and b scored better on both random halves of the set, in a
# flat region (k1 0.6-1.2, b 0.3-0.5 within 0.015 MRR). Chunks are capped at 256 tokens, so length
# normalisation has little real variation to correct. Field weights stayed at their start values.
DEFAULT_K1 = 0.9
DEFAULT_B = 0.3
DEFAULT_FIELD_WEIGHTS: Mapping[str, float] = {
    "text": 1.0,
    "title": 3.0,
    "heading": 2.0,
    "path": 2.5,
}
FIELDS = ("text", "title", "heading", "path")
# Query-side inflections (assets for asset) count less than the word the user typed.
VARIANT_WEIGHT = 0.5
# A compound spelled out in the query's words (send notification -> sendnotification), below the
# typed words. On benchmarks/dev_queries.jsonl weights 0.5 to 1.0 gave the questions the same
# hybrid MRR@10 (0.789 -> 0.797); identifiers typed as words ranked 0.557 -> 0.735 (keyword mode).
JOIN_WEIGHT = 0.5
# Mining keyword/synonyms.json is off by default. On benchmarks/dev_queries.jsonl the table of
# the Collibra docs (342 words, from operation summaries, parameter descriptions and headings)
# moved the 62 questions' hybrid MRR@10 by +0.003 and keyword MRR@10 by -0.002 (Recall@5 -0.014),
# single questions flipping both ways: the paraphrases that fail use words the docs never write,
# and what the docs do pair up is mostly API boilerplate. A bundle holding a table still uses it.
MINE_SYNONYMS = False
# New terms `TermCounts.ranks` inserts one by one; more are sorted with the rest.
_INSERT_AT_MOST = 1000


@functools.lru_cache(maxsize=65536)
def _path_field(file: str) -> str:
    # the extension says nothing about the topic; the folder and stem do
    path = PurePosixPath(file)
    return str(path.with_suffix("")) if path.suffix else file


def _field_texts(chunk: Chunk) -> dict[str, str]:
    # Source code (a `code` source's chunk): what was embedded, which adds the enclosing class's
    # first sentence and a later part's signature to the code.
    source = chunk.language and chunk.embed_text
    return {
        "text": source or chunk.text or chunk.embed_text,
        "title": chunk.title,
        "heading": chunk.heading,
        "path": _path_field(chunk.file),
    }


@dataclass(frozen=True, slots=True)
class _Counted:
    """One chunk's term counts: parallel arrays over (field, term) pairs, and tokens per field."""

    fields: np.ndarray  # int8: index into TermCounts.fields
    terms: np.ndarray  # int64: index into TermCounts.terms
    tfs: np.ndarray  # float64: occurrences of the term in the field
    lengths: tuple[int, ...]  # tokens per field, in TermCounts.fields order


class TermCounts:
    """Per-chunk term counts of every field: the expensive, parameter-free half of indexing.

    Kept by each chunk's field texts, so a rebuild of a corpus that changed a little (`atlas index
    --watch`) tokenizes only the chunks it has not seen; a build without one counts every chunk
    once. The vocabulary only grows; the counts are pruned to the last build's chunks."""

    def __init__(self, fields: Iterable[str] = FIELDS) -> None:
        self.fields = tuple(fields)
        self.vocab: dict[str, int] = {}
        self.terms: list[str] = []
        self._rows: dict[tuple[str, ...], _Counted] = {}
        self._sorted: list[str] = []  # the vocabulary in name order, as of `ranks`' last call
        self._ranks = np.zeros(0, dtype=np.int64)

    def ranks(self) -> tuple[np.ndarray, list[str]]:
        """(each term id's position in name order, the terms in that order). A vocabulary that
        grew by a few terms since the last call has them put in place, not sorted again."""
        new = self.terms[len(self._sorted) :]
        if not new:
            return self._ranks, self._sorted
        if len(new) <= _INSERT_AT_MOST:
            for term in new:
                bisect.insort(self._sorted, term)
        else:
            self._sorted = sorted(self.terms)
        order = np.fromiter(
            (self.vocab[t] for t in self._sorted), dtype=np.int64, count=len(self._sorted)
        )
        self._ranks = np.empty(len(order), dtype=np.int64)
        self._ranks[order] = np.arange(len(order), dtype=np.int64)
        return self._ranks, self._sorted

    def count(self, chunks: Sequence[Chunk]) -> list[_Counted]:
        """Each chunk's counts, in order; forgets the chunks of earlier calls that are gone."""
        rows: dict[tuple[str, ...], _Counted] = {}
        out = []
        for chunk in chunks:
            texts = _field_texts(chunk)
            key = tuple(texts[f] for f in self.fields)
            found = rows.get(key) or self._rows.get(key)
            if found is None:
                found = self._count(key)
            rows[key] = found
            out.append(found)
        self._rows = rows
        return out

    def _count(self, texts: tuple[str, ...]) -> _Counted:
        fields: list[int] = []
        terms: list[int] = []
        tfs: list[int] = []
        lengths = []
        for index, text in enumerate(texts):
            counts = Counter(tokenize(text))
            lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                term_id = self.vocab.get(term)
                if term_id is None:
                    term_id = self.vocab[term] = len(self.terms)
                    self.terms.append(term)
                fields.append(index)
                terms.append(term_id)
                tfs.append(tf)
        return _Counted(
            np.asarray(fields, dtype=np.int8),
            np.asarray(terms, dtype=np.int64),
            np.asarray(tfs, dtype=np.float64),
            tuple(lengths),
        )


def build_matrix(
    chunks: Sequence[Chunk],
    *,
    k1: float = DEFAULT_K1,
    b: float = DEFAULT_B,
    field_weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS,
    counts: TermCounts | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Vocabulary and CSR arrays (indptr, indices, data) for `chunks` with the given parameters.

    `counts` keeps term counts between builds (see `TermCounts`); the result does not depend on
    whether it held them already."""
    counter = counts if counts is not None else TermCounts()
    rows = counter.count(chunks)
    n = len(rows)
    width = len(counter.fields)
    weight = np.asarray([float(field_weights.get(f, 0.0)) for f in counter.fields])
    lengths = np.asarray([r.lengths for r in rows], dtype=np.float64).reshape(n, width)
    avg = lengths.mean(axis=0) if n else np.zeros(width)
    avg[avg == 0] = 1.0
    sizes = np.fromiter((r.terms.size for r in rows), dtype=np.int64, count=n)
    col = np.repeat(np.arange(n, dtype=np.int64), sizes)
    if col.size:
        fld = np.concatenate([r.fields for r in rows]).astype(np.int64)
        term = np.concatenate([r.terms for r in rows])
        tf = np.concatenate([r.tfs for r in rows])
    else:
        fld = term = np.zeros(0, np.int64)
        tf = np.zeros(0, np.float64)
    kept = weight[fld] > 0  # a field weighted 0 adds no terms
    col, fld, term, tf = col[kept], fld[kept], term[kept], tf[kept]
    norm = weight[fld] / (1.0 - b + b * lengths[col, fld] / avg[fld])
    # One entry per (term, chunk), sorted by term name and then chunk: the CSR order, and the
    # vocabulary file is deterministic and binary-searchable. A term's fields' weighted counts
    # are summed in field order.
    rank, by_name = counter.ranks()
    keys, inverse = np.unique(rank[term] * max(n, 1) + col, return_inverse=True)
    wtf = np.bincount(inverse.reshape(-1), weights=tf * norm, minlength=keys.size)
    term_rank, cols = keys // max(n, 1), keys % max(n, 1)
    starts = np.flatnonzero(np.diff(term_rank, prepend=-1)) if keys.size else keys
    terms = [by_name[i] for i in term_rank[starts].tolist()]
    indptr = np.append(starts, keys.size).astype(np.int64)
    df = np.diff(indptr).astype(np.float64)
    row = np.repeat(np.arange(len(terms), dtype=np.int64), np.diff(indptr))
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    values = idf[row] * wtf * (k1 + 1.0) / (k1 + wtf)
    return (
        terms,
        indptr,
        np.ascontiguousarray(cols, dtype="<i4"),
        np.ascontiguousarray(values, dtype="<f4"),
    )


def _save_npy(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as fh:
        np.save(fh, array, allow_pickle=False)


def write_keyword_index(
    chunks: Sequence[Chunk],
    out_dir: Path,
    *,
    k1: float = DEFAULT_K1,
    b: float = DEFAULT_B,
    field_weights: Mapping[str, float] = DEFAULT_FIELD_WEIGHTS,
    synonyms: bool = MINE_SYNONYMS,
    counts: TermCounts | None = None,
) -> dict[str, Any]:
    """Write ``out_dir/keyword/`` for `chunks` and return the manifest's ``keyword`` section;
    with `synonyms`, also the table mined from the chunks (`atlas_core.search.synonyms`).
    `counts` keeps term counts between builds of one corpus (see `TermCounts`)."""
    terms, indptr, indices, data = build_matrix(
        chunks, k1=k1, b=b, field_weights=field_weights, counts=counts
    )
    target = Path(out_dir) / KEYWORD_DIR
    target.parent.mkdir(parents=True, exist_ok=True)
    # Build beside the target and rename, so a crash never leaves a half-written index behind.
    staging = Path(tempfile.mkdtemp(prefix=".keyword-", dir=target.parent))
    _save_npy(staging / "indptr.npy", indptr.astype("<i8"))
    _save_npy(staging / "indices.npy", indices)
    _save_npy(staging / "data.npy", data)
    (staging / "vocab.txt").write_text("".join(t + "\n" for t in terms), encoding="utf-8")
    names: list[str] = list(FILES)
    extra: dict[str, Any] = {}
    if synonyms:
        document, table = mine_table(chunks)
        write_synonyms(document, staging / PurePosixPath(SYNONYMS_FILE).name)
        names.append(PurePosixPath(SYNONYMS_FILE).name)
        extra["synonyms"] = synonyms_section(document)
        log.info("synonym table: %d words", len(table))
    if target.exists():
        for name in os.listdir(target):
            (target / name).unlink()
        target.rmdir()
    staging.rename(target)
    log.info("keyword index: %d terms, %d chunks, %d entries", len(terms), len(chunks), data.size)
    return {
        "format": INDEX_FORMAT,
        "tokenizer": TOKENIZER_VERSION,
        "k1": float(k1),
        "b": float(b),
        "field_weights": {k: float(v) for k, v in field_weights.items()},
        "variant_weight": VARIANT_WEIGHT,
        "n_terms": len(terms),
        "n_chunks": len(chunks),
        "nnz": int(data.size),
        **extra,
        "files": [f"{KEYWORD_DIR}/{name}" for name in names],
    }


INDEX_FORMAT = "bm25f-csr-1"


def check_section(section: Mapping[str, Any]) -> None:
    """Refuse an index this reader would score wrongly (another layout or tokenizer)."""
    fmt = section.get("format", INDEX_FORMAT)
    tokenizer = section.get("tokenizer", TOKENIZER_VERSION)
    if fmt != INDEX_FORMAT or tokenizer != TOKENIZER_VERSION:
        raise BundleError(
            f"keyword index is {fmt!r} with tokenizer {tokenizer!r}; this Atlas reads "
            f"{INDEX_FORMAT!r} with {TOKENIZER_VERSION!r}",
            hint="rebuild the bundle with this Atlas (`atlas build`), or upgrade Atlas",
        )


class _BundleLike(Protocol):
    manifest: Mapping[str, Any]

    def array(self, relpath: str) -> np.ndarray: ...

    def has(self, relpath: str) -> bool: ...

    def file(self, relpath: str) -> Path: ...


@dataclass(frozen=True, slots=True)
class KeywordResult:
    """Top chunk rows (best first) and their BM25 scores."""

    rows: np.ndarray  # int64
    scores: np.ndarray  # float32
    terms: tuple[tuple[str, float], ...]  # the weighted terms that were looked up


INDPTR, INDICES, DATA, VOCAB = (f"{KEYWORD_DIR}/{name}" for name in FILES)
_WHITESPACE = re.compile(r"\s")
_REPAIR = "re-download it with `atlas download` or rebuild it with `atlas build`"


def index_problems(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    terms: Sequence[str],
    n_chunks: int,
    *,
    deep: bool = False,
) -> list[Problem]:
    """What makes the matrix unsafe to score with, each naming its file (SPEC "keyword/").

    Without `deep`: every row pointer in order and in range, every chunk row within the chunk
    table (a negative one would silently score another chunk), the vocabulary one term per row;
    O(terms + entries) in numpy, a small part of loading the vocabulary. `deep` (verify) adds
    what cannot break a query but makes its scores wrong: values finite and positive, chunk rows
    ascending within a term, terms sorted, unique and free of whitespace.
    """
    problems = []
    if indptr.ndim != 1 or indptr.shape[0] != len(terms) + 1:
        problems.append(
            Problem(VOCAB, f"has {len(terms)} terms, {INDPTR} has {indptr.shape[0]} row pointers")
        )
    if indices.shape != data.shape or indices.ndim != 1:
        problems.append(Problem(DATA, f"holds {data.shape} values for {indices.shape} entries"))
    if problems:
        return problems
    nnz = indices.shape[0]
    if int(indptr[0]) != 0 or int(indptr[-1]) != nnz:
        problems.append(
            Problem(INDPTR, f"runs from {int(indptr[0])} to {int(indptr[-1])}, must be 0 to {nnz}")
        )
    elif indptr.shape[0] > 1 and int(np.diff(indptr).min()) < 0:
        problems.append(Problem(INDPTR, "row pointers go backwards (must not decrease)"))
    # One pass instead of min() and max(): seen unsigned, a negative row is a huge one.
    unsigned = (
        indices.view(indices.dtype.str.replace("i", "u")) if indices.dtype.kind == "i" else indices
    )
    if nnz and int(unsigned.max()) >= n_chunks:
        low, high = int(indices.min()), int(indices.max())
        problems.append(
            Problem(
                INDICES,
                f"chunk rows run from {low} to {high}, the bundle has rows 0 to {n_chunks - 1}",
            )
        )
    if not deep or problems:
        return problems
    if nnz and not (np.isfinite(data).all() and float(data.min()) > 0):
        problems.append(Problem(DATA, "holds values that are not finite and positive"))
    # Within a term's row chunk rows ascend; a step down is allowed only where a row starts.
    steps = np.flatnonzero(np.diff(indices.astype(np.int64)) <= 0) + 1
    if steps.size and not np.isin(steps, indptr).all():
        problems.append(Problem(INDICES, "chunk rows of a term are not strictly ascending"))
    if any(a >= b for a, b in pairwise(terms)):
        problems.append(Problem(VOCAB, "terms are not sorted and unique"))
    if "" in terms or _WHITESPACE.search("".join(terms)):
        problems.append(Problem(VOCAB, "holds an empty term or one with whitespace"))
    return problems


class KeywordIndex:
    """Query side of the keyword index: memory-mapped CSR arrays and the vocabulary."""

    def __init__(
        self,
        indptr: np.ndarray,
        indices: np.ndarray,
        data: np.ndarray,
        terms: list[str],
        n_chunks: int,
        params: Mapping[str, Any] | None = None,
        *,
        root: Path | None = None,
        synonyms: SynonymTable | None = None,
    ) -> None:
        problems = index_problems(indptr, indices, data, terms, n_chunks)
        if problems:
            where = (root / problems[0].file) if root is not None else Path(problems[0].file)
            raise BundleError(f"{where}: {problems[0].message}", hint=_REPAIR, path=str(where))
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.terms = terms
        self.vocab: dict[str, int] = {t: i for i, t in enumerate(terms)}
        self.n_chunks = n_chunks
        self.params: Mapping[str, Any] = params or {}
        self.variant_weight = float(self.params.get("variant_weight", VARIANT_WEIGHT))
        self.join_weight = JOIN_WEIGHT
        self.synonyms = synonyms

    @classmethod
    def open(cls, bundle: _BundleLike) -> KeywordIndex:
        """Load from an opened bundle (arrays memory-mapped and checked by the bundle reader)."""
        section = dict(bundle.manifest.get("keyword") or {})
        check_section(section)
        indptr = bundle.array(INDPTR)
        indices = bundle.array(INDICES)
        data = bundle.array(DATA)
        vocab = bundle.file(VOCAB)
        terms = _read_vocab(vocab)
        # The chunk table's rows, not the section's own claim: scores index into the table.
        n_chunks = int((bundle.manifest.get("counts") or {}).get("chunks", 0))
        root = vocab.parent.parent
        synonyms = None
        claimed = section.get("synonyms")
        if isinstance(claimed, Mapping):  # bundles built without the table have no key
            if not bundle.has(SYNONYMS_FILE):
                where = root / SYNONYMS_FILE
                raise BundleError(
                    f"{where}: manifest.json keyword.synonyms describes it but files does not "
                    "list it",
                    hint=_REPAIR,
                    path=str(where),
                )
            synonyms = _read_synonyms(bundle.file(SYNONYMS_FILE), claimed)
        return cls(indptr, indices, data, terms, n_chunks, section, root=root, synonyms=synonyms)

    @classmethod
    def from_dir(
        cls, root: Path, n_chunks: int, params: Mapping[str, Any] | None = None
    ) -> KeywordIndex:
        """Load ``root/keyword/`` directly (tests, benchmarks, tuning)."""
        base = Path(root) / KEYWORD_DIR
        indptr, indices, data = (
            np.load(base / name, mmap_mode="r", allow_pickle=False) for name in FILES[:3]
        )
        terms = _read_vocab(base / "vocab.txt")
        claimed = (params or {}).get("synonyms")
        synonyms = (
            _read_synonyms(Path(root) / SYNONYMS_FILE, claimed)
            if isinstance(claimed, Mapping)
            else None
        )
        return cls(
            indptr, indices, data, terms, n_chunks, params, root=Path(root), synonyms=synonyms
        )

    def weighted_terms(self, query: str) -> list[tuple[str, float]]:
        """The query's terms the vocabulary holds, each once at its highest weight: the typed
        words 1.0, then their inflections, the compounds they spell and their synonyms."""
        weights = dict(expand_query(query_terms(query), self.vocab, self.variant_weight))
        added = self.synonyms.expand(weights) if self.synonyms is not None else {}
        if self.join_weight > 0:
            for term in joined_terms(query, self.vocab):
                added[term] = max(added.get(term, 0.0), self.join_weight)
        for term, weight in added.items():
            weights[term] = max(weights.get(term, 0.0), weight)
        return [(t, w) for t, w in weights.items() if t in self.vocab]

    def scores(self, terms: Iterable[tuple[str, float]]) -> np.ndarray:
        """Dense score vector over all chunks for weighted terms."""
        scores = np.zeros(self.n_chunks, dtype=np.float32)
        for term, weight in terms:
            row = self.vocab.get(term)
            if row is None:
                continue
            start, end = int(self.indptr[row]), int(self.indptr[row + 1])
            cols = self.indices[start:end]
            values = self.data[start:end]
            if weight != 1.0:
                values = values * np.float32(weight)
            # numpy 2's add.at has a fast path for 1-D float input: 3x faster than scores[cols] +=
            np.add.at(scores, cols, values)
        return scores

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> KeywordResult:
        terms = self.weighted_terms(query)
        scores = self.scores(terms)
        if mask is not None:
            scores[~mask] = 0.0
        rows = top_k(scores, k)
        rows = rows[scores[rows] > 0]
        return KeywordResult(rows, scores[rows], tuple(terms))


# Largest block for the top-k bound below; 512 float32 scores are 2 KiB, one cheap max each.
_TOPK_BLOCK = 512


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Row numbers of the k highest scores, best first (ties: lower row first).

    A full argpartition over 100,000 scores costs ~0.7 ms, more than summing a query's postings.
    Instead the k-th largest of the per-block maxima is a lower bound on the k-th largest score
    (k blocks each hold at least one score that high), so only scores at or above it can be in
    the top k; usually a few dozen are, and they are sorted exactly.
    """
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    # at least 8k blocks keep the bound tight; smaller blocks cost more maxima
    block = min(_TOPK_BLOCK, n // (8 * k))
    blocks = n // block if block >= 32 else 0
    if blocks:
        full = blocks * block
        maxima = scores[:full].reshape(blocks, block).max(axis=1)
        if full < n:
            maxima = np.append(maxima, scores[full:].max())
        bound = np.partition(maxima, maxima.size - k)[maxima.size - k]
        part = np.flatnonzero(scores >= bound)
    else:
        part = np.arange(n)
    if part.size > 64 * k:
        # many ties at the bound (or a small array): narrow down before the exact sort
        keep = np.argpartition(-scores[part], k - 1)[:k]
        threshold = scores[part[keep]].min()
        part = part[scores[part] >= threshold]
    order = np.lexsort((part, -scores[part]))
    return part[order[:k]].astype(np.int64)


def _read_vocab(path: Path) -> list[str]:
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BundleError(
            f"{path}: cannot read the vocabulary ({exc})", hint=_REPAIR, path=str(path)
        ) from None
    if "\r" in text:  # a vocabulary written in text mode on Windows; read as text mode would
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    terms = text.split("\n")
    if terms and terms[-1] == "":
        terms.pop()
    return terms


def _read_synonyms(path: Path, claimed: Mapping[str, Any]) -> SynonymTable:
    try:
        raw = read_regular(path, limit=MAX_JSON_BYTES)
    except (OSError, ValueError) as exc:
        raise BundleError(
            f"{path}: cannot read the synonym table ({getattr(exc, 'strerror', None) or exc})",
            hint=_REPAIR,
            path=str(path),
        ) from None
    table, problems = parse_synonyms(raw, claimed)
    if table is None:
        raise BundleError(f"{path}: {problems[0].message}", hint=_REPAIR, path=str(path))
    return table


def idf(n: int, df: int) -> float:
    """The idf used in the index (exposed for tests)."""
    return math.log1p((n - df + 0.5) / (df + 0.5))
