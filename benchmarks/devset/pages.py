"""The written pages: markdown with front matter, and where on a page a name is defined."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_INLINE_CODE_RE = re.compile(r"`([^`\n]+)`")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_LINK_ONLY_RE = re.compile(r"^\s*\[[^\]]*\]\([^)]*\)\s*$")


@dataclass(slots=True)
class Page:
    file: str
    title: str
    partial: bool
    lines: list[str]
    fenced: list[str]  # fence language per line ("" outside fences, "-" for an unnamed fence)
    headings: list[str] = field(default_factory=list)
    code_texts: list[str] = field(default_factory=list)  # text in code contexts
    text: str = ""

    @property
    def section(self) -> str:
        return self.file.split("/", 1)[0]


def plain(text: str) -> str:
    """Markdown inline text as read: link texts kept, code marks, emphasis and HTML tags dropped."""
    text = _LINK_RE.sub(r"\1", text)
    return " ".join(re.sub(r"[`*\\]|</?[a-zA-Z][^>]*>", "", text).split())


def read_pages(markdown: Path) -> dict[str, Page]:
    pages: dict[str, Page] = {}
    for path in sorted(markdown.rglob("*.md")):
        raw = path.read_text(encoding="utf-8")
        title, partial, body = "", False, raw
        if raw.startswith("---\n"):
            end = raw.find("\n---", 4)
            if end > 0:
                meta, body = raw[4:end], raw[end + 4 :].lstrip("\n")
                m = re.search(r'^title:\s*"?(.*?)"?\s*$', meta, re.M)
                title = m.group(1) if m else ""
                partial = bool(re.search(r"^partial:\s*true\s*$", meta, re.M))
        lines = body.split("\n")
        fenced: list[str] = []
        opener = ""
        for line in lines:
            m = _FENCE_RE.match(line)
            if opener:
                fenced.append(opener)
                if m and not line.strip().strip("`~"):
                    opener = ""
            elif m:
                opener = m.group(2) or "-"
                fenced.append(opener)
            else:
                fenced.append("")
        page = Page(path.relative_to(markdown).as_posix(), title, partial, lines, fenced)
        page.text = body
        page.headings = [title] if title else []
        for line, lang in zip(lines, fenced, strict=True):
            if lang:
                page.code_texts.append(line)
                continue
            m = _HEADING_RE.match(line)
            if m:
                page.headings.append(plain(m.group(1)))
            page.code_texts.extend(_INLINE_CODE_RE.findall(line))
            if partial or "|" in line:
                page.code_texts.append(line)
        pages[page.file] = page
    return pages


def token_re(name: str) -> re.Pattern[str]:
    """`name` as a whole token: no word character or `-` on either side."""
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def first_cell(line: str) -> str | None:
    """The plain text of a table row's first cell; None for other lines and separator rows."""
    if "|" not in line:
        return None
    stripped = line.strip()
    if set(stripped) <= set("|-: "):
        return None
    cell = stripped.strip("|").split("|", 1)[0]
    return plain(cell).strip()


def definition_weight(page: Page, name: str) -> int:
    """How strongly a written page defines `name`: 3 per heading or title, 1 per table first
    cell, definition bullet or (flattened page) definition line; 0 when it only mentions it."""
    token = token_re(name)
    weight = 3 * sum(1 for h in page.headings if token.search(h))
    bullet = re.compile(rf"^`?{re.escape(name)}`?\s*(?:[-–—:→|]|$)")
    line_def = re.compile(rf"^{re.escape(name)}(?:\s+[A-Z(]|\s*$)")
    for line, lang in zip(page.lines, page.fenced, strict=True):
        if lang or name not in line or _HEADING_RE.match(line):
            continue
        cell = first_cell(line)
        if cell is not None:
            if cell == name or cell.split(" ", 1)[0] == name:
                weight += 1
            continue
        m = _BULLET_RE.match(line)
        # A bullet that is nothing but a link is an index entry pointing elsewhere.
        if (
            m and bullet.match(plain(line[m.end() :])) and not _LINK_ONLY_RE.match(line[m.end() :])
        ) or (page.partial and line_def.match(line.strip())):
            weight += 1
    return weight


def code_count(page: Page, name: str) -> int:
    """Occurrences of `name` as a token in the page's code contexts."""
    token = token_re(name)
    return sum(len(token.findall(t)) for t in page.code_texts)


def _code_shaped(name: str) -> bool:
    return bool(re.search(r"[a-z][A-Z]|_|\d|[.-]", name)) or (name.isupper() and len(name) > 1)


def strict_weight(page: Page, name: str) -> int:
    """`definition_weight`, except that a plain word (`tags`) counts in a heading only when the
    heading is that word: a title in prose is not a definition of a JSON key."""
    if name not in page.text and name not in page.title:
        return 0
    if _code_shaped(name):
        return definition_weight(page, name)
    headings = sum(3 for h in page.headings if h == name)
    probe = Page(
        page.file, "", page.partial, page.lines, page.fenced, [], page.code_texts, page.text
    )
    return headings + definition_weight(probe, name)
