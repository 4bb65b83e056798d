"""Getting an engine ready before its first question: the warm-up a host runs before it swaps a
new engine in, and the vectors and rankings loaded in the background for the first hybrid
search."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from atlas_core.errors import AtlasError

if TYPE_CHECKING:
    from atlas_core.engine.facade import Engine
    from atlas_core.engine.parts import OpenBundle

log = logging.getLogger(__name__)

WARM_MODES = ("lookup", "symbols", "keyword", "vector", "chunks")


def warm_up(engine: Engine, parts: list[OpenBundle], modes: Sequence[str]) -> None:
    """Load everything `modes` serve and answer one request of each (see `Engine.warm_up`)."""
    unknown = sorted(set(modes) - set(WARM_MODES))
    if unknown:
        raise ValueError(f"unknown warm-up modes {unknown}; known: {', '.join(WARM_MODES)}")
    if "vector" in modes:
        engine.prepare_vector_search()  # converts while the tables below load
    for part in parts:
        if "lookup" in modes or "symbols" in modes:
            first = part.identifiers().symbols("", limit=1)
            name = (first[0].name if first else "") or "warm-up"
            if "lookup" in modes:
                engine.lookup(name, limit=3)
                engine.endpoints("/", limit=3)
                engine.deprecations()
            if "symbols" in modes:
                engine.symbols(name[:3], limit=5)
        if {"chunks", "keyword", "vector"} & set(modes):
            table = part.table()
            if table.n and "chunks" in modes:
                engine.chunk(table.cols["chunk_id"][0])
    searches = [m for m in ("keyword", "vector") if m in modes]
    if len(searches) == 2:
        searches.append("hybrid")
    if searches:
        probe = probe_text(parts[0], keyword="keyword" in modes)
        for mode in searches:
            engine.search(probe, mode=mode, top_k=3)
    engine.wait_prepared()  # everything is loaded now: the threads only have to end


def probe_text(part: OpenBundle, *, keyword: bool) -> str:
    """A query that finds something: a word of the bundle's vocabulary (its middle row, past the
    digits and short words that sort first), else the first chunk's title."""
    if keyword:
        terms = part.keyword().terms
        if terms:
            return terms[len(terms) // 2]
    table = part.table()
    return str(table.cols["title"][0]) if table.n else "documentation"


class Preparation:
    """What `Engine.prepare_vector_search` started: the vectors' conversion (in each bundle's
    dense index) and a thread loading the rankings."""

    def __init__(self, parts: list[OpenBundle]) -> None:
        self.parts = parts
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        # Loading the vectors hashes them (see `OpenBundle.dense`): on a thread, so this returns
        # at once even for a large matrix.
        for target, name in (
            (self._convert, "atlas-vectors-load"),
            (self._load_rankings, "atlas-ranking"),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            self._threads.append(thread)
            thread.start()

    def _convert(self) -> None:
        for part in self.parts:
            try:
                if part.intact("vector"):  # else reported once, by `OpenBundle.dense`
                    part.dense().start_conversion()
                    heads = part.headings()  # the heading vectors vector search lifts by
                    if heads is not None:
                        heads.start_conversion()
            except (AtlasError, OSError) as exc:  # the search that needs them reports it
                log.warning("bundle %s: vectors not converted ahead: %s", part.name, exc)

    def wait(self, timeout: float | None) -> None:
        while self._threads:
            self._threads.pop(0).join(timeout)  # the vectors' first: then their conversion runs
        for part in self.parts:
            if part._dense is not None:
                part._dense.wait_converted(timeout)
            heads = part._headings[0] if part._headings is not None else None
            if heads is not None:
                heads.wait_converted(timeout)

    def _load_rankings(self) -> None:
        for part in self.parts:
            try:
                model, _ = part.ranking()
                if model is not None:
                    part.rank_context()
            except Exception as exc:  # reported by the first hybrid search that needs it
                log.debug("bundle %s: ranking not loaded ahead: %s", part.name, exc)
