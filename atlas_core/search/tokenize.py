"""Identifier-aware tokens for keyword search, shared by the index writer and the query side.

Documentation about an API mixes prose with identifiers spelled several ways (``findAssets``,
``find_assets``, ``/assets/{assetId}``, ``com.collibra.dgc.core.api.AssetApi``). The tokenizer turns
every spelling into the same lowercase pieces and also keeps each compound whole with its separators
removed, so ``findAssets`` and ``find_assets`` both give ``findassets``, ``find``, ``assets``.
Path parameters (``{assetid}``) and numbers survive as tokens of their own.

The corpus is never stemmed: `expand_query` maps a query word to the inflected forms the vocabulary
actually holds (asset/assets, create/creating/created), which the caller scores with a lower weight.
`joined_terms` goes the other way for identifiers: a query written in words ("send notification")
also looks up the compound the index holds whole (``sendnotification``).
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable
from functools import lru_cache

TOKENIZER_VERSION = "atlas-tokens-1"

# Longer runs are hashes, base64 or minified blobs: they never help ranking and bloat the vocabulary.
MAX_TOKEN_CHARS = 64

# Only everyday function words: anything an API could name (get, set, type, id, name, all, ...) stays.
_STOPWORD_TEXT = """
    a an and are as at be been being but by can could did do does doing for from had has have
    how i if in into is it its me my of on or our should so than that the their them then there
    these they this those to was we were what when where which while who whom why will with would
    you your yours
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())

# A path parameter in any of the spellings docs use, or a run of word characters joined by the
# separators identifiers use (dots, slashes, hyphens, colons). Underscores are word characters.
_RAW = re.compile(r"\{\w{1,64}\}|\w+(?:[./:\-]\w+)*")
_PATH_SPLIT = re.compile(r"[/:]+")
_WORD_SPLIT = re.compile(r"[_\-]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+")


def _camel_parts(word: str) -> list[str]:
    if not word.isascii():
        return [word]
    parts = _CAMEL.findall(word)
    return parts or [word]


def _emit(token: str, out: list[str]) -> None:
    if (1 < len(token) <= MAX_TOKEN_CHARS or token.isdigit()) and token not in STOPWORDS:
        out.append(token)


def _segment_tokens(segment: str, out: list[str]) -> None:
    """One path or dotted segment: its joined whole plus its snake/kebab/camel pieces."""
    words = [w for w in _WORD_SPLIT.split(segment) if w]
    pieces: list[str] = []
    for word in words:
        pieces.extend(p.lower() for p in _camel_parts(word))
    whole = "".join(w.lower() for w in words)
    if len(pieces) > 1:
        _emit(whole, out)
    for piece in pieces:
        _emit(piece, out)


@lru_cache(maxsize=1 << 18)
def _raw_tokens(raw: str) -> tuple[str, ...]:
    """Tokens of one raw span; cached because documentation repeats the same words endlessly."""
    out: list[str] = []
    if raw.startswith("{"):
        out.append(raw.lower()[: MAX_TOKEN_CHARS + 2])
        _segment_tokens(raw[1:-1], out)
        return tuple(out)
    for piece in _PATH_SPLIT.split(raw):
        if _VERSION.fullmatch(piece):
            # "2.0" in /rest/2.0 or a product version: one token, not two bare digits
            out.append(piece.lower())
            continue
        for segment in piece.split("."):
            if segment:
                _segment_tokens(segment, out)
    return tuple(out)


def tokenize(text: str) -> list[str]:
    """Tokens of `text` in order, with repeats (term frequency matters to BM25)."""
    out: list[str] = []
    for raw in _RAW.findall(text):
        out.extend(_raw_tokens(raw))
    return out


def query_terms(text: str) -> list[str]:
    """Distinct query tokens in first-seen order (a query word repeated does not count twice)."""
    seen: dict[str, None] = {}
    for token in tokenize(text):
        seen.setdefault(token, None)
    return list(seen)


# A query word joined with the next one or two: "send notification" -> sendnotification,
# "output module filtering" -> outputmodulefiltering. Longer runs name no identifier of the docs.
MAX_JOINED_WORDS = 3
# Words on either side of these are two things, never one name ("user and group" is no usergroup).
_CONJUNCTIONS = frozenset({"and", "or", "but", "nor"})


