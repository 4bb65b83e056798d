"""A synonym table for the keyword side, mined at build time from the corpus' own structure.

API documentation states the same thing twice in different words: an operation's summary and its
operationId (``Moves an issue to another community`` / ``moveIssue``), a parameter's description
and its name (``Whether to send e-mail notifications`` / ``sendNotification``), a heading and the
section under it. Each such place is a *pair*: the words a person would write on one side, the
terms the index holds on the other. Over all pairs, a word and a term that meet far more often
than chance are associated; the association is scored with normalised pointwise mutual information

    npmi(w, t) = ln(p(w, t) / (p(w) p(t))) / -ln p(w, t)

which is 1 when the two always occur together and 0 when they are independent. A word keeps at
most `TOP_N` terms, each seen in at least `MIN_COUNT` pairs with it and scoring at least
`MIN_NPMI`, so the table stays small and one-off coincidences never enter it. The query side adds a
word's terms at ``weight * npmi``, below the words that were typed.

The table is ``keyword/synonyms.json`` (SPEC "keyword/"):

    {"format": "atlas-synonyms", "version": 1, "tokenizer": "atlas-tokens-1",
     "pairs": {"heading": 1452, "operation": 292, "table": 1166},
     "min_count": 3, "top_n": 3, "min_npmi": 0.4,
     "synonyms": {"email": [["emailaddress", 0.863], ["notification", 0.5636]], ...}}

Builds do not mine it unless asked (`write_keyword_index(synonyms=True)`): on the development set
it did not help (the figures are at `atlas_core.search.keyword.MINE_SYNONYMS`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas_core.safeio import loads_bounded, read_json
from atlas_core.search.tokenize import TOKENIZER_VERSION, query_terms, tokenize, variants
from atlas_core.types import Chunk, Problem

SYNONYMS_FILE = "keyword/synonyms.json"
SYNONYMS_FORMAT = "atlas-synonyms"
SYNONYMS_VERSION = 1
MIN_COUNT = 3
TOP_N = 3
MIN_NPMI = 0.4
# Below the typed word (1.0) and its inflections (0.5): a mined term is a hint, not the question.
SYNONYM_WEIGHT = 0.2
# A description shorter than this says too little to learn from ("Boolean", "The id.").
_MIN_WORDS = 2

# What the OpenAPI source writes under an operation's heading: `GET /issues` · operationId `findIssues`
_OPERATION_ID = re.compile(r"operationId `(\w+)`")
# A table row: cells between pipes, the first one a name (`x`, **x**, [**x**](...), or bare).
_ROW = re.compile(r"^\|?\s*(?P<first>[^|]+?)\s*\|(?P<rest>.+)$")
_NAME = re.compile(r"^(?:\[)?[*`]*(?P<name>[A-Za-z_][\w.-]*)[*`]*(?:\]\([^)]*\))?$")
_SEPARATOR = re.compile(r"^[\s|:-]+$")
_TAG = re.compile(r"<[^>]*>|&\w+;|&#\d+;")


@dataclass(frozen=True, slots=True)
class Pair:
    """One place that says a thing twice: the words of its prose side, the terms of the other."""

    source: str  # "operation", "table", "heading"
    words: frozenset[str]
    terms: frozenset[str]


def _words(text: str) -> frozenset[str]:
    """The query-side words of a prose text: alphabetic tokens (no numbers, paths or params)."""
    return frozenset(t for t in query_terms(_TAG.sub(" ", text)) if t.isalpha())


def _pair(source: str, prose: str, other: str) -> Pair | None:
    words = _words(prose)
    if len(words) < _MIN_WORDS:
        return None
    # A term the prose already holds is found by the typed word itself: nothing to learn. Numbers,
    # hashes and path parameters are no synonym of a word.
    terms = frozenset(t for t in tokenize(other) if t.isalpha()) - words
    return Pair(source, words, terms) if terms else None


def _summary(chunk: Chunk) -> str:
    return chunk.heading.rpartition(" > ")[2]


def operation_pairs(chunks: Iterable[Chunk]) -> Iterator[Pair]:
    """An operation's summary (its section heading) against its operationId."""
    seen: set[tuple[str, str]] = set()
    for chunk in chunks:
        match = _OPERATION_ID.search(chunk.text)
        if match is None:
            continue
        key = (match.group(1), _summary(chunk))
        if key in seen:
            continue
        seen.add(key)
        pair = _pair("operation", key[1], key[0])
        if pair is not None:
            yield pair


