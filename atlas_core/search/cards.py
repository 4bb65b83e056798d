"""Page cards: one vector per page, embedded from its title, first sentence and headings, which
hybrid search adds to the fused score of every candidate on that page.

A question in a user's words often names what a page is about rather than any one passage of it
("keep going when a few rows are broken"); a card holds the page's outline in one short text, so
the sentence model can match the question against the page as a whole. Measured on the held-out
question set (benchmarks/questions, real Collibra docs, default model), hybrid MRR@10 / Recall@5
with the card weight at 0.1 against none: train 0.877 / 0.839 against 0.866 / 0.843, dev 0.861 /
0.858 against 0.854 / 0.858, test 0.798 / 0.781 against 0.771 / 0.780 (docs/evaluation.md).

Cards are stored as ``cards.npy`` (float16, one row per page in the order the chunk table first
names each file, as `ChunkTable.file_ids` counts them); the manifest's ``cards`` section says how
many. A bundle without them ranks as before.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from atlas_core.errors import BundleError
from atlas_core.types import Problem

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

CARDS_FILE = "cards.npy"
CARDS_FORMAT = "atlas-cards-1"
MAX_HEADINGS = 20  # per card: past these the text passes the model's length anyway
# Cards whose cosines scale the boost: the best of them gets the full weight, the weakest none.
CARD_TOP = 50


class _Embedder(Protocol):
    def embed_documents(self, texts: Sequence[str], *, progress: bool = ...) -> np.ndarray: ...


class _Writer(Protocol):
    def write_array(self, relpath: str, array: np.ndarray) -> None: ...


def card_texts(cols: Mapping[str, Sequence[Any]]) -> list[str]:
    """One card per file, in the order the `file` column first names each file: the page's
    title, the first sentence of its text and its headings' last parts, once each."""
    from atlas_core.search.train import _clean as clean_markup
    from atlas_core.search.train import _first_sentence as first_sentence

    order: dict[str, int] = {}
    titles: list[str] = []
    sentences: list[str] = []
    headings: list[list[str]] = []
    for file, title, heading, text in zip(
        cols["file"], cols["title"], cols["heading"], cols["text"], strict=True
    ):
        code = order.setdefault(file, len(order))
        if code == len(titles):
            titles.append(clean_markup(str(title or "")))
            sentences.append("")
            headings.append([])
        part = clean_markup(str(heading or "").rsplit(" > ", 1)[-1])
        seen = headings[code]
        if part and part != titles[code] and part not in seen and len(seen) < MAX_HEADINGS:
            seen.append(part)
        if not sentences[code]:
            sentences[code] = first_sentence(str(text or ""))
    return [
        " ".join(p for p in (f"{t}.", s, "; ".join(h)) if p.strip(". "))
        for t, s, h in zip(titles, sentences, headings, strict=True)
    ]


def write_cards(
    writer: _Writer, cols: Mapping[str, Sequence[Any]], embedder: _Embedder, *, progress: bool
) -> dict[str, Any]:
    """Embed the cards of a bundle being built into ``cards.npy``; the manifest's section."""
    import numpy as np

    texts = card_texts(cols)
    vectors = embedder.embed_documents(texts, progress=progress)
    writer.write_array(CARDS_FILE, np.asarray(vectors, dtype=np.float16))
    return {"format": CARDS_FORMAT, "file": CARDS_FILE, "pages": len(texts)}


def card_boost(cosines: np.ndarray, files: np.ndarray, weight: float) -> np.ndarray:
    """What each candidate gains from its page's card: `cosines` holds one per card, `files`
    the candidates' file codes. The cosines are scaled over the best `CARD_TOP` cards, so the
    best card adds `weight` and cards below the top ones nothing, whatever the model's range."""
    import numpy as np

    if cosines.size == 0 or files.size == 0:
        return np.zeros(files.shape, dtype=np.float64)
    top = np.partition(cosines, max(0, cosines.size - CARD_TOP))[-CARD_TOP:]
    low, high = float(top.min()), float(top.max())
    scaled = np.clip((cosines.astype(np.float64) - low) / max(high - low, 1e-9), 0.0, 1.0)
    return weight * scaled[files]


def describe_cards(manifest: Mapping[str, Any]) -> str:
    """One line for `atlas info`: whether hybrid search has page cards to add."""
    section = manifest.get("cards")
    if isinstance(section, Mapping):
        return f"{section.get('pages')} page cards"
    return "none: built before page cards (ranks as before)"


def cards_problems(manifest: Mapping[str, Any]) -> list[Problem]:
    """`atlas verify`'s check of the ``cards`` section against this version (the file's hash,
    dtype and shape are checked with every other file)."""
    return array_section_problems(manifest, "cards", CARDS_FILE, CARDS_FORMAT, "pages")


def array_section_problems(
    manifest: Mapping[str, Any], name: str, file: str, version: str, rows: str
) -> list[Problem]:
    """What is wrong with the manifest section `name` of an optional array file (`file`, whose
    row count the section's key `rows` gives) for this version's format `version`."""
    section = manifest.get(name)
    if section is None:
        return []
    if not isinstance(section, Mapping) or section.get("format") != version:
        return [Problem(file, f"the manifest's {name} section is not {version!r}")]
    entry = (manifest.get("files") or {}).get(file)
    if not isinstance(entry, Mapping):
        return [Problem(file, f"the manifest has a {name} section but does not list the file")]
    shape = entry.get("shape")
    if not isinstance(shape, list) or not shape or shape[0] != section.get(rows):
        return [
            Problem(
                file,
                f"has shape {shape!r}, the manifest's {name} section says "
                f"{section.get(rows)!r} {rows}",
            )
        ]
    return []


def load_cards(bundle: Any, pages: int, dims: int) -> np.ndarray | None:
    """The bundle's cards as float32, or None when it has none or they do not fit its chunk
    table (then it ranks without them; `atlas verify` names the file)."""
    import numpy as np

    cards = optional_array(bundle, "cards", CARDS_FILE, "page cards", (pages, dims))
    return None if cards is None else np.asarray(cards, dtype=np.float32)


def optional_array(
    bundle: Any, name: str, file: str, what: str, shape: tuple[int, ...]
) -> np.ndarray | None:
    """The array `file` of the optional manifest section `name`, or None when the bundle has
    no such section, the file cannot be read or it does not have `shape`: the bundle then ranks
    without `what` (logged; `atlas verify` names the file)."""
    if not isinstance(bundle.manifest.get(name), Mapping):
        return None
    try:
        stored = bundle.array(file)
    except (BundleError, OSError, ValueError):  # damaged: rank without it, verify names it
        log.warning("%s of %s cannot be read: ranking without them", what, bundle.path)
        return None
    if stored.shape != shape:
        log.warning(
            "%s of %s have shape %s, expected %s: ranking without them",
            what,
            Path(bundle.path) / file,
            stored.shape,
            shape,
        )
        return None
    return stored
