"""Deprecations stated by the docs: sentences, old/new tables, and deprecated table entries.

Each becomes a `Deprecation` row (term, replacement when the docs name one, where it is said),
which the language server turns into diagnostics and quick fixes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from itertools import accumulate

from atlas_core.identifiers.extract.document_scan import Scan, bound
from atlas_core.identifiers.extract.pages import ENDPOINT_RE, METHOD_ALT, PASCAL_RE
from atlas_core.identifiers.spelling import path_key, strip_path
from atlas_core.types import Deprecation, Document, IdentifierEntry

_DEPRECATED_RE = re.compile(r"deprecat", re.IGNORECASE)
_PLAIN_WORD_RE = re.compile(r"[A-Z]?[a-z]+")
_REPLACEMENT_RE = re.compile(
    r"(?:use\s+(?:the\s+)?|replaced\s+(?:by|with)\s+(?:the\s+)?|in\s+favou?r\s+of\s+(?:the\s+)?|"
    r"superseded\s+by\s+(?:the\s+)?|renamed\s+to\s+)"
    rf"(`[^`]+`|(?:(?:{METHOD_ALT})\s+)?/[\w{{}}/.-]+|[A-Za-z_][\w.]*(?:\(\))?)",
    re.IGNORECASE,
)
_TERM_BEFORE_RE = re.compile(
    r"(`[^`]+`|[A-Za-z_][\w.]*(?:\(\))?)\s+(?:\w+\s+){0,2}(?:is|are|has been|have been|was|were)\s+"
    r"(?:now\s+|officially\s+)?deprecated",
    re.IGNORECASE,
)
_TERM_AFTER_RE = re.compile(
    r"\bdeprecated\s+(?:(?:field|parameter|property|endpoint|method|flag|key|option|class|api)\s+)?"
    r"(`[^`]+`|[A-Za-z_][\w.]*)(?:\s+(?:field|parameter|property|endpoint|method|flag|key|option))?",
    re.IGNORECASE,
)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def _codeish(term: str) -> bool:
    """A term worth warning about in code: backticked, an endpoint, or an identifier shape."""
    if term.startswith("`") or term.startswith("/") or re.match(rf"^(?:{METHOD_ALT})\s+/", term):
        return True
    return bool(re.search(r"[a-z][A-Z]|_|\.\w|\(\)$", term)) or bool(PASCAL_RE.match(term))


def _same_term(term: str) -> str:
    """A term as compared with its replacement: endpoints without base, prefix or param names."""
    if "/" in term:
        method, path = strip_path(term)
        return f"{method} {path_key(path)}"
    return term


def _strip_term(term: str) -> str:
    return term.strip().strip("`").strip().rstrip(".,;:")


_OLD_COLUMN_RE = re.compile(r"\b(?:deprecated|old|legacy|former|previous|removed)\b")
_NEW_COLUMN_RE = re.compile(r"\b(?:current|new|replacement|instead|use|now)\b")


def _deprecation_table(scan: Scan, doc: Document, i: int, out: list[Deprecation]) -> int:
    """A `Deprecated | Current` (or `Old name | Use instead`) table whose header is line index i,
    in a passage that talks about deprecation; returns the index after the table."""
    header = [c.strip().lower() for c in scan.lines[i].strip().strip("|").split("|")]
    old = next((n for n, c in enumerate(header) if _OLD_COLUMN_RE.search(c)), None)
    new = next((n for n, c in enumerate(header) if n != old and _NEW_COLUMN_RE.search(c)), None)
    if old is None or new is None:
        return i + 1
    note = ""
    for back in range(i - 1, max(-1, i - 10), -1):
        if _DEPRECATED_RE.search(scan.lines[back]):
            note = bound(scan.lines[back], 300)
            break
    if not note and "deprecated" not in header[old]:
        return i + 1  # an "old | new" table about something else (a changelog, a migration)
    j = i + 1
    while j < len(scan.lines) and "|" in scan.lines[j]:
        cells = [c.strip() for c in scan.lines[j].strip().strip("|").split("|")]
        if not re.fullmatch(r"[-: ]*", "".join(cells)) and len(cells) > max(old, new):
            term, repl = _strip_term(cells[old]), _strip_term(cells[new])
            if term and len(term) <= 80:
                out.append(_deprecation(scan, doc, term, repl, j + 1, note or doc.title))
        j += 1
    return j


def _deprecation(
    scan: Scan, doc: Document, term: str, repl: str, line: int, note: str
) -> Deprecation:
    section = scan.section_at(line)
    anchor = section.anchor if section else ""
    url = doc.url + (f"#{anchor}" if anchor and doc.url else "")
    whole = not term.startswith("/") and " " not in term
    return Deprecation(
        term, repl, doc.path, line, url, bound(note, 300), whole, code_only=plain_word(term)
    )


def plain_word(term: str) -> bool:
    """Whether a term is also an ordinary word (Term, Source, Member): one word of letters with at
    most an initial capital. Compound names (ConceptType, getVocabulary) never occur by chance."""
    return bool(_PLAIN_WORD_RE.fullmatch(term))


def _paragraphs(scan: Scan) -> Iterable[tuple[str, list[int], list[int]]]:
    """Prose paragraphs as (joined text, start offset of each line, 1-based line numbers): a
    sentence that says "deprecated" often wraps onto the next line."""
    lines: list[int] = []
    for i, line in enumerate([*scan.lines, ""]):
        text = line.strip()
        prose = (
            text
            and i < len(scan.lines)
            and not scan.in_code[i]
            and not text.startswith(("#", "|"))
            and text.count("|") < 2
        )
        if prose:
            lines.append(i)
            continue
        if lines:
            parts = [scan.lines[n].strip() for n in lines]
            starts = list(accumulate((len(p) + 1 for p in parts[:-1]), initial=0))
            yield " ".join(parts), starts, [n + 1 for n in lines]
            lines = []


def extract_deprecations(doc: Document, scan: Scan) -> list[Deprecation]:
    out: list[Deprecation] = []
    i = 0
    while i < len(scan.lines):
        header = not scan.in_code[i] and "|" in scan.lines[i] and i + 1 < len(scan.lines)
        if header and re.fullmatch(r"\s*\|?\s*:?-{2,}.*", scan.lines[i + 1]):
            i = _deprecation_table(scan, doc, i, out)
            continue
        i += 1
    for text, starts, numbers in _paragraphs(scan):
        if not _DEPRECATED_RE.search(text) or len(text) > 5000:
            continue
        sentences = _SENTENCE_RE.split(text)
        offset = 0
        for n, sentence in enumerate(sentences):
            offset = text.find(sentence, offset)
            if not _DEPRECATED_RE.search(sentence):
                continue
            follow = " ".join(sentences[n : n + 2])
            terms = [m.group(1) for m in _TERM_BEFORE_RE.finditer(sentence)]
            terms += [m.group(1) for m in _TERM_AFTER_RE.finditer(sentence)]
            terms += [
                f"{m.group(1)} {strip_path(m.group(2))[1]}" for m in ENDPOINT_RE.finditer(sentence)
            ]
            after = follow.split("deprecat", 1)[-1]
            repl_m = _REPLACEMENT_RE.search(after) or _REPLACEMENT_RE.search(follow)
            repl = _strip_term(repl_m.group(1)) if repl_m else ""
            line = numbers[max(0, bisect.bisect_right(starts, offset) - 1)]
            for raw in dict.fromkeys(terms):
                term = _strip_term(raw)
                if term and _codeish(raw.strip()) and _same_term(term) != _same_term(repl):
                    out.append(_deprecation(scan, doc, term, repl, line, sentence))
    return out


def entry_deprecation(entry: IdentifierEntry) -> Deprecation:
    replacement = entry.replacement
    if not replacement:
        m = _REPLACEMENT_RE.search(entry.summary)
        replacement = _strip_term(m.group(1)) if m else ""
    return Deprecation(
        term=entry.name,
        replacement=replacement,
        file=entry.file,
        line=entry.line,
        url=entry.url,
        note=bound(entry.summary, 300),
        whole_word=entry.kind != "endpoint",
        code_only=entry.kind != "endpoint" and plain_word(entry.name),
    )
