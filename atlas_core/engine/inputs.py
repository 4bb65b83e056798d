"""The one cleaning every name, path and prefix a caller passes gets before an index reads it."""

from __future__ import annotations

from atlas_core.search import CONTROL_CHARS, MAX_QUERY_CHARS


def cleaned(text: str, *, limit: int = MAX_QUERY_CHARS, gaps: str = " ") -> str:
    """`text` with its control characters replaced by `gaps` (a space keeps the words of a name
    apart; "" closes up a method or a path), trimmed and cut to `limit` characters. Unlike a
    search query (`clean_query`) an empty result is no error: the caller decides what nothing
    means."""
    return CONTROL_CHARS.sub(gaps, text).strip()[:limit]
