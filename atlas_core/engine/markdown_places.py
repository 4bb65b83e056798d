"""Where a markdown document's single deprecated word counts: in its prose as in any prose, but
inside a fenced block as in a file of the block's language. A ```json or bare block is data
(`data_places`: a key or a type name); a block of code counts the word only where a call the
readers see uses it (`deprecations.ApiPlaces`). ``{"sbvr": "ConceptType"}`` in a README's
mapping example is the data's own business, as it is in a .json file."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING

from atlas_core.engine.data_places import DataPlaces
from atlas_core.recognize import code_block_spans

if TYPE_CHECKING:
    from atlas_core.recognize import Located

# Blocks read as data: the data languages, and blocks that name none (a body, a response).
_DATA_BLOCKS = frozenset({"json", "jsonc", "yaml", "", "text"})


class MarkdownPlaces:
    """`keep(start, end)` for `DeprecationMatcher.find` over a markdown document."""

    def __init__(self, text: str, sites: Sequence[Located] | None) -> None:
        from atlas_core.engine.deprecations import ApiPlaces

        self._blocks = code_block_spans(text)
        self._starts = [start for _, start, _ in self._blocks]
        self._data = DataPlaces(text)
        self._code = ApiPlaces(text, "markdown", sites)

    def __call__(self, start: int, end: int) -> bool:
        at = bisect.bisect_right(self._starts, start) - 1
        if at < 0 or start >= self._blocks[at][2]:
            return True  # prose
        if self._blocks[at][0] in _DATA_BLOCKS:
            return self._data(start, end)
        return self._code(start, end)
