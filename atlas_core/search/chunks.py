"""The columns of a bundle's chunk table that search needs, held as plain lists and arrays.

Built once per bundle on the first search from whatever `Bundle.chunks()` returns (a pyarrow
Table), so the query path touches Python lists and numpy arrays only; filter masks are cached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atlas_core.types import Chunk, SearchFilters

if TYPE_CHECKING:
    import numpy as np


class ChunkTable:
    """The columns of chunks.parquet the engine needs, as Python lists plus a few numpy arrays."""

    COLUMNS = (
        "chunk_id",
        "file",
        "publication",
        "title",
        "heading",
        "anchor",
        "url",
        "line_start",
        "line_end",
        "text",
        "embed_text",
        "is_code",
        "cluster_tags",
        "token_count",
        "language",
        "symbol",
        "symbol_kind",
        "parent",
        "calls",
    )

    def __init__(self, source: Any) -> None:
        import numpy as np

        columns = _to_columns(source)
        n = len(columns["chunk_id"])
        self.n = n
        self.cols: dict[str, list[Any]] = {
            name: list(columns.get(name) or [_default(name)] * n) for name in self.COLUMNS
        }
        self.file_ids: dict[str, int] = {}
        file_codes = [self.file_ids.setdefault(f, len(self.file_ids)) for f in self.cols["file"]]
        self.file_code = np.asarray(file_codes, dtype=np.int64)
        self.is_code = np.asarray([bool(v) for v in self.cols["is_code"]], dtype=bool)
        self.by_id: dict[str, int] | None = None
        # Per row: a third party's page (`mark_third_party`); None when the bundle does not say.
        self.third_party: np.ndarray | None = None
        self._twins: dict[int, int] | None = None
        self._masks: dict[tuple[str, str, bool], np.ndarray | None] = {}

    def mark_third_party(self, files: set[str]) -> None:
        """Remember which rows are a third party's pages (the bundle's `publishers`)."""
        import numpy as np

        by_code = np.asarray([f in files for f in self.file_ids], dtype=bool)
        self.third_party = by_code[self.file_code] if self.n else np.zeros(0, bool)
        self._twins = None

    def twins(self) -> dict[int, int]:
        """Third party's row -> the vendor's row on the same named subject
        (`atlas_core.search.twins`); empty when the bundle does not say who publishes what."""
        if self.third_party is None:
            return {}
        if self._twins is None:  # two threads may both compute it: the same answer
            from atlas_core.search.twins import vendor_twins

            c = self.cols
            self._twins = vendor_twins(c["title"], c["heading"], self.third_party.tolist())
        return self._twins

    def mask(self, filters: SearchFilters) -> np.ndarray | None:
        """Rows allowed by the filters, or None when every row is."""
        import numpy as np

        key = (
            (filters.publication or "").strip().lower(),
            (filters.section or "").strip().lstrip("/"),
            bool(filters.code_only),
        )
        if key in self._masks:
            return self._masks[key]
        publication, section, code_only = key
        mask: np.ndarray | None = None
        if publication:
            pubs = self.cols["publication"]
            mask = np.fromiter((p.lower() == publication for p in pubs), dtype=bool, count=self.n)
        if section:
            allowed = np.array([f.startswith(section) for f in self.file_ids], dtype=bool).reshape(
                -1
            )
            by_file = allowed[self.file_code] if self.n else np.zeros(0, bool)
            mask = by_file if mask is None else mask & by_file
        if code_only:
            mask = self.is_code.copy() if mask is None else mask & self.is_code
        if len(self._masks) < 64:
            self._masks[key] = mask
        return mask

    def row_of(self, chunk_id: str) -> int | None:
        if self.by_id is None:
            self.by_id = {cid: i for i, cid in enumerate(self.cols["chunk_id"])}
        return self.by_id.get(chunk_id)

    def chunk(self, row: int) -> Chunk:
        c = self.cols
        return Chunk(
            chunk_id=c["chunk_id"][row],
            file=c["file"][row],
            publication=c["publication"][row],
            title=c["title"][row],
            heading=c["heading"][row],
            anchor=c["anchor"][row] or "",
            url=c["url"][row] or "",
            line_start=int(c["line_start"][row] or 0),
            line_end=int(c["line_end"][row] or 0),
            text=c["text"][row] or "",
            embed_text=c["embed_text"][row] or "",
            is_code=bool(c["is_code"][row]),
            cluster_tags=tuple(c["cluster_tags"][row] or ()),
            token_count=int(c["token_count"][row] or 0),
            language=c["language"][row] or "",
            symbol=c["symbol"][row] or "",
            symbol_kind=c["symbol_kind"][row] or "",
            parent=c["parent"][row] or "",
            calls=tuple(c["calls"][row] or ()),
        )


def _default(name: str) -> Any:
    if name in ("line_start", "line_end", "token_count"):
        return 0
    if name == "is_code":
        return False
    if name in ("cluster_tags", "calls"):
        return ()
    return ""


def _to_columns(source: Any) -> dict[str, list[Any]]:
    """Accept what `Bundle.chunks()` returns: a pyarrow Table, a dict of columns or Chunk objects."""
    if hasattr(source, "to_pydict"):
        return source.to_pydict()
    if isinstance(source, dict):
        return {k: list(v) for k, v in source.items()}
    rows = list(source)
    return {name: [getattr(r, name) for r in rows] for name in ChunkTable.COLUMNS}