def table_pairs(chunks: Iterable[Chunk]) -> Iterator[Pair]:
    """A table row naming a parameter, property or client method against its description: the
    row's longest cell of prose (a generated client's method table, a parameter table)."""
    seen: set[str] = set()
    for chunk in chunks:
        for line in chunk.text.splitlines():
            if "|" not in line or _SEPARATOR.match(line) or line in seen:
                continue
            seen.add(line)
            row = _ROW.match(line.strip())
            if row is None:
                continue
            name = _NAME.match(row.group("first"))
            if name is None:
                continue
            cells = [c.strip() for c in row.group("rest").split("|")]
            prose = max(cells, key=lambda c: len(_words(c)))
            pair = _pair("table", prose, name.group("name"))
            if pair is not None:
                yield pair


def heading_pairs(chunks: Iterable[Chunk]) -> Iterator[Pair]:
    """A section heading against the terms of its body (the section's first chunk)."""
    seen: set[tuple[str, str]] = set()
    for chunk in chunks:
        key = (chunk.file, chunk.heading)
        if not chunk.heading or key in seen:
            continue
        seen.add(key)
        body = chunk.text.partition("\n")[2] if chunk.text.startswith("#") else chunk.text
        pair = _pair("heading", _summary(chunk), body)
        if pair is not None:
            yield pair


SOURCES = {"operation": operation_pairs, "table": table_pairs, "heading": heading_pairs}


def corpus_pairs(chunks: Sequence[Chunk], sources: Iterable[str] = tuple(SOURCES)) -> list[Pair]:
    """The pairs of `sources`, each once: a parameter described the same way in forty operations
    and in two references of one API is one piece of evidence, not eighty."""
    unique: dict[tuple[frozenset[str], frozenset[str]], Pair] = {}
    for source in sources:
        for pair in SOURCES[source](chunks):
            unique.setdefault((pair.words, pair.terms), pair)
    return list(unique.values())


def mine(
    pairs: Sequence[Pair],
    *,
    min_count: int = MIN_COUNT,
    top_n: int = TOP_N,
    min_npmi: float = MIN_NPMI,
) -> dict[str, list[tuple[str, float]]]:
    """word -> its best associated terms with their npmi, best first (ties by term)."""
    n = len(pairs)
    word_count: Counter[str] = Counter()
    term_count: Counter[str] = Counter()
    joint: Counter[tuple[str, str]] = Counter()
    for pair in pairs:
        word_count.update(pair.words)
        term_count.update(pair.terms)
        joint.update((w, t) for w in pair.words for t in pair.terms)
    found: dict[str, list[tuple[str, float]]] = {}
    for (word, term), count in joint.items():
        if count < min_count or count == n or term in variants(word):
            continue
        p_joint = count / n
        pmi = math.log(p_joint * n * n / (word_count[word] * term_count[term]))
        score = pmi / -math.log(p_joint)
        if score >= min_npmi:
            found.setdefault(word, []).append((term, round(score, 4)))
    return {
        word: sorted(terms, key=lambda ts: (-ts[1], ts[0]))[:top_n]
        for word, terms in sorted(found.items())
    }


@dataclass(frozen=True, slots=True)
class SynonymTable:
    """word -> (term, npmi) pairs, and the weight a query gives them (times the npmi)."""

    entries: Mapping[str, tuple[tuple[str, float], ...]]
    weight: float = SYNONYM_WEIGHT

    def __len__(self) -> int:
        return len(self.entries)

    def expand(self, weights: Mapping[str, float]) -> dict[str, float]:
        """The associated terms of the query terms in `weights` (term -> its weight), each at
        ``weight * npmi * the word's own weight``; terms of `weights` are left out."""
        found: dict[str, float] = {}
        for word, word_weight in weights.items():
            for term, score in self.entries.get(word, ()):
                if term not in weights:
                    found[term] = max(found.get(term, 0.0), self.weight * score * word_weight)
        return found


def mine_table(chunks: Sequence[Chunk]) -> tuple[dict[str, Any], SynonymTable]:
    """Mine `chunks` with the default settings: the file's JSON object and the table."""
    pairs = corpus_pairs(chunks)
    mined = mine(pairs)
    document = {
        "format": SYNONYMS_FORMAT,
        "version": SYNONYMS_VERSION,
        "tokenizer": TOKENIZER_VERSION,
        "pairs": dict(sorted(Counter(p.source for p in pairs).items())),
        "min_count": MIN_COUNT,
        "top_n": TOP_N,
        "min_npmi": MIN_NPMI,
        "synonyms": {word: [[t, s] for t, s in terms] for word, terms in mined.items()},
    }
    table = SynonymTable({w: tuple(ts) for w, ts in mined.items()})
    return document, table


def write_synonyms(document: Mapping[str, Any], path: Path) -> None:
    path.write_text(
        json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n",
        encoding="utf-8",
    )


