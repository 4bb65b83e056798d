"""Where a JSON or YAML document uses a word as a Collibra API name: as a key (a view config's
``"Term": {...}``, a body's property) or as the value of a key that names a type
(``"resourceType": "Term"``). The same word as any other value (``"name": "Source"`` of a
column, ``"sbvr": "ConceptType"`` of a mapping to another vocabulary) is the data's own business.
"""

from __future__ import annotations

import re

# The value of such a key is the name of a Collibra type.
_TYPE_KEY = re.compile(r"(?i)(?:resource|asset|concept)?_?type(?:_?name)?|discriminator")
# The key a value on the same line belongs to: ``"key": "`` or ``key: `` just before it.
_KEY_BEFORE = re.compile(r"""["']?([\w-]+)["']?\s*:\s*["']?$""")
_QUOTES = "\"'"


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
        line_start = text.rfind("\n", 0, start) + 1
        key = _KEY_BEFORE.search(text, max(line_start, start - 200), start)
        return key is not None and bool(_TYPE_KEY.fullmatch(key.group(1)))
