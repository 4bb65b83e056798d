"""What `atlas setup` agrees to read: how deep a config may nest, how long a whole number may be,
how far YAML aliases may repeat the document. No client writes a config anywhere near these; a
file beyond them is damaged or hostile, and is refused in one line, left exactly as it was.

Parsers raise `LimitError` (with a line where they know it); `formats` turns it into the
ConfigError that names the file.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from atlas_core.errors import ConfigError
from atlas_core.safeio import deeper_than

# Objects and lists inside one another, the document itself counted. Real configs nest under ten.
MAX_DEPTH = 64
# Python refuses to turn longer decimal strings into an int (sys.get_int_max_str_digits).
MAX_DIGITS = sys.get_int_max_str_digits() or 4300
# Nodes that YAML aliases may add to the document by repeating what an anchor names.
MAX_ALIAS_NODES = 100_000

_LONG_DIGITS = re.compile(rf"(?<![0-9_])[0-9_]{{{MAX_DIGITS + 1}}}")


class LimitError(ValueError):
    def __init__(self, kind: str, what: str, hint: str, line: int | None = None) -> None:
        self.kind = kind  # "depth", "number" or "aliases"
        self.what = what
        self.hint = hint
        self.line = line
        super().__init__(what)


def too_deep(line: int | None = None) -> LimitError:
    return LimitError(
        "depth",
        f"is nested more than {MAX_DEPTH} levels deep",
        "no client writes a config this deep: move the file aside (or fix it by hand), "
        "then run atlas setup again",
        line,
    )


def number_too_long(digits: int, line: int | None = None) -> LimitError:
    return LimitError(
        "number",
        f"holds a whole number {digits} digits long (at most {MAX_DIGITS} are read)",
        "shorten the number or quote it as a string by hand, then run atlas setup again",
        line,
    )


def alias_bomb(line: int | None = None) -> LimitError:
    return LimitError(
        "aliases",
        f"uses YAML aliases that repeat more than {MAX_ALIAS_NODES} values (or refer to "
        "themselves)",
        "write the repeated values out by hand instead of through anchors and aliases, "
        "then run atlas setup again",
        line,
    )


def number_line(text: str) -> int | None:
    """The line of the first whole number too long to read, for a parser that cannot say."""
    match = _LONG_DIGITS.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def config_error(exc: LimitError, where: str, text: str = "") -> ConfigError:
    if exc.line is None and exc.kind == "number":
        exc.line = number_line(text)
    at = f" at line {exc.line}" if exc.line is not None else ""
    return ConfigError(
        f"{where} {exc.what}{at}; atlas setup left it unchanged", hint=exc.hint, path=where
    )


def check_depth(data: Any) -> None:
    """Raise LimitError when `data` nests deeper than MAX_DEPTH (checked without recursion: a
    parser may build a deep value without recursing, as TOML's dotted keys do)."""
    if deeper_than(data, MAX_DEPTH):
        raise too_deep()
