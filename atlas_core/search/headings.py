"""Heading vectors: one short vector per chunk, embedded from its head alone (its page title and
heading path, the lines a chunk's embed text starts with), which lifts the chunk's vector score
where the question matches its head better than its whole text.

A chunk's one vector spreads over up to 256 tokens of text; a question in a user's words often
names the section (``"skip computing the total"`` against a heading ``Count limit``) more than any
sentence of it, and that match drowns in the rest. The lift is ``score + w * max(head - score,
0)``: a head that matches no better than the chunk changes nothing. Measured on the held-out
question set (benchmarks/questions, real Collibra docs, default model), hybrid MRR@10 / Recall@5
at w 0.3 against none: dev 0.875 / 0.886 against 0.872 / 0.882, train 0.893 / 0.904 against
0.885 / 0.902, test 0.833 / 0.858 against 0.817 / 0.858 (docs/evaluation.md). Embedding the heads
of the Collibra bundle's 4,246 chunks took 10 s (a few tokens each), and they add a float16 matrix
the size of the vectors'.

Stored as ``headings.npy`` (float16, one row per chunk in the chunk table's order); the
manifest's ``headings`` section says how many. A bundle without them ranks as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from atlas_core.search.dense import DenseIndex
    from atlas_core.types import Problem


HEADINGS_FILE = "headings.npy"
HEADINGS_FORMAT = "atlas-headings-1"


class _Embedder(Protocol):
    def embed_documents(self, texts: Sequence[str], *, progress: bool = ...) -> np.ndarray: ...


class _Writer(Protocol):
    def write_array(self, relpath: str, array: np.ndarray) -> None: ...


def head_texts(embed_texts: Sequence[str]) -> list[str]:
    """Each chunk's head: the lines its embed text starts with before the first blank line (the
    title and heading path `markdown.chunker.embed_text_for` puts there; a chunk with neither,
    its first paragraph)."""
    return [str(text or "").partition("\n\n")[0] for text in embed_texts]


def write_headings(
    writer: _Writer, cols: Mapping[str, Sequence[Any]], embedder: _Embedder, *, progress: bool
) -> dict[str, Any]:
    """Embed the heads of a bundle being built into ``headings.npy``; the manifest's section."""
    import numpy as np

    texts = head_texts(cols["embed_text"])
    vectors = embedder.embed_documents(texts, progress=progress)
    writer.write_array(HEADINGS_FILE, np.asarray(vectors, dtype=np.float16))
    return {"format": HEADINGS_FORMAT, "file": HEADINGS_FILE, "chunks": len(texts)}


def heading_lift(scores: np.ndarray, heads: np.ndarray, weight: float) -> np.ndarray:
    """Each chunk's vector score lifted toward its head's where that is higher: `scores` and
    `heads` are cosines with the query, one per chunk."""
    import numpy as np

    return scores + weight * np.maximum(heads - scores, 0.0)


def describe_headings(manifest: Mapping[str, Any]) -> str:
    """One line for `atlas info`: whether vector search has heading vectors to lift by."""
    section = manifest.get("headings")
    if isinstance(section, Mapping):
        return f"{section.get('chunks')} heading vectors"
    return "none: built before heading vectors (ranks as before)"


def headings_problems(manifest: Mapping[str, Any]) -> list[Problem]:
    """`atlas verify`'s check of the ``headings`` section against this version (the file's hash,
    dtype and shape are checked with every other file)."""
    from atlas_core.search.cards import array_section_problems

    return array_section_problems(manifest, "headings", HEADINGS_FILE, HEADINGS_FORMAT, "chunks")


def load_headings(bundle: Any, rows: int, dims: int) -> DenseIndex | None:
    """The bundle's heading vectors as an index of their own, or None when it has none or they
    do not fit its chunk table (then it ranks without them; `atlas verify` names the file)."""
    from atlas_core.search.cards import optional_array
    from atlas_core.search.dense import DenseIndex

    stored = optional_array(bundle, "headings", HEADINGS_FILE, "heading vectors", (rows, dims))
    return None if stored is None else DenseIndex(stored, threads=1)
