"""Fenced code blocks in markdown: the one a cursor is in (`fenced_block_at`), all of them
(`fenced_blocks`, `code_block_spans`), and the reader language a block is in (`block_language`); and the HTTP
commands written outside them (`prose_commands`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from atlas_core.recognize.text_scan import normalize_language
from atlas_core.syntax import Document

# Fence info strings, folded to the reader's language names (others go through
# `normalize_language`: py -> python, ts -> typescript, ...).
_FENCE_LANGUAGES = {
    "": "",
    "bash": "shell",
    "sh": "shell",
    "shell": "shell",
    "zsh": "shell",
    "console": "shell",
    "shell-session": "shell",
    "shellsession": "shell",
    "curl": "shell",
}

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
    return _info_word(opener), first, last


def fenced_blocks(text: str) -> Iterator[tuple[str, int, int]]:
    """(info word, body start, body end) of every closed fenced block, as offsets in `text`."""
    opener: re.Match[str] | None = None
    for match in _FENCE.finditer(text):
        if opener is None:
            opener = match
        elif _closes(match, opener):
            yield _info_word(opener), opener.end() + 1, match.start()
            opener = None


def code_block_spans(text: str) -> list[tuple[str, int, int]]:
    """(reader language, body start, body end) of every closed fenced block of `text`, in order:
    where a markdown document is code or data rather than prose."""
    return [
        (block_language(info, text[start:end]), start, end)
        for info, start, end in fenced_blocks(text)
    ]


def block_language(info: str, body: str) -> str:
    """The reader language of a block: by its info word, or shell for a bare block of curl."""
    language = _FENCE_LANGUAGES.get(info, normalize_language(info))
    if language == "" and body.lstrip().startswith(("curl", "$ curl")):
        return "shell"
    return language


def _info_word(opener: re.Match[str]) -> str:
    info = opener.group(2).strip().split()
    return info[0].lower().strip("{}.") if info else ""


def _closes(match: re.Match[str], opener: re.Match[str]) -> bool:
    fence, rest = match.group(1), match.group(2).strip()
    return fence[0] == opener.group(1)[0] and len(fence) >= len(opener.group(1)) and not rest


# A command line outside a fenced block: an indented block's or a prompt's (``$ curl ...``), or
# an inline code span (`` `curl -u me https://...` ``).
_COMMAND_LINE = re.compile(r"^\s*(?:[$>]\s+)?(?:curl|wget)\s")
_INLINE_COMMAND = re.compile(r"`((?:curl|wget)\s[^`]*)`")
_MAX_CONTINUED = 60  # lines one command in prose runs on through trailing backslashes


def prose_commands(lines: list[str], skip: set[int]) -> tuple[str, set[int]]:
    """The curl and wget commands of the prose `lines` (those not in `skip`) as a shell text of
    the same lines and columns, all else blanked, and the lines they are on."""
    out = [""] * len(lines)
    taken: set[int] = set()
    n = 0
    while n < len(lines):
        line = lines[n]
        if n in skip or ("curl" not in line and "wget" not in line):
            n += 1
            continue
        if _COMMAND_LINE.match(line):
            end = n
            while lines[end].rstrip().endswith("\\") and end + 1 < len(lines):
                if end - n >= _MAX_CONTINUED or end + 1 in skip:
                    break
                end += 1
            for k in range(n, end + 1):
                out[k] = lines[k]
                taken.add(k)
            n = end + 1
            continue
        spans = list(_INLINE_COMMAND.finditer(line))
        if spans:
            chars = [" "] * len(line)
            for m in spans:
                chars[m.start(1) : m.end(1)] = line[m.start(1) : m.end(1)]
            out[n] = "".join(chars)
            taken.add(n)
        n += 1
    return "\n".join(out), taken
