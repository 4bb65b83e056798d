"""Checking what callers ask the engine for, and bounding what it gives back.

Every front end passes user text straight through (a hover word, an MCP argument, a CLI query), so
the limits live here once: a query is printable, single-spaced and at most `MAX_QUERY_CHARS`; counts
are whole numbers from 1 to a documented maximum; snippets are at most `SNIPPET_CHARS` (cut by
`excerpt`).
"""

from __future__ import annotations

import contextlib
import logging
import re

from atlas_core.errors import QueryError
from atlas_core.types import SEARCH_MODES

log = logging.getLogger(__name__)

MAX_TOP_K = 100  # every list a client can receive is bounded
MAX_LIMIT = 100  # identifier lookups, symbols and endpoint completions
DEFAULT_COUNT = 10
MAX_QUERY_CHARS = 1000  # past this a query is a pasted document; the model reads ~256 tokens anyway
SNIPPET_CHARS = 320

CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def clean_query(query: object) -> str:
    """A query as the engine searches it: printable, single-spaced, bounded; else QueryError."""
    if not isinstance(query, str):
        raise QueryError(
            f"query must be text, got {type(query).__name__}", hint="pass the words to search for"
        )
    text = " ".join(CONTROL_CHARS.sub(" ", query).split())
    if not text:
        raise QueryError("empty query", hint="type a few words or an identifier to search for")
    if len(text) > MAX_QUERY_CHARS:
        cut = text.rfind(" ", 0, MAX_QUERY_CHARS)
        text = text[: cut if cut > MAX_QUERY_CHARS // 2 else MAX_QUERY_CHARS]
        log.info("query truncated to %d characters", len(text))
    return text


_IDENTIFIER_WORD = re.compile(
    r"[a-z0-9][A-Z]"  # camelCase
    r"|\w_\w"  # snake_case
    r"|\w[./]\w|^/|[{}<>]"  # dotted names, paths, path parameters
)


def looks_like_identifier(text: str) -> bool:
    """A query of one or two words, at least one spelled like code rather than prose."""
    words = text.split()
    return 0 < len(words) <= 2 and any(_IDENTIFIER_WORD.search(w) for w in words)


def check_mode(mode: object) -> str:
    if mode not in SEARCH_MODES:
        raise QueryError(
            f"unknown search mode {mode!r}", hint=f"use one of: {', '.join(SEARCH_MODES)}"
        )
    return str(mode)


SCOPES = ("all", "docs", "project")


def check_scope(scope: object) -> str:
    """Which bundles a search reads: the docs, the team's own code (a project index) or both."""
    if scope not in SCOPES:
        raise QueryError(f"unknown search scope {scope!r}", hint=f"use one of: {', '.join(SCOPES)}")
    return str(scope)


def clamp_count(value: object, name: str, maximum: int, *, strict: bool = True) -> int:
    """1..maximum; above the maximum is cut.

    Strict (a count a caller passed to the engine): a non-integer or a value below 1 is a
    QueryError naming `name`. Lenient (an index answering the engine, which checked the count
    already, or a benchmark calling the index directly): a value below 1 counts as 1 and one that
    is not a number as `DEFAULT_COUNT`, so an index never fails on a count.
    """
    if not strict:
        number = DEFAULT_COUNT
        if isinstance(value, (int, float, str)):
            with contextlib.suppress(ValueError, OverflowError):
                number = int(value)
        return max(1, min(maximum, number))
    if isinstance(value, bool) or not isinstance(value, int):
        raise QueryError(f"{name} must be a whole number, got {value!r}", hint=f"e.g. {name}=10")
    if value < 1:
        raise QueryError(f"{name} must be at least 1, got {value}", hint=f"e.g. {name}=10")
    return min(value, maximum)
