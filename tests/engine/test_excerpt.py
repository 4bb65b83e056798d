"""Snippets start and end at word or sentence boundaries, never inside a quoted string or code span.

The property tests run over real passages: the embedded demo docs (JSON bodies, code spans, tables)
and the OpenAPI pages of the fixture corpus, chunked by the build's own chunker. The oracle below
restates the boundary rule from the lines of the passage, independently of `excerpt`'s word table.
"""

from __future__ import annotations

import random
import re

import pytest

import atlas_core.demo as demo
import atlas_core.search.excerpt as excerpt
from atlas_core.markdown.chunker import chunk_documents
from atlas_core.search.excerpt import ELLIPSIS, clip, cut_point, excerpt_at, make_snippet
from atlas_core.sources import load_sources
from tests.conftest import fixture_sources

_WORD = re.compile(r"\S+")


@pytest.fixture(scope="module")
def passages() -> list[str]:
    documents = []
    for specs in ([f"mirror={demo.DOCS_DIR}"], fixture_sources()):
        documents.extend(load_sources(specs).documents)
    chunks = chunk_documents(documents, count_tokens=lambda text: len(text.split()))
    texts = [c.text for c in chunks]
    assert len(texts) > 50 and any('": "' in t for t in texts)  # JSON bodies are among them
    return texts


def _body(text: str) -> str:
    body = text.lstrip()
    return body.partition("\n")[2] if body.startswith("#") else body


def _strings(line: str) -> list[tuple[int, int]]:
    """Spans of double-quoted strings and backtick code spans on one line, when they pair."""
    spans: list[tuple[int, int]] = []
    for mark in (r'(?<!\\)"', r"`+"):
        at = [m.start() for m in re.finditer(mark, line)]
        if len(at) % 2 == 0:
            spans.extend(zip(at[::2], at[1::2], strict=True))
    return spans


