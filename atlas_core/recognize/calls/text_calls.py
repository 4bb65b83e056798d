"""Calls in languages read as text, without a syntax tree: Go's ``net/http`` (`go`) and
PowerShell's ``Invoke-RestMethod`` (`powershell`); shell command lines have their own (`curl`).

A reader lists the calls of a document as (line, `CallSite`) pairs; the whole-document scan keeps
them all, a hover the one under the cursor. A URL is rebuilt as `Part`s, each literal piece
remembering the string it was written in, so an endpoint is reported where its path is written
(``url := base + "/assets"`` three lines above the call) and a query key where its name is.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from atlas_core.recognize.calls.site import (
    ENDPOINT,
    HTTP,
    QUERY,
    QUERY_KEY,
    UNKNOWN,
    CallSite,
    tidy_url,
)
from atlas_core.syntax import Document

TEXT_LANGUAGES = frozenset({"go", "powershell"})
# A hover reads the calls whose text starts this many lines around the cursor.
HOVER_LINES = 80


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a rebuilt value: literal text and the content span of the string it is written
    in, or unknown text (``{}``) with no span."""

    text: str
    span: tuple[int, int] | None = None


UNKNOWN_PART = Part(UNKNOWN)


def joined(parts: list[Part]) -> str:
    return "".join(p.text for p in parts)


def outside_strings(
    text: str, start: int, end: int, quotes: str, skip: Callable[[int], int]
) -> Iterator[tuple[int, str, int]]:
    """Each character of ``text[start:end]`` outside string literals, with the bracket depth
    after it (``(``, ``[``, ``{`` open one, their closers close one): the one walk the text readers
    build their bracket matching, argument splitting and statement ends on. A character of
    `quotes` opens a literal (or an escape) and `skip(i)` is the offset just past it."""
    depth, i = 0, start
    while i < end:
        ch = text[i]
        if ch in quotes:
            i = max(skip(i), i + 1)
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        yield i, ch, depth
        i += 1


class Lines:
    """Character offsets of a text to (line, column), and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]

    def offset(self, line: int) -> int:
        return self.starts[min(max(line, 0), len(self.starts) - 1)]


def url_sites(
    lines: Lines, method: str, parts: list[Part], language: str
) -> Iterator[tuple[int, CallSite]]:
    """The endpoint (at the literal holding the path) and the query-string keys of a URL; nothing
    when no literal part of it shows a path."""
    url = joined(parts)
    literals = [p for p in parts if p.span is not None]
    # The path is reported where its last piece is written: ``base + "/assets"`` at "/assets".
    home = next((p for p in reversed(literals) if "/" in p.text), None)
    if home is None or home.span is None or not url.strip(UNKNOWN):
        return
    tidy = tidy_url(url)
    line, start = lines.position(home.span[0])
    end_line, end = lines.position(home.span[1])
    yield (
        line,
        _site(method, tidy, ENDPOINT, "", start, end if end_line == line else start, language),
    )
    spans = dict.fromkeys(p.span for p in literals if p.span is not None)
    for first, last in spans:
        for m in QUERY_KEY.finditer(lines.text, first, last):
            key_line, key_start = lines.position(m.start(1))
            site = _site(
                method, tidy, QUERY, m.group(1), key_start, key_start + len(m.group(1)), language
            )
            yield key_line, site


def _site(
    method: str, url: str, role: str, name: str, start: int, end: int, language: str
) -> CallSite:
    return CallSite(
        method=method.upper(),
        url=url,
        role=role,
        name=name,
        start=start,
        end=end,
        client=HTTP,
        language=language,
    )


def key_site(
    lines: Lines,
    method: str,
    url: str,
    role: str,
    name: str,
    at: int,
    keys: tuple[str, ...],
    language: str,
    *,
    complete: bool = False,
) -> tuple[int, CallSite]:
    """A query or body key `name` written at offset `at`, among `keys`."""
    line, start = lines.position(at)
    site = _site(method, tidy_url(url), role, name, start, start + len(name), language)
    if keys or complete:
        site = replace(site, path_keys=keys, complete=complete)
    return line, site


Reader = Callable[[Document, float, int, int], Iterator[tuple[int, CallSite]]]


def _reader(language: str) -> Reader:
    if language == "go":
        from atlas_core.recognize.calls.go import go_calls

        return go_calls
    from atlas_core.recognize.calls.powershell import powershell_calls

    return powershell_calls


def text_calls(
    document: Document, language: str, deadline: float, first: int = 0, last: int = -1
) -> Iterator[tuple[int, CallSite]]:
    """The calls of a document in a language of `TEXT_LANGUAGES` (or one the generic reader
    takes, `generic.is_generic`) whose text starts between
    lines `first` and `last` (-1: to the end), until `deadline` (a `time.monotonic` value)."""
    last = document.line_count if last < 0 else last
    if language not in TEXT_LANGUAGES:  # a language with no reader of its own
        from atlas_core.recognize.calls.generic import generic_calls

        yield from generic_calls(document, language, deadline, first, last)
        return
    yield from _reader(language)(document, deadline, first, last)


def text_call_at(document: Document, language: str, line: int, column: int) -> CallSite | None:
    """The call site at the cursor, among the calls around its line."""
    deadline = time.monotonic() + 0.2
    first, last = max(line - HOVER_LINES, 0), min(line + HOVER_LINES, document.line_count)
    best: CallSite | None = None
    for at, site in text_calls(document, language, deadline, first, last):
        on = at == line and site.start <= column <= max(site.end, site.start + 1)
        if on and (best is None or site.end - site.start < best.end - best.start):
            best = site  # the narrowest: a key inside the endpoint's literal
    return best
