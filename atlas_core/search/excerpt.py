"""Excerpts of a passage that start and end where a reader expects them: at a sentence or a word.

A cut never falls inside a word, a double-quoted string (a JSON value, a quoted phrase) or an
inline code span: a snippet that opens with `esourceType": "Asset"` reads as a broken page and
costs an agent a guess. Quotes and backticks are paired within one line, since JSON strings and
code spans never run across lines; a line whose quotes do not pair (an inch mark, a quotation
continued from the line above) constrains no cut on it rather than every cut after it.

A sentence end (a word ending in `.`, `!` or `?`, or the last word of a paragraph, list item, table
row or code line) is preferred when one is close; otherwise a word boundary outside any string.
Only a string longer than half the excerpt is cut inside, at a word (else the excerpt would show
less than half of what fits, or miss the match), and only a word longer than the whole excerpt is
cut mid-word. "…" marks each end that was cut.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from atlas_core.search.limits import SNIPPET_CHARS

ELLIPSIS = "…"

_WORD = re.compile(r"\S+")
_NON_SPACE = re.compile(r"\S")
_QUOTE = re.compile(r'(?<!\\)"')
_BACKTICKS = re.compile(r"`+")
_SENTENCE_END = re.compile(r"[.!?][\"')\]*_`]*$")
# A line after which the text above is a finished unit: a blank line, a list item, a heading, a
# fence, a table row or a quote starts a new block.
_BLOCK_START = re.compile(r"\s*$|\s*([-*+]\s|\d+[.)]\s|#|```|~~~|\||>)")


@dataclass(frozen=True, slots=True)
class _Words:
    """The words of a text, where each starts and ends, and where a cut may fall."""

    text: str  # the text the offsets index: the input itself, or its words single-spaced
    starts: list[int]
    ends: list[int]  # exclusive
    open_after: list[bool]  # a cut right after word i would fall inside a string or code span
    sentence_after: list[bool]  # word i ends a sentence, a paragraph, a list item or a row

    def safe_start(self, i: int) -> bool:
        return i == 0 or not self.open_after[i - 1]

    def safe_end(self, i: int) -> bool:
        return i == len(self.ends) - 1 or not self.open_after[i]


def _words(text: str, *, single_spaced: bool, until: int | None = None) -> _Words:
    """The words of `text`; with `until` (as written, not single-spaced), only those up to the
    first that ends after it: what a cut at `until` reads, every word it looks at and one beyond."""
    words: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    open_after: list[bool] = []
    sentence_after: list[bool] = []
    lines = text.split("\n")
    offset = 0
    for n, line in enumerate(lines):
        found = list(_WORD.finditer(line))
        quotes = [m.start() for m in _QUOTE.finditer(line)]
        ticks = [m.start() for m in _BACKTICKS.finditer(line)]
        # Marks that do not pair on their line say nothing about where strings are.
        quotes = quotes if len(quotes) % 2 == 0 else []
        ticks = ticks if len(ticks) % 2 == 0 else []
        following = lines[n + 1] if n + 1 < len(lines) else ""
        block_ends = bool(_BLOCK_START.match(following)) or bool(_BLOCK_START.match(line))
        for k, m in enumerate(found):
            inside = bisect_right(quotes, m.end() - 1) % 2 or bisect_right(ticks, m.end() - 1) % 2
            last = k == len(found) - 1
            words.append(m.group())
            starts.append(offset + m.start())
            ends.append(offset + m.end())
            open_after.append(bool(inside) and not last)
            sentence_after.append(bool(_SENTENCE_END.search(m.group())) or (last and block_ends))
            if until is not None and ends[-1] > until:
                return _Words(text, starts, ends, open_after, sentence_after)
        offset += len(line) + 1
    if single_spaced:
        text = " ".join(words)
        starts, ends, at = [], [], 0
        for word in words:
            starts.append(at)
            ends.append(at + len(word))
            at += len(word) + 1
    return _Words(text, starts, ends, open_after, sentence_after)


def _last_word(w: _Words, first: int, room: int) -> int:
    """The last word of an excerpt that starts at word `first` and spans at most `room`
    characters, a sentence end when one is close; -1 when not even word `first` fits."""
    start = w.starts[first]
    fits = bisect_right(w.ends, start + room) - 1
    if fits < first:
        return -1
    if fits == len(w.ends) - 1:
        return fits
    safe = [j for j in range(fits, first - 1, -1) if w.safe_end(j)]
    if not safe or w.ends[safe[0]] - start < room // 2:
        # What follows the last safe end is one string longer than half the excerpt: cut it at
        # a word rather than show less than half.
        return fits
    for j in safe:
        if w.ends[j] - start < room * 2 // 3:
            break
        if w.sentence_after[j]:
            return j
    return safe[0]


def _first_word(w: _Words, anchor: int, room: int) -> int:
    """The word an excerpt showing word `anchor` starts at: its sentence's first word when that is
    within half the excerpt, else the safe start farthest back within a quarter of it, else the
    nearest safe start within half of it."""
    at = w.starts[anchor]
    safe = [k for k in range(anchor, -1, -1) if w.safe_start(k)]  # nearest first
    close = [k for k in safe if at - w.starts[k] <= room // 2]
    sentences = [k for k in close if k == 0 or w.sentence_after[k - 1]]
    near = [k for k in close if at - w.starts[k] <= room // 4]
    if sentences:
        first = sentences[0]
    elif near:
        first = near[-1]
    elif close:
        first = close[0]
    else:
        # The match sits deep in one string longer than half the excerpt: start inside it, at
        # the first word within a quarter of the excerpt before the match.
        first = anchor
        while first > 0 and at - w.starts[first - 1] <= room // 4:
            first -= 1
    # Near the end of the text, start earlier rather than show less than fits.
    tail = w.ends[-1] - room
    if w.starts[first] > tail:
        later = [k for k in safe if w.starts[k] >= tail]
        first = later[-1] if later else first
    return first


def _window(w: _Words, anchor: int, at: int, limit: int) -> str:
    """The excerpt around word `anchor`, which holds the character at `at`."""
    room = limit - 2 * len(ELLIPSIS)
    if w.ends[anchor] - w.starts[anchor] > room:
        # One unbroken token longer than the excerpt (minified JSON, a long URL): the only way to
        # show the match is a plain window on it.
        start = max(w.starts[anchor], min(at - room // 3, w.ends[anchor] - room))
        end = start + room
    else:
        first = _first_word(w, anchor, room)
        last = _last_word(w, first, room)
        start = w.starts[first]
        end = w.ends[last] if last >= 0 else start + room
    cut_before = ELLIPSIS if start > w.starts[0] else ""
    return cut_before + w.text[start:end] + (ELLIPSIS if end < w.ends[-1] else "")


def make_snippet(text: str, words: Sequence[str], limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters of `text`, single-spaced, showing the first query word it
    contains, cut only at boundaries (module docstring) and marked "…" where cut."""
    body = text.lstrip()
    if body.startswith("#"):
        # the heading is shown beside the snippet already
        body = body.partition("\n")[2]
    flat = " ".join(body.split())
    if len(flat) <= limit:
        return flat
    w = _words(body, single_spaced=True)
    lower = w.text.lower()
    positions = [p for word in words if len(word) > 2 and (p := lower.find(word)) >= 0]
    at = min(positions, default=0)
    return _window(w, bisect_right(w.starts, at) - 1, at, limit)


