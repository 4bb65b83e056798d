"""Where a JSON or YAML document uses a word as a Collibra API name: as a key (a view config's
``"Term": {...}``, a body's property) or as the value of a key that names a type
(``"resourceType": "Term"``). The same word as any other value (``"name": "Source"`` of a
column, ``"sbvr": "ConceptType"`` of a mapping to another vocabulary) is the data's own business.
"""

from __future__ import annotations

import re

# The value of such a key is the name of a Collibra type.
_TYPE_KEY = re.compile(r"(?i)(?:resource|asset|concept)?_?type(?:_?name)?|discriminator")
_QUOTES = "\"'"
MAX_KEY_REACH = 120  # characters looked back for the key a value belongs to


class DataPlaces:
    """`keep(start, end)` for `DeprecationMatcher.find` over a data document."""

    def __init__(self, text: str) -> None:
        self._text = text

    def __call__(self, start: int, end: int) -> bool:
        text = self._text
        after = end
        while after < len(text) and text[after] in _QUOTES:
            after += 1
        while after < len(text) and text[after] in " \t":
            after += 1
        if after < len(text) and text[after] == ":":
            return True  # a key
        return _TYPE_KEY.fullmatch(_key_before(text, start)) is not None


def _key_before(text: str, start: int) -> str:
    """The key whose value starts at `start` (``"key": "`` or ``key: `` just before it), read
    backwards a few characters: a minified document is one line of megabytes."""
    at = start - 1
    low = max(0, start - MAX_KEY_REACH)
    while at >= low and text[at] in _QUOTES + " \t":
        at -= 1
    if at < low or text[at] != ":":
        return ""
    at -= 1
    while at >= low and text[at] in _QUOTES + " \t":
        at -= 1
    end = at + 1
    while at >= low and (text[at].isalnum() or text[at] in "_-"):
        at -= 1
    return text[at + 1 : end]
