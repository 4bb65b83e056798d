"""The outline of a markdown page: fenced code blocks, headings and their GitHub anchors.

The chunker, the OpenAPI page renderer and the identifier extractor all read headings through
these functions, so a heading's line and anchor agree everywhere in a bundle.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from atlas_core.types import Section

# Far above any real heading (Collibra's longest is under 100 characters).
MAX_HEADING_CHARS = 256

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# Only the opening of an ATX heading: a lazy body followed by an optional closing sequence, as one
# regex, backtracks quadratically on a long line of spaces; `atx_heading` strips the closing instead.
ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_PARAGRAPH_RE = re.compile(r"^ {0,3}(?:[-*+>|<]|\d+[.)]\s|#|$)")


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str  # plain text: inline markdown removed
    line: int  # 0-based index of the heading's text line
    end: int  # 0-based index of its last line (the underline of a setext heading)
    anchor: str


# --- markdown structure -------------------------------------------------------------------------


def fence_ids(lines: Sequence[str]) -> list[int]:
    """For each line, the index of the fenced code block it belongs to (fence lines included),
    or -1 outside fences. An unclosed fence runs to the end, as in CommonMark."""
    ids = [-1] * len(lines)
    opener: str | None = None
    block = -1
    for i, line in enumerate(lines):
        m = FENCE_RE.match(line)
        if opener is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                opener = m.group(1)
                block += 1
                ids[i] = block
        else:
            ids[i] = block
            closes = (
                m is not None
                and m.group(1)[0] == opener[0]
                and len(m.group(1)) >= len(opener)
                and not m.group(2).strip()
            )
            if closes:
                opener = None
    return ids


def fence_mask(lines: Sequence[str]) -> list[bool]:
    """True for each line that belongs to a fenced code block, the fence lines included."""
    return [n >= 0 for n in fence_ids(lines)]


# No class here may run past the next opener ("[", "<", a run of "_"): an unclosed one would
# otherwise make every later opener scan to the end of the line, quadratic in a long heading.
_INLINE_LINK_RE = re.compile(r"!?\[([^\[\]]*)\]\([^)\[]*\)")
_INLINE_MARK_RE = re.compile(r"[`*]|(?<!\w)_+|(?<!_)_+(?!\w)|</?[a-zA-Z][^<>]*>")


def plain_heading(text: str) -> str:
    """Heading text as a reader sees it: links, emphasis and code marks removed; at most
    MAX_HEADING_CHARS, since every chunk of a section repeats its heading path (a heading as long
    as a book would make chunking quadratic)."""
    text = _INLINE_LINK_RE.sub(r"\1", text)
    text = _INLINE_MARK_RE.sub("", text)
    text = text.replace("\\", "")
    return " ".join(text.split())[:MAX_HEADING_CHARS].rstrip()


def github_slug(text: str) -> str:
    """GitHub's heading anchor: lowercase, punctuation dropped, spaces to hyphens."""
    text = plain_heading(text).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


class Slugger:
    """Unique anchors within one page, numbered the way GitHub numbers repeated headings."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def slug(self, text: str) -> str:
        base = github_slug(text)
        count = self._seen.get(base)
        if count is None:
            self._seen[base] = 0
            return base
        count += 1
        while f"{base}-{count}" in self._seen:
            count += 1
        self._seen[base] = count
        self._seen[f"{base}-{count}"] = 0
        return f"{base}-{count}"


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, raw text) of an ATX heading line, closing `#`s removed; None for other lines."""
    m = ATX_RE.match(line)
    if m is None:
        return None
    text = line[m.end() :].rstrip(" \t")
    body = text.rstrip("#")
    if not body or body[-1] in " \t":
        # A closing sequence counts only when it stands alone or after a space (`# C#` keeps it).
        text = body.rstrip(" \t")
    return len(m.group(1)), text


def scan_headings(lines: Sequence[str], mask: Sequence[bool] | None = None) -> list[Heading]:
    """ATX and setext headings outside code fences, in order, with unique GitHub anchors."""
    mask = fence_mask(lines) if mask is None else mask
    slugger = Slugger()
    found: list[Heading] = []
    for i, line in enumerate(lines):
        if mask[i]:
            continue
        atx = atx_heading(line)
        if atx is not None:
            text = plain_heading(atx[1])
            if text:
                found.append(Heading(atx[0], text, i, i, slugger.slug(text)))
            continue
        if i == 0 or not _SETEXT_RE.match(line):
            continue
        prev = lines[i - 1]
        if mask[i - 1] or _NOT_PARAGRAPH_RE.match(prev) or (found and found[-1].end == i - 1):
            continue
        # Only a one-line paragraph becomes a setext heading here; a longer paragraph followed
        # by a rule is rare in docs and reads as text either way.
        if i >= 2 and lines[i - 2].strip() and not mask[i - 2] and not ATX_RE.match(lines[i - 2]):
            continue
        text = plain_heading(prev)
        if text:
            level = 1 if line.strip().startswith("=") else 2
            found.append(Heading(level, text, i - 1, i, slugger.slug(text)))
    return found


def heading_anchors(text: str) -> dict[int, str]:
    """1-based line number of each heading -> its anchor, exactly as the chunker assigns them."""
    return {h.line + 1: h.anchor for h in scan_headings(text.split("\n"))}


def split_level(headings: Sequence[Heading]) -> int:
    """The heading level a page is cut at: H2 when present, else the page's own structure."""
    counts: dict[int, int] = defaultdict(int)
    for h in headings:
        counts[h.level] += 1
    if not counts:
        return 0
    if 2 in counts:
        return 2
    repeated = [level for level in sorted(counts) if counts[level] >= 2]
    return repeated[0] if repeated else max(counts)


# --- sections of a page -------------------------------------------------------------------------


def page_lines(data: bytes) -> list[str]:
    """A mirror page's lines as every result numbers them: split on "\\n" only (as the chunker
    and ripgrep count), a carriage return before it dropped, no empty line after a final break."""
    text = data.decode("utf-8-sig", "replace")
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True, slots=True)
class Outline:
    """A page's headings (the chunker's own scan), to place any line in its section quickly."""

    lines: Sequence[str]
    headings: tuple[Heading, ...]
    starts: tuple[int, ...]  # 1-based line of each heading

    @classmethod
    def of(cls, lines: Sequence[str]) -> Outline:
        headings = tuple(scan_headings(lines))
        return cls(lines=lines, headings=headings, starts=tuple(h.line + 1 for h in headings))

    def section_at(self, line: int) -> Section:
        """The heading path (``H1 > H2``) around ``line`` and the line range of that section,
        subsections included, trailing blank lines left out."""
        index = bisect_right(self.starts, line) - 1
        stack: list[Heading] = []
        for heading in self.headings[: index + 1]:
            while stack and stack[-1].level >= heading.level:
                stack.pop()
            stack.append(heading)
        start = self.starts[index] if index >= 0 else 1
        end = len(self.lines)
        for heading in self.headings[index + 1 :]:
            if not stack or heading.level <= stack[-1].level:
                end = heading.line  # 0-based index of the next heading: the line before it
                break
        while end > max(line, start) and not self.lines[end - 1].strip():
            end -= 1
        return Section(
            heading=" > ".join(h.text for h in stack), line_start=start, line_end=max(end, start)
        )