def _word_runs(text: str) -> list[list[str]]:
    """Runs of adjacent plain words, function words included; a compound, a number, a conjunction
    or a lone letter that is no function word (the s of "column's") ends one.

    A compound (``findAssets``, ``api-v2``) is already kept whole by the tokenizer, and joining
    its pieces with a neighbour would name another identifier.
    """
    runs: list[list[str]] = [[]]
    for raw in _RAW.findall(text):
        word = raw.lower()
        plain = len(word) > 1 and word.isalpha() and word.isascii() and len(_camel_parts(raw)) == 1
        if (plain or word in STOPWORDS) and word not in _CONJUNCTIONS:
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if len(run) > 1]


@lru_cache(maxsize=4096)
def _word_forms(word: str) -> tuple[str, ...]:
    """`word` and its inflections, in a fixed order (cached: a query tries each word often)."""
    return (word, *sorted(variants(word)))


def _spellings(words: list[str]) -> list[str]:
    """The identifier `words` spell, with and without their inner function words
    ("continue on error" -> continueonerror, continueerror), the last word also inflected."""
    inner = words[1:-1]
    middles = dict.fromkeys(("".join(inner), "".join(w for w in inner if w not in STOPWORDS)))
    return [words[0] + middle + last for middle in middles for last in _word_forms(words[-1])]


def joined_terms(text: str, vocabulary: Container[str]) -> list[str]:
    """Identifiers of `vocabulary` spelled by 2 to `MAX_JOINED_WORDS` adjacent query words
    ("send a notification" -> sendnotification, "find asset" -> findassets), in query order.

    Function words between them do not count towards the number of words, and a spelled
    identifier never starts or ends with one.
    """
    found: dict[str, None] = {}
    for run in _word_runs(text):
        content = [i for i, word in enumerate(run) if word not in STOPWORDS]
        for size in range(2, MAX_JOINED_WORDS + 1):
            for first in range(len(content) - size + 1):
                words = run[content[first] : content[first + size - 1] + 1]
                for term in _spellings(words):
                    if term in vocabulary:
                        found.setdefault(term, None)
    return list(found)


def _stems(word: str) -> set[str]:
    stems = {word}
    n = len(word)
    if n > 4 and word.endswith("ies"):
        stems.add(word[:-3] + "y")
    if n > 3 and word.endswith("es"):
        stems.add(word[:-2])
    if n > 3 and word.endswith("s") and not word.endswith("ss"):
        stems.add(word[:-1])
    if n > 5 and word.endswith("ing"):
        base = word[:-3]
        stems.update((base, base + "e"))
        if len(base) > 2 and base[-1] == base[-2]:
            stems.add(base[:-1])
    if n > 4 and word.endswith("ed"):
        base = word[:-2]
        stems.update((base, base + "e"))
        if word.endswith("ied"):
            stems.add(word[:-3] + "y")
        if len(base) > 2 and base[-1] == base[-2]:
            stems.add(base[:-1])
    return stems


def _forms(stem: str) -> set[str]:
    forms = {stem, stem + "s", stem + "es", stem + "ed", stem + "ing"}
    if stem.endswith("e"):
        forms.update((stem[:-1] + "ing", stem + "d", stem + "s"))
    if len(stem) > 2 and stem.endswith("y") and stem[-2] not in "aeiou":
        forms.update((stem[:-1] + "ies", stem[:-1] + "ied"))
    return forms


def variants(word: str) -> set[str]:
    """Inflected forms of an alphabetic word (not including the word itself); may hold non-words."""
    if len(word) < 3 or not word.isalpha():
        return set()
    found: set[str] = set()
    for stem in _stems(word):
        if len(stem) >= 3:
            found |= _forms(stem)
    found.discard(word)
    return found


def expand_query(
    terms: Iterable[str], vocabulary: Container[str], variant_weight: float = 0.5
) -> list[tuple[str, float]]:
    """Query terms with weight 1.0 plus their inflected forms present in `vocabulary`.

    A form that is itself a query term keeps weight 1.0; a form reachable from several query terms
    is listed once.
    """
    terms = list(terms)
    weights: dict[str, float] = {t: 1.0 for t in terms}
    for term in terms:
        for form in sorted(variants(term)):
            if form not in weights and form in vocabulary:
                weights[form] = variant_weight
    return list(weights.items())
