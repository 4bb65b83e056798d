"""One pass over a markdown page for the identifier extractors: its H1-H3 sections with their
anchors and first paragraph, its code blocks, and which lines are code.

Fences, headings and anchors come from `atlas_core.markdown_outline`, the chunker's own scan, so
an entry's line and anchor agree with the chunk that holds it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from atlas_core.markdown_outline import fence_ids, scan_headings

SUMMARY_CHARS = 400
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

    def section_by_anchor(self, anchor: str) -> Section | None:
        for s in self.sections:
            if s.anchor == anchor:
                return s
        return None


def bound(text: str, limit: int = SUMMARY_CHARS) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + " …"
