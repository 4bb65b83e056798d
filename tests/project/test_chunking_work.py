"""Cutting code by definition tokenizes each line about once, not each growing span again: the
work a first index spends before keyword answers are served (counted, never timed)."""

from __future__ import annotations

import re

from atlas_core.sources import chunk_code_documents
from atlas_core.types import Document

_WORD = re.compile(r"\w+|[^\w\s]")


def _operations(count: int) -> str:
    """A generated client's shape: one class of long operations (a docstring listing every
    parameter, then a body checking each), each longer than one chunk."""
    methods = []
    for i in range(count):
        params = "\n".join(
            f"        :param str field_{j}: the shelf's field {j} to filter on" for j in range(30)
        )
        checks = "\n".join(
            f"        if kwargs.get('field_{j}') is not None:\n"
            f"            query.append(('field{j}', kwargs['field_{j}']))"
            for j in range(30)
        )
        methods.append(
            f'''    def list_shelves_{i}(self, shelf_id, **kwargs):
        """List the shelves of a store ({i}).

{params}
        :return: ShelfPage
        """
        query = []
{checks}
        return self.api_client.call_api("/shelves/{i}", "GET", query)
'''
        )
    return 'class ShelvesApi(object):\n    """Shelves operations."""\n\n' + "\n".join(methods)


def test_each_line_is_tokenized_about_once() -> None:
    text = _operations(20)
    seen: list[int] = []

    def count_tokens(piece: str) -> int:
        seen.append(len(piece))
        return len(_WORD.findall(piece)) + 2

    doc = Document(
        path="inventory/shelves_api.py",
        publication="shop",
        title="inventory/shelves_api.py",
        url="",
        text=text,
        source="code",
        metadata={"language": "python"},
    )
    chunks, _ = chunk_code_documents([doc], count_tokens=count_tokens, max_tokens=256)
    assert len(chunks) > 40  # each operation in several parts
    # What cutting tokenized (the chunks' own embed texts, counted once each, aside).
    embedded = sum(len(c.embed_text) for c in chunks)
    assert sum(seen) - embedded < 2 * len(text)
