"""Seeded hostile text: the strings every class feeds to queries, paths, URIs and params.

Pieces that have broken text handling somewhere (lone surrogates, control characters, regex
metacharacters, right-to-left overrides, combining marks, NUL) are composed with real words and
identifiers of the fixture corpus, and sometimes repeated into 10,000+ characters.
"""

from __future__ import annotations

import random

WORDS = [
    "findAssets",
    "assetId",
    "GET /rest/2.0/assets/{assetId}",
    "/rest/2.0/assets",
    "asset",
    "workflow",
    "task forms",
    "domains",
    "import",
    "groovy",
    "how do I find assets",
    "page of assets count",
]
HOSTILE = [
    "",
    " ",
    "\t\n\r",
    "\x00",
    "\x1b[31m",
    "\x7f",
    "\x85",
    "\u2028",
    "\u200b",
    "\ufeff",
    "\ufffd",
    "\ud800",
    "\udfff",
    "\ud83d",
    "\U0001f600",
    "\u202e",
    "e\u0301",
    "\u0130",
    "\ufb03",
    "\u4e2d\u6587",
    "\u0639\u0631\u0628\u064a",
    ".*",
    "(a+)+$",
    "[",
    "]",
    "\\",
    "\\1",
    "$",
    "^",
    "|",
    "?",
    "(?i)",
    "(?P<x>",
    "{",
    "}}",
    "%s",
    "%n",
    "{0}",
    "${x}",
    "*",
    "**",
    "OR",
    "NOT",
    '"',
    "'",
    "`",
    "<script>",
    "../",
    "%2e%2e",
    "\\u0000",
    "null",
    "-1",
    "1e308",
    "NaN",
    "\U000e0041",
    "\U0010ffff",
]


def random_codepoints(rng: random.Random, n: int) -> str:
    """`n` characters from anywhere in Unicode, surrogates and unassigned ones included."""
    out = []
    for _ in range(n):
        band = rng.random()
        if band < 0.3:
            out.append(chr(rng.randrange(0x20, 0x7F)))
        elif band < 0.45:
            out.append(chr(rng.randrange(0, 0x20)))
        elif band < 0.6:
            out.append(chr(rng.randrange(0xD800, 0xE000)))
        else:
            out.append(chr(rng.randrange(0x80, 0x110000)))
    return "".join(out)


def text(rng: random.Random, *, long: float = 0.1) -> str:
    """A hostile string: a few pieces joined, now and then repeated past 10,000 characters."""
    pieces = []
    for _ in range(rng.randrange(1, 6)):
        roll = rng.random()
        if roll < 0.35:
            pieces.append(rng.choice(WORDS))
        elif roll < 0.8:
            pieces.append(rng.choice(HOSTILE))
        else:
            pieces.append(random_codepoints(rng, rng.randrange(1, 40)))
    joined = rng.choice(["", " ", "/", "."]).join(pieces)
    if rng.random() < long:
        joined = (joined or "x") * (10_000 // max(1, len(joined)) + rng.randrange(1, 20))
    return joined


def encodable(value: str) -> bool:
    """Whether `value` can travel as UTF-8 (no lone surrogate)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
