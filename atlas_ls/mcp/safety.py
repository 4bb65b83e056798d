"""Flag text in the docs that looks aimed at the model reading it rather than at people.

Docs are untrusted input for an agent: a page (or a poisoned mirror) can carry instructions for
the model, text a person never sees, chat role markers or fake tool calls. The server never edits
what it returns; it reports what it found beside the text so the agent (and its user) can decide.
The patterns are deliberately narrow: a warning on every HTTP header example would teach agents to
ignore the flags.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_FLAGS = 20  # per passage: enough to act on, bounded like every list we return
_EXCERPT_CHARS = 80

# Characters a reader does not see: zero-width spaces and joiners, the BOM inside text, bidi
# overrides and isolates (which reorder what is shown), and the Unicode "tag" block that can spell
# out whole invisible sentences.
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]+"
)

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "instruction",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|all|any|your)\b"
            r"[^.\n]{0,40}?\b(?:instructions?|prompts?|rules|guidelines|directions)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "instruction",
        re.compile(
            r"\b(?:you are now|from now on,? you|your new (?:task|instructions?|role) (?:is|are)"
            r"|new instructions?:|(?:reveal|print|show|leak) (?:your|the) system prompt"
            r"|do not (?:tell|inform|mention (?:this )?to) the user"
            r"|(?:attention|note to|message for|instructions? for) (?:the )?(?:ai|llm|language model|assistant|agent)s?\b)",
            re.IGNORECASE,
        ),
    ),
    (
        "role_marker",
        re.compile(
            r"(?:^[ \t>#*]*(?:system|assistant|developer)\s*:\s*\S"
            r"|<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>"
            r"|\[/?INST\]|<</?SYS>>"
            r"|</?(?:system|assistant|system-prompt|system_prompt)>"
            r"|^#{1,6}\s*(?:system|instruction|assistant)\s*(?:prompt)?\s*:?\s*$)",
            re.IGNORECASE | re.MULTILINE,
        ),
    ),
    (
        "tool_call",
        re.compile(
            r"(?:</?(?:tool_call|tool_use|function_calls?|invoke|antml:[a-z_]+)\b"
            r'|"(?:tool_calls|tool_use|function_call)"\s*:'
            r'|\{\s*"name"\s*:\s*"[\w.-]+"\s*,\s*"(?:arguments|parameters|input)"\s*:)',
            re.IGNORECASE,
        ),
    ),
    (
        "hidden_text",
        re.compile(
            r"(?:<!--(?:(?!-->).){0,400}?\b(?:ignore|instruction|assistant|system prompt|you are|model)\b"
            r"|style\s*=\s*[\"'][^\"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0"
            r"|opacity\s*:\s*0(?:\.0+)?\s*[;\"'])"
            r"|<[a-z]+[^>]*\shidden(?:\s|>|=))",
            re.IGNORECASE | re.DOTALL,
        ),
    ),
)


# For each pattern, words one of which every match contains, lowercased: a text holding none of them
# cannot match, so its scan skips the pattern (most passages hold none: several times faster). The
# patterns ignore case as Unicode does, so four letters outside ASCII also match ASCII letters
# ("ſ" is an s, "K" a k, "ı" and "İ" an i) where `str.lower` keeps them apart: a text with any of
# them is scanned in full.
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")
_TRIGGERS: tuple[tuple[str, ...], ...] = (
    ("ignore", "disregard", "forget", "override"),
    (
        "you are now",
        "from now on",
        "your new ",
        "system prompt",
        "do not ",
        "attention",
        "note to",
        "message for",
        "instruction",
    ),
    ("system", "assistant", "developer", "instruction", "<|", "inst]", "<<"),
    ("tool_call", "tool_use", "function_call", "invoke", "antml:", '"name"'),
    ("<!--", "style", "hidden"),
)


@dataclass(frozen=True, slots=True)
class Flag:
    """One suspicious spot in a passage."""

    kind: str  # instruction | hidden_text | role_marker | tool_call
    line: int  # line number: 1-based in the passage, or in the file when first_line is given
    excerpt: str  # what matched, invisible characters spelled as U+XXXX


def _visible(text: str) -> str:
    """Spell out characters a reader cannot see so a flag's excerpt shows them."""
    out = []
    for ch in text:
        if _INVISIBLE.fullmatch(ch) or (
            unicodedata.category(ch) in ("Cf", "Cc") and ch not in "\t\n"
        ):
            out.append(f"U+{ord(ch):04X}")
        else:
            out.append(ch)
    joined = "".join(out).replace("\n", " ")
    return joined if len(joined) <= _EXCERPT_CHARS else joined[: _EXCERPT_CHARS - 1] + "…"


def scan(text: str, first_line: int = 1) -> list[Flag]:
    """Return the injection-looking spots in ``text``, in order, at most MAX_FLAGS."""
    ascii_only = text.isascii()
    if not ascii_only and _FOLDS_TO_ASCII.search(text):
        patterns = _PATTERNS
    else:
        lowered = text.lower()
        patterns = tuple(
            pattern
            for pattern, words in zip(_PATTERNS, _TRIGGERS, strict=True)
            if any(word in lowered for word in words)
        )
    if ascii_only and not patterns:
        return []
    # ASCII text holds no invisible character
    return _scan(text, first_line, patterns, invisible=not ascii_only)


def _scan(
    text: str,
    first_line: int,
    patterns: tuple[tuple[str, re.Pattern[str]], ...],
    *,
    invisible: bool,
) -> list[Flag]:
    found: list[tuple[int, Flag]] = []
    if invisible:
        for match in _INVISIBLE.finditer(text):
            flag = _flag("hidden_text", text, match.start(), match.group(), first_line)
            found.append((match.start(), flag))
    for kind, pattern in patterns:
        for match in pattern.finditer(text):
            found.append(
                (match.start(), _flag(kind, text, match.start(), match.group(), first_line))
            )
            if len(found) > 4 * MAX_FLAGS:
                break
    found.sort(key=lambda item: item[0])
    return [flag for _, flag in found[:MAX_FLAGS]]


def _flag(kind: str, text: str, offset: int, matched: str, first_line: int) -> Flag:
    line = first_line + text.count("\n", 0, offset)
    return Flag(kind=kind, line=line, excerpt=_visible(matched.strip() or matched))
