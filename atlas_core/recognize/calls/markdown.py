"""Finding the fenced code block a markdown cursor is in."""

from __future__ import annotations

import re

from atlas_core.recognize.calls.site import Document

_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[ \t]*([^\n`]*)$", re.MULTILINE)


def fenced_block_at(document: Document, line: int) -> tuple[str, int, int] | None:
    """(info word, first body line, line after the body) of the block holding `line`, or None.

    Only fence lines are visited (one regex pass up to the cursor), so a long README costs
    little more than a short one.
    """
    text = document.text
    cursor = document.char_offset(line, 0)
    opener: re.Match[str] | None = None
    for match in _FENCE.finditer(text, 0, cursor):
        if opener is None:
            opener = match
        elif _closes(match, opener):
            opener = None
    if opener is None:
        return None
    first = text.count("\n", 0, opener.start()) + 1
    if line < first:
        return None  # on the opening fence itself
    last = document.line_count
    for match in _FENCE.finditer(text, cursor):
        if _closes(match, opener):
            last = text.count("\n", 0, match.start())
            break
    if line >= last:
        return None
    info = opener.group(2).strip().split()
    return (info[0].lower().strip("{}.") if info else ""), first, last


def _closes(match: re.Match[str], opener: re.Match[str]) -> bool:
    fence, rest = match.group(1), match.group(2).strip()
    return fence[0] == opener.group(1)[0] and len(fence) >= len(opener.group(1)) and not rest