def section(document: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest's ``keyword.synonyms`` object for a table file."""
    synonyms = document["synonyms"]
    return {
        "format": SYNONYMS_FORMAT,
        "version": SYNONYMS_VERSION,
        "words": len(synonyms),
        "terms": sum(len(terms) for terms in synonyms.values()),
        "weight": SYNONYM_WEIGHT,
    }


def parse(
    raw: bytes, claimed: Mapping[str, Any], vocabulary: Container[str] | None = None
) -> tuple[SynonymTable | None, list[Problem]]:
    """The table in `raw` (the file's bytes) and what is wrong with it, each problem naming the
    file. `claimed` is the manifest's ``keyword.synonyms``; with `vocabulary` (verify), every
    term must be one the index holds, else the table was mined for another index."""
    try:
        document = loads_bounded(raw)
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None, [Problem(SYNONYMS_FILE, f"not valid JSON ({exc})")]
    return _check(document, claimed, vocabulary)


def _check(
    document: object, claimed: Mapping[str, Any], vocabulary: Container[str] | None
) -> tuple[SynonymTable | None, list[Problem]]:
    if not isinstance(document, dict):
        return None, [Problem(SYNONYMS_FILE, "not a JSON object")]
    fmt, version = document.get("format"), document.get("version")
    if fmt != SYNONYMS_FORMAT or version != SYNONYMS_VERSION:
        return None, [
            Problem(
                SYNONYMS_FILE,
                f"is format {fmt!r} version {version!r}; this Atlas reads {SYNONYMS_FORMAT!r} "
                f"version {SYNONYMS_VERSION}",
            )
        ]
    if document.get("tokenizer") != TOKENIZER_VERSION:
        return None, [
            Problem(
                SYNONYMS_FILE,
                f"was mined with tokenizer {document.get('tokenizer')!r}, the index uses "
                f"{TOKENIZER_VERSION!r}",
            )
        ]
    synonyms = document.get("synonyms")
    if not isinstance(synonyms, dict):
        return None, [Problem(SYNONYMS_FILE, '"synonyms" is not an object of words')]
    entries: dict[str, tuple[tuple[str, float], ...]] = {}
    for word, terms in synonyms.items():
        entry = _entry(terms)
        if entry is None or not word or _SPACE.search(word):
            return None, [
                Problem(
                    SYNONYMS_FILE,
                    f"the entry of {word!r} is not a list of [term, weight] with a term "
                    "without whitespace and a weight in (0, 1]",
                )
            ]
        entries[word] = entry
    problems = []
    terms_count = sum(len(e) for e in entries.values())
    for key, count in (("words", len(entries)), ("terms", terms_count)):
        if key in claimed and claimed[key] != count:
            problems.append(
                Problem(
                    SYNONYMS_FILE,
                    f"holds {count} {key}, manifest.json keyword.synonyms.{key} says "
                    f"{claimed[key]!r}",
                )
            )
    if vocabulary is not None:
        unknown = sorted({t for e in entries.values() for t, _ in e if t not in vocabulary})
        if unknown:
            problems.append(
                Problem(
                    SYNONYMS_FILE,
                    f"holds terms that keyword/vocab.txt does not ({len(unknown)}, first "
                    f"{unknown[0]!r}): mined for another index",
                )
            )
    if problems:
        return None, problems
    # The manifest schema keeps the weight within [0, 1].
    return SynonymTable(entries, float(claimed.get("weight", SYNONYM_WEIGHT))), []


_SPACE = re.compile(r"\s")


def _entry(terms: object) -> tuple[tuple[str, float], ...] | None:
    if not isinstance(terms, list):
        return None
    entry = []
    for item in terms:
        if not (isinstance(item, list) and len(item) == 2):
            return None
        term, score = item
        if not isinstance(term, str) or not term or _SPACE.search(term):
            return None
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 < score <= 1:
            return None
        entry.append((term, float(score)))
    return tuple(entry)


def verify_problems(
    root: Path,
    claimed: object,
    listed: Container[str],
    usable: Container[str],
    vocabulary: Container[str],
) -> list[Problem]:
    """`atlas verify`'s check of the table that manifest.json's ``keyword.synonyms`` (`claimed`)
    describes; nothing when the bundle has none. Only a file in `usable` (listed, with its size
    and hash right) is read: a listed file that is damaged or missing is reported already."""
    if not isinstance(claimed, Mapping):
        return []
    if SYNONYMS_FILE not in usable:
        return [] if SYNONYMS_FILE in listed else [_UNLISTED]
    try:
        document = read_json(root / SYNONYMS_FILE)
    except (OSError, ValueError):
        return []  # verify parses every listed JSON file and reports this one already
    return _check(document, claimed, vocabulary)[1]


_UNLISTED = Problem(
    SYNONYMS_FILE, "described by manifest.json keyword.synonyms but not in the bundle's files"
)