def excerpt_at(line: str, at: int, limit: int) -> str:
    """At most `limit` characters of one line, spacing kept, showing the character at `at`
    (a match a text search found), cut only at boundaries and marked "…" where cut."""
    if len(line) <= limit:
        return line
    w = _words(line, single_spaced=False)
    if not w.starts:
        return line[:limit]
    return _window(w, max(0, bisect_right(w.starts, at) - 1), at, limit)


def cut_point(text: str, limit: int) -> int:
    """Where to cut `text` to keep at most `limit` characters of it: after the last word that
    fits and does not end inside a string or code span, a sentence end when one is close."""
    if len(text) <= limit:
        return len(text)
    w = _words(_lines_deciding(text, limit), single_spaced=False, until=limit)
    if not w.starts or w.starts[0] >= limit:
        return limit
    last = _last_word(w, 0, limit - w.starts[0])
    return w.ends[last] if last >= 0 else limit


def _lines_deciding(text: str, limit: int) -> str:
    """The lines of `text` that decide a cut at `limit`: through the line of the first word that
    does not fit, and the line after it (whether a line ends its block depends on the next). The
    words that fit read the same in it as in `text`, and some word still does not fit, so the cut
    is the same; a long passage cut short is not read to its end."""
    beyond = _NON_SPACE.search(text, limit)
    if beyond is None:
        return text
    end = text.find("\n", beyond.start())
    if end >= 0:
        end = text.find("\n", end + 1)
    return text if end < 0 else text[:end]


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, cut as `cut_point` cuts and marked with "…"."""
    if len(text) <= limit:
        return text
    return text[: cut_point(text, limit - len(ELLIPSIS))].rstrip() + ELLIPSIS