class Passage:
    """A passage as the oracle sees it: the snippet's source text, single-spaced, and for the gap
    before each word the line it is on (-1 for a line break) and its columns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.body = _body(text)
        self.flat = " ".join(self.body.split())
        self.lines = self.body.split("\n")
        self.gaps: list[tuple[int, int, int]] = []
        previous_line = -1
        for n, line in enumerate(self.lines):
            previous_end = 0
            for m in _WORD.finditer(line):
                self.gaps.append((n if n == previous_line else -1, previous_end, m.start()))
                previous_line, previous_end = n, m.end()

    def cut_inside(self, word: int, room: int) -> bool:
        """A cut before word `word` falls inside a string or code span of at most half of
        `room` characters: the cuts the rule forbids."""
        if word <= 0 or word >= len(self.gaps):
            return False
        n, gap_start, word_start = self.gaps[word]
        if n < 0:
            return False
        spans = _strings(self.lines[n])
        return any(a < gap_start and word_start <= b and b - a <= room // 2 for a, b in spans)


def _check(passage: Passage, words: list[str], limit: int) -> None:
    flat = passage.flat
    snippet = make_snippet(passage.text, words, limit=limit)
    assert len(snippet) <= limit
    core = snippet.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS)
    room = limit - 2 * len(ELLIPSIS)
    if " " not in core and len(core) == room:
        return  # a window on one token longer than the snippet: the one cut allowed mid-word
    start = flat.find(core) if not snippet.startswith(ELLIPSIS) else flat.find(core, 1)
    assert start >= 0, (snippet, flat)
    end = start + len(core)
    # whole words only, and an ellipsis exactly where text was left out
    assert start == 0 or flat[start - 1] == " ", snippet
    assert end == len(flat) or flat[end] == " ", snippet
    assert snippet.startswith(ELLIPSIS) == (start > 0)
    assert snippet.endswith(ELLIPSIS) == (end < len(flat))
    assert not passage.cut_inside(flat.count(" ", 0, start), room), snippet
    assert not passage.cut_inside(flat.count(" ", 0, end) + 1, room), snippet


@pytest.mark.parametrize("limit", [120, 320])
def test_snippets_of_real_passages_cut_only_at_safe_boundaries(
    passages: list[str], limit: int
) -> None:
    checked = 0
    for passage in map(Passage, passages):
        if len(passage.flat) <= limit:
            continue
        words = [w.strip(".,:;()[]{}\"'`*").lower() for w in passage.flat.split()]
        words = [w for w in words if len(w) > 2]
        for query in [[], *([w] for w in words[:: max(1, len(words) // 4)])]:
            _check(passage, query, limit)
            checked += 1
    assert checked > 200


def test_snippets_show_the_query_word_when_it_is_not_in_a_string(passages: list[str]) -> None:
    shown = 0
    for passage in map(Passage, passages):
        lower = passage.body.lower()
        offset = 0
        plain: list[str] = []
        for line in passage.lines:
            spans = _strings(line)
            for m in _WORD.finditer(line):
                word = m.group().lower()
                if not re.fullmatch(r"[a-z]{4,20}", word):
                    continue
                # its first occurrence, outside any string: the snippet must show it
                if lower.find(word) == offset + m.start() and not any(
                    a <= m.start() <= b for a, b in spans
                ):
                    plain.append(word)
            offset += len(line) + 1
        for word in plain[:: max(1, len(plain) // 3)]:
            assert word in make_snippet(passage.text, [word], limit=160).lower()
            shown += 1
    assert shown > 100


JSON_BODY = (
    '```json\n[{"resourceType": "Asset", "identifier": {"name": "Customer table", '
    '"domain": {"name": "Sales data dictionary", "community": {"name": "Finance"}}}, '
    '"attributes": {"Description": [{"value": "All customers of the retail business unit"}]}, '
    '"relations": {"00000000-0000-0000-0000-000000007069:TARGET": '
    '[{"name": "Customer id", "domain": {"name": "Sales data dictionary"}}]}}]\n```'
)


def test_a_json_body_is_never_entered_mid_key_or_mid_value() -> None:
    # the issue's case: a snippet opening with `esourceType": "Asset"`
    for query in (["relations"], ["retail"], ["community"], []):
        snippet = make_snippet(JSON_BODY, query, limit=160)
        core = snippet.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS)
        assert re.match(r'["\[{`]', core), snippet  # a JSON token or the fence opens it
        assert core.count('"') % 2 == 0, snippet  # and every string in it is whole


def test_a_close_sentence_start_opens_the_snippet() -> None:
    text = (
        "Imports run in batches. " * 12
        + "Set continueOnError to keep going after a failed command. "
        + "Later text follows here. " * 10
    )
    snippet = make_snippet(text, ["continueonerror"], limit=160)
    assert snippet.startswith("…Set continueOnError to keep going")
    assert snippet.endswith(".…")  # and a sentence end closes it


def test_a_code_span_is_never_split() -> None:
    text = "Some words before the span to push it along. " * 6 + (
        "Call `api.find(name = 'x', limit = 10)` then read the result list carefully. " * 4
    )
    for limit in range(60, 200, 7):
        snippet = make_snippet(text, ["result"], limit=limit)
        assert snippet.count("`") % 2 == 0, snippet


def test_a_string_longer_than_the_snippet_is_the_one_cut_inside() -> None:
    text = 'intro "' + "word " * 200 + 'end" outro'
    snippet = make_snippet(text, [], limit=100)
    assert len(snippet) <= 100 and snippet.startswith('intro "word') and snippet.endswith("…")


def test_clip_and_cut_point_end_outside_strings() -> None:
    text = 'The field "display name" holds the label. More text follows after it.'
    assert clip(text, len(text)) == text
    clipped = clip(text, 20)
    assert clipped == "The field…"  # not inside "display name"
    assert cut_point(text, 50) == text.index(". More") + 1  # a sentence end when close
    line = "x" * 300
    assert clip(line, 50) == "x" * 49 + "…"  # one word longer than the limit is cut inside


def test_a_text_search_line_keeps_its_spacing_and_whole_words() -> None:
    line = "    " + "lead words here  " * 20 + '"key":  "a value with spaces",  ' + "tail " * 60
    shown = excerpt_at(line, line.index('"key"'), 80)
    assert len(shown) <= 80 and '"key":  "a value with spaces",' in shown  # spacing kept
    assert shown.startswith("…") and shown.endswith("…")
    assert line.find(shown.strip("…")) >= 0
    minified = '{"items":[' + ",".join(f'{{"id":{n}}}' for n in range(200)) + "]}"
    hit = excerpt_at(minified, minified.index('{"id":150}'), 60)
    assert '{"id":150}' in hit and len(hit) <= 60  # one long token: a window on the match


def _cut_point_reading_every_word(text: str, limit: int) -> int:
    """`cut_point` as it reads without stopping after the first word beyond the limit."""
    if len(text) <= limit:
        return len(text)
    w = excerpt._words(excerpt._lines_deciding(text, limit), single_spaced=False)
    if not w.starts or w.starts[0] >= limit:
        return limit
    last = excerpt._last_word(w, 0, limit - w.starts[0])
    return w.ends[last] if last >= 0 else limit


def test_a_cut_reads_no_further_than_one_word_beyond_the_limit_and_cuts_the_same(
    passages: list[str],
) -> None:
    # Long lines with quotes, code spans and sentence ends around every limit.
    rng = random.Random(3)
    pieces = ['"key": "a value",', "`code span`", "word", "ends here.", '"open', "\n", "- item\n"]
    texts = passages + [" ".join(rng.choices(pieces, k=rng.randint(5, 400))) for _ in range(300)]
    for text in texts:
        for limit in (20, 60, 120, 300, 700):
            assert cut_point(text, limit) == _cut_point_reading_every_word(text, limit), (
                limit,
                text,
            )
