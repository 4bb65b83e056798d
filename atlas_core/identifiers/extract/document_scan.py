"""One pass over a markdown page for the identifier extractors: its H1-H3 sections with their
anchors and first paragraph, its code blocks, which lines are code, and how much a section is
about a given name (which ranks the pages that document one name).

Fences, headings and anchors come from `atlas_core.markdown.outline`, the chunker's own scan, so
an entry's line and anchor agree with the chunk that holds it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from atlas_core.markdown import fence_ids, scan_headings

SUMMARY_CHARS = 400
# Lines longer than this are pasted specs or minified JSON: no evidence of documentation.
LONG_LINE = 2000
HEADING_WEIGHT = 8
DEFINITION_WEIGHT = 4
CODE_WEIGHT = 2
_DEFINING_WORDS = frozenset({"class", "interface", "type", "input", "enum", "record", "schema"})
_COMMENT_RE = re.compile(r"^\s*(?:#|//|/?\*|--)")
# Markdown structure: headings, anchors, sections and their first paragraph.

_FENCE_LANG_RE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*([\w+-]*)")


@dataclass(frozen=True, slots=True)
class Section:
    level: int  # 1-3 for headings, 0 for the document's implicit top section
    title: str
    line: int  # 1-based
    anchor: str
    summary: str


@dataclass(frozen=True, slots=True)
class CodeBlock:
    lang: str
    start: int  # 1-based line of the first content line
    lines: tuple[str, ...]


class Scan:
    """One pass over a document: its sections (H1-H3), code blocks and the section of each line."""

    def __init__(self, text: str, title: str) -> None:
        # Same line split, fences and anchors as the chunker, so entries and chunks agree.
        self.lines = text.split("\n")
        ids = fence_ids(self.lines)
        self.in_code = [n >= 0 for n in ids]
        self.blocks: list[CodeBlock] = []
        i = 0
        while i < len(ids):
            if ids[i] < 0:
                i += 1
                continue
            j = i
            while j + 1 < len(ids) and ids[j + 1] == ids[i]:
                j += 1
            m = _FENCE_LANG_RE.match(self.lines[i])
            lang = m.group(1).lower() if m else ""
            self.blocks.append(CodeBlock(lang, i + 2, tuple(self.lines[i + 1 : j])))
            i = j + 1
        heads = [h for h in scan_headings(self.lines, self.in_code) if h.level <= 3]
        self.sections: list[Section] = []
        if not any(h.level == 1 for h in heads):
            first = heads[0].line if heads else len(self.lines)
            self.sections.append(Section(0, title, 1, "", self._summary(-1, first, title)))
        for n, h in enumerate(heads):
            end = heads[n + 1].line if n + 1 < len(heads) else len(self.lines)
            self.sections.append(
                Section(h.level, h.text, h.line + 1, h.anchor, self._summary(h.end, end))
            )
        self._starts = [s.line for s in self.sections]
        self._weights: dict[tuple[str, int], int] = {}

    def _summary(self, head: int, end: int, skip: str = "") -> str:
        """The first prose paragraph after line index `head`, bounded to SUMMARY_CHARS."""
        para: list[str] = []
        for i in range(head + 1, end):
            line = self.lines[i].strip()
            prose = (
                line
                and not self.in_code[i]
                and not line.startswith(("|", ">", "<a ", "<!--", "!["))
                and not re.fullmatch(r"[-|: ]+", line)
                and line.count("|") < 2
                and not (skip and line == skip)
            )
            if prose:
                para.append(line)
            elif para:
                break
        return bound(" ".join(para))

    def section_at(self, line: int) -> Section | None:
        """The section that contains 1-based `line`."""
        i = bisect.bisect_right(self._starts, line) - 1
        return self.sections[i] if i >= 0 else (self.sections[0] if self.sections else None)

    def weight(self, name: str, line: int) -> int:
        """How much the section holding 1-based `line` is about `name`: each mention in its
        heading counts 8, where the name is defined (a JSON/YAML key, `class Name`, `type Name`)
        4, in code 2, in prose or a code comment 1. A page that defines and shows a type outranks
        one that names it in passing."""
        i = max(0, bisect.bisect_right(self._starts, line) - 1)
        cached = self._weights.get((name, i))
        if cached is not None:
            return cached
        first = self.sections[i].line - 1 if self.sections else 0
        if self.sections and not self.sections[i].level:
            first = 0
        end = self.sections[i + 1].line - 1 if i + 1 < len(self.sections) else len(self.lines)
        score = 0
        for j in range(first, end):
            text = self.lines[j]
            if name not in text or len(text) > LONG_LINE:
                continue
            mentions = _mentions(text, name)
            if not mentions:
                continue
            if j == first and (self.sections[i].level or text.strip() == self.sections[i].title):
                score += HEADING_WEIGHT * mentions
            elif _defines(text, name):
                score += DEFINITION_WEIGHT + mentions - 1
            elif self.in_code[j] and not _COMMENT_RE.match(text):
                score += CODE_WEIGHT * mentions
            else:
                score += mentions
        self._weights[(name, i)] = score
        return score

    def is_heading(self, line: int) -> bool:
        """Whether 1-based `line` is the heading line of an H1-H3 section."""
        section = self.section_at(line)
        return section is not None and section.level > 0 and section.line == line

    def section_by_anchor(self, anchor: str) -> Section | None:
        for s in self.sections:
            if s.anchor == anchor:
                return s
        return None


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c in "_-"


def _mentions(text: str, name: str) -> int:
    """Whole-word occurrences of `name` in `text` (str.find: a regex per name costs more than the
    scan itself)."""
    count, at = 0, text.find(name)
    while at >= 0:
        end = at + len(name)
        if not (at and _is_word_char(text[at - 1])) and not (
            end < len(text) and _is_word_char(text[end])
        ):
            count += 1
        at = text.find(name, end)
    return count


def _defines(text: str, name: str) -> bool:
    """Whether the line defines `name`: a JSON/YAML key or `class|type|... Name`."""
    head = text.lstrip(" \t-*").lstrip("\"'`")
    if head.startswith(name):
        rest = head[len(name) :].lstrip("\"'`").lstrip()
        if rest[:1] in (":", "=", "{"):
            return True
    words = text.split()
    return any(
        w in _DEFINING_WORDS and words[n + 1].rstrip("{:(<") == name
        for n, w in enumerate(words[:-1])
    )


def bound(text: str, limit: int = SUMMARY_CHARS) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + " …"
