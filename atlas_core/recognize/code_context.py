"""Whether one occurrence of a term in a source text is code rather than prose.

Deprecations marked `code_only` (plain English words such as ``Term`` or ``Source`` that the
Output Module retired) are only worth a warning where they are code: quoted as a whole (a string
literal, a JSON key or value, inline code in markdown) or a YAML/properties key at the start of a
line. In a comment or a sentence the same word is just English. The test is textual, so it needs
no parser and costs a few character comparisons per occurrence.
"""

from __future__ import annotations

_QUOTES = "\"'`"


def is_code_occurrence(text: str, start: int, end: int, *, prose_file: bool = False) -> bool:
    """Whether ``text[start:end]`` is code. `prose_file` (markdown, plain text): only a quoted or
    backticked occurrence counts, since "Term: the old name" there is a sentence, not a key."""
    if not 0 <= start < end <= len(text):
        return False
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    if before and before in _QUOTES and after == before:
        return True
    if prose_file:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    lead = text[line_start:start].strip()
    if lead not in ("", "-"):
        return False
    i = end
    while i < len(text) and text[i] in " \t":
        i += 1
    return i < len(text) and text[i] in ":="
