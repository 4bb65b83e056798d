"""The reader for languages without a grammar (and for text too large to parse): a string
literal holding a REST path, with the HTTP method the code around it names on the same line."""

from __future__ import annotations

import re

from atlas_core.recognize.calls.site import ENDPOINT, HTTP, QUERY, CallSite, query_key_at
from atlas_core.recognize.text_scan import find_path, method_hint, string_spans
from atlas_core.syntax import Document

# Only this much of a line on either side of the cursor is looked at: a 5 MB minified line costs
# what a short one does.
WINDOW = 2000
_QUOTED_METHOD = re.compile(r"[\"'`](GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)[\"'`]")
_STRING_OPENING = re.compile(r"[\[{(,:=;]\s*(?=[\"'`])")
_URL_STARTS = ("/", "http://", "https://", "${", "{", "$", "<")


def read_text(document: Document, line: int, column: int, language: str) -> CallSite | None:
    full = document.line(line) if document.line_length(line) <= 2 * WINDOW else None
    if full is None:
        start = document.char_offset(line, max(column - WINDOW, 0))
        text = document.text[start : start + 2 * WINDOW]
        # A window can open inside a string and turn every quote inside out; start it where a
        # string literal begins instead (after `,"`, `:"`, `("` and the like).
        opening = _STRING_OPENING.search(text, 0, WINDOW) if column > WINDOW else None
        if opening is not None:
            text, start = text[opening.end() :], start + opening.end()
        shift = start - document.char_offset(line, 0)
    else:
        text, shift = full, 0
    col = column - shift
    if not 0 <= col <= len(text):
        return None
    spans = string_spans(text, language)
    span = next((s for s in spans if s.contains(col)), None)
    if span is None or _in_comment(text, span.quote_start, spans):
        return None
    content = text[span.start : span.end]
    match = find_path(content)
    if match is None or not content.startswith(_URL_STARTS):
        return None
    if "/" not in match.raw[1:] and "rest" not in content:
        return None  # "/x" alone is as likely a file name or a separator as an endpoint
    method = method_hint([text[: span.quote_start]], text[span.end :], text) or _quoted_method(
        text[: span.quote_start]
    )
    query = query_key_at(content, col - span.start)
    if query is not None:
        key_start, key_end = query
        return CallSite(
            method=method,
            url=content,
            role=QUERY,
            name=content[key_start:key_end],
            start=span.start + key_start + shift,
            end=span.start + key_end + shift,
            client=HTTP,
            language=language,
        )
    return CallSite(
        method=method,
        url=content,
        role=ENDPOINT,
        name="",
        start=span.start + shift,
        end=span.end + shift,
        client=HTTP,
        language=language,
    )


def _quoted_method(before: str) -> str:
    """The last HTTP method written as a string before the path: ``NewRequest("DELETE", base+``."""
    found = _QUOTED_METHOD.findall(before)
    return found[-1].upper() if found else ""


def _in_comment(text: str, position: int, spans: list) -> bool:
    """Whether a `//` or `#` comment outside any string starts before `position`."""
    for marker in ("//", "#"):
        at = text.find(marker)
        while 0 <= at < position:
            inside = any(s.quote_start <= at < s.end + len(s.quote) for s in spans)
            starts_comment = marker == "//" or at == 0 or text[at - 1] in " \t"
            if not inside and starts_comment:
                return True
            at = text.find(marker, at + 1)
    return False
