"""Spelling normalisation of identifiers, shared by extraction, the on-disk keys and lookup.

Both sides derive keys with these functions, so a key written at build time and a key computed
from what the user typed agree byte for byte: compact keys (`findAssets`, `find_assets` and
`find-assets` meet), camel-hump words, REST path templates without base or `/rest/2.0`, and
path keys with every parameter spelling folded to ``{}``.
"""

from __future__ import annotations

import re

HTTP_METHODS: tuple[str, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
QUOTES = "\"'`"
# Words of prose that name nothing: kept out of keyword postings, CLI commands, GraphQL fields.
_STOPWORD_TEXT = (
    "a an and are as at be by for from has have if in into is it its of on or that the this to "
    "was were when which will with you your can not use used using"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Words of a question that carry no search value ("how many items per page").
_QUERY_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from how i in is it many much of on or per the "
    "to what when where which who why with"
)
QUERY_STOPWORDS = frozenset(_QUERY_STOPWORD_TEXT.split())

_METHOD_RE = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+", re.IGNORECASE)
_SCHEME_HOST_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/\s]*")
# A base URL held in a variable: {base}, ${BASE_URL}, {self.base}, <your_collibra_url>, %7Bbase%7D.
_BASE_VAR_RE = re.compile(r"^(?:\$?\{[^}/]*\}|<[^>/]*>|%7B[^/]*?%7D)+(?=/)", re.IGNORECASE)
# Only the 2.0 prefix is implied by the templates; /rest/1.0 paths are a different (older) API.
# A proxy's path may stand before it (/api/collibra/rest/2.0/assets, as browser code calls it).
_REST_PREFIX_RE = re.compile(r"^(?:/[\w.~%-]+){0,3}?/rest/2\.0(?=/|$)")
_PARAM_SEG_RE = re.compile(
    r"^(?:\$?\{[^}]*\}|<[^>]*>|:[A-Za-z_][\w.]*|%7B.*%7D|\[[^\]]*\]|\*)$", re.IGNORECASE
)
_UUID_RE = re.compile(
    r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
)
_NUMBER_RE = re.compile(r"^\d+$")
_NON_ALNUM_RE = re.compile(r"[\W_]+")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CALL_SUFFIX_RE = re.compile(r"\([^()]*\)\s*;?$")
_GENERIC_RE = re.compile(r"<[^<>]*>")
BUILDER_PARTS = frozenset({"builder", "build", "newbuilder", "getinstance", "class", "new"})
QUOTES = "\"'`"
_CLI_WORD_RE = re.compile(r"[a-z][a-z0-9._-]*")


def compact(text: str) -> str:
    """Lowercase letters and digits only: findAssets, find_assets, find-assets all meet here."""
    return _NON_ALNUM_RE.sub("", text.lower())


def split_words(text: str) -> list[str]:
    """Lowercased words of an identifier or phrase, splitting camelCase, snake_case and paths."""
    return [part.lower() for part in _CAMEL_RE.findall(text)]


def initials(text: str) -> str:
    """Camel-hump initials: findAssets -> fa, GET /assets/{assetId} -> gaai."""
    return "".join(word[0] for word in split_words(text))


def strip_path(raw: str) -> tuple[str, str]:
    """Split a REST path spelling into (METHOD or "", path without base, prefix, query, fragment)."""
    text = raw.strip().strip(QUOTES).strip()
    if text[:2] in ("f'", 'f"', "f`"):
        text = text[2:].strip(QUOTES)
    method = ""
    m = _METHOD_RE.match(text)
    if m:
        method = m.group(1).upper()
        text = text[m.end() :].strip().strip(QUOTES)
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


def is_param_segment(seg: str) -> bool:
    """Whether a path segment stands for a value: ``{id}``, ``:id``, ``<id>``, a UUID, a number."""
    return bool(_PARAM_SEG_RE.match(seg) or _UUID_RE.match(seg) or _NUMBER_RE.match(seg))


def path_key(path: str) -> str:
    """The normalised form of a path template or a concrete path: params become {}."""
    segments = ["{}" if is_param_segment(seg) else seg.lower() for seg in path.split("/") if seg]
    return "/" + "/".join(segments)


def looks_like_path(text: str) -> bool:
    body = _METHOD_RE.sub("", text.strip().strip(QUOTES))
    return "/" in body and not re.search(r"\s", body.strip())


def name_variants(raw: str) -> list[tuple[str, float]]:
    """Compact keys to try for a non-path identifier, each with the confidence of a match."""
    text = raw.strip().strip(QUOTES + ",;").strip()
    variants: list[tuple[str, float]] = []

    def add(key: str, confidence: float) -> None:
        if key and all(key != k for k, _ in variants):
            variants.append((key, confidence))

    # A JSON pair such as "resourceType": "Asset": the key first, then the value.
    if ":" in text and not text.startswith(":") and "::" not in text:
        key, _, value = text.partition(":")
        if key.strip().strip(QUOTES) and (key.strip()[:1] in QUOTES or value.strip()[:1] in QUOTES):
            add(compact(key), 0.9)
            add(compact(value), 0.85)
            return variants
    if text.lower().startswith("new "):
        text = text[4:]
    while _CALL_SUFFIX_RE.search(text):
        text = _CALL_SUFFIX_RE.sub("", text).rstrip()
    text = _GENERIC_RE.sub("", text).replace("::", ".").replace("#", ".")
    parts = [p for p in (s.strip() for s in text.split(".")) if p]
    parts = [p for p in parts if compact(p) not in BUILDER_PARTS] or parts
    text = ".".join(parts)
    add(compact(text), 0.9)
    if len(parts) > 1:
        # assetApi.addAsset: the member is what the cursor means; its owner type comes next.
        add(compact(parts[-1]), 0.9)
        for part in reversed(parts[:-1]):
            add(compact(part), 0.88)
    words = text.split()
    if len(words) > 1 and all(_CLI_WORD_RE.fullmatch(w) for w in words):
        # A CLI command with its program name: "collibra data-contract init".
        add(compact(" ".join(words[1:])), 0.85)
    return variants
