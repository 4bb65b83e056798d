"""Where on a page a mention stands, as bits, and how a command line is keyed.

The mention scan (`mention_scan`, build time) records these and the ranking (`ranking`, serving)
reads them; they live here so that serving a bundle does not import the scanner and the markdown
outline it uses.
"""

from __future__ import annotations

import re

HEADING = 1  # the page title or a heading
DEFINITION = 2  # the first cell of a table row, or the name a bullet starts with
TABLE = 4  # any other table cell
EXAMPLE = 8  # a request or response example: a JSON, YAML, XML or HTTP block
CODE = 16  # any other fenced code block
SPAN = 32  # an inline code span in prose
PROSE = 64  # prose, where only code-shaped spellings count
PLACE_NAMES: tuple[str, ...] = (
    "heading",
    "definition",
    "table",
    "example",
    "code",
    "span",
    "prose",
)

PROMPT_RE = re.compile(r"^(?:\$|>|%|PS[^>]*>)\s+")


def command_key(line: str) -> str:
    """A command line as the index keys it: prompt removed, whitespace collapsed."""
    return " ".join(PROMPT_RE.sub("", line.strip()).split())
