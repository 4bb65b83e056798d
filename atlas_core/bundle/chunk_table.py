"""The chunk table's Arrow schema and the conversion between `Chunk` values and its rows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from atlas_core.bundle.manifest import FORMAT_VERSION
from atlas_core.types import Chunk

# SPEC "chunks.parquet": names and types are normative; order is not.
CHUNK_SCHEMA = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("file", pa.string(), nullable=False),
        pa.field("publication", pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("heading", pa.string(), nullable=False),
        pa.field("anchor", pa.string(), nullable=False),
        pa.field("url", pa.string(), nullable=False),
        pa.field("line_start", pa.int32(), nullable=False),
        pa.field("line_end", pa.int32(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("embed_text", pa.string(), nullable=False),
        pa.field("is_code", pa.bool_(), nullable=False),
        pa.field(
            "cluster_tags", pa.list_(pa.field("item", pa.string(), nullable=False)), nullable=False
        ),
        pa.field("token_count", pa.int32(), nullable=False),
    ],
    metadata={"atlas.format_version": FORMAT_VERSION},
)

_LIST_COLUMNS = frozenset({"cluster_tags"})


def chunks_to_table(chunks: Sequence[Chunk]) -> pa.Table:
    """One row per chunk, in order, with the SPEC's schema."""
    columns: dict[str, list[Any]] = {field.name: [] for field in CHUNK_SCHEMA}
    for chunk in chunks:
        for name, values in columns.items():
            value = getattr(chunk, name)
            values.append(list(value) if name in _LIST_COLUMNS else value)
    return pa.Table.from_pydict(columns, schema=CHUNK_SCHEMA)


def row_to_chunk(row: dict[str, Any]) -> Chunk:
    """A `Chunk` from one row as returned by ``Table.to_pylist()`` or ``Table.slice().to_pylist()``.

    Columns a newer minor format adds are ignored; columns it does not have keep their defaults.
    """
    known = {field.name for field in CHUNK_SCHEMA}
    values = {key: value for key, value in row.items() if key in known}
    if "cluster_tags" in values:
        values["cluster_tags"] = tuple(values["cluster_tags"] or ())
    return Chunk(**values)


def iter_chunks(table: pa.Table, *, batch_size: int = 4096) -> Iterator[Chunk]:
    """Every row of a chunk table as a `Chunk`, in row order."""
    for batch in table.to_batches(max_chunksize=batch_size):
        for row in batch.to_pylist():
            yield row_to_chunk(row)
