"""The chunk table's Arrow schema and the conversion between `Chunk` values and its rows."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa

from atlas_core.bundle.manifest import FORMAT_VERSION, MIRROR
from atlas_core.safeio import safe_relpath
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
# SPEC "chunks.parquet", optional columns (since 1.3): what a `code` source's chunks know about
# their definition. Written by every 1.3 build ("" and [] for documentation); a table without
# them (1.2 and older) reads as documentation.
_TEXT_LIST = pa.list_(pa.field("item", pa.string(), nullable=False))
OPTIONAL_FIELDS = (
    pa.field("language", pa.string(), nullable=False),
    pa.field("symbol", pa.string(), nullable=False),
    pa.field("symbol_kind", pa.string(), nullable=False),
    pa.field("parent", pa.string(), nullable=False),
    pa.field("calls", _TEXT_LIST, nullable=False),
)
WRITTEN_SCHEMA = pa.schema(
    [*CHUNK_SCHEMA, *OPTIONAL_FIELDS], metadata={"atlas.format_version": FORMAT_VERSION}
)

_LIST_COLUMNS = frozenset({"cluster_tags", "calls"})


def chunks_to_table(chunks: Sequence[Chunk]) -> pa.Table:
    """One row per chunk, in order, with the SPEC's schema and its optional columns."""
    # Column by column: a list per column converts in one call, 7x faster than row by row.
    arrays = [
        pa.array([getattr(chunk, field.name) for chunk in chunks], type=field.type)
        for field in WRITTEN_SCHEMA
    ]
    return pa.Table.from_arrays(arrays, schema=WRITTEN_SCHEMA)


def row_to_chunk(row: dict[str, Any]) -> Chunk:
    """A `Chunk` from one row as returned by ``Table.to_pylist()`` or ``Table.slice().to_pylist()``.

    Columns a newer minor format adds are ignored; columns it does not have keep their defaults.
    """
    values = {key: value for key, value in row.items() if key in _KNOWN}
    for name in _LIST_COLUMNS:
        if name in values:
            values[name] = tuple(values[name] or ())
    return Chunk(**values)


_KNOWN = frozenset(field.name for field in WRITTEN_SCHEMA)


def iter_chunks(table: pa.Table, *, batch_size: int = 4096) -> Iterator[Chunk]:
    """Every row of a chunk table as a `Chunk`, in row order."""
    for batch in table.to_batches(max_chunksize=batch_size):
        for row in batch.to_pylist():
            yield row_to_chunk(row)


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _is_text_list(t: pa.DataType) -> bool:
    return (pa.types.is_list(t) or pa.types.is_large_list(t)) and _is_text(t.value_type)


# What a reader can use for each SPEC type: the Arrow type written, or one that reads the same
# into Python (a large_string, a wider integer).
_READABLE: dict[str, Callable[[pa.DataType], bool]] = {
    "string": _is_text,
    "int32": pa.types.is_integer,
    "bool": pa.types.is_boolean,
    "list<item: string not null>": _is_text_list,
}
_SHOWN_FILES = 3


def table_problems(
    table: pa.Table, *, mirror_files: Container[str] | None = None, deep: bool = False
) -> list[str]:
    """Why the chunk table cannot be served: a SPEC column missing, of another type or with nulls
    (column metadata only, cheap). `deep` (verify) adds that every `file` is a safe relative path
    (`file_problem` checks the distinct names a reader has anyway) whose text, with
    `mirror_files`, is in the bundle, and that line ranges are in order."""
    problems = []
    optional = {field.name for field in OPTIONAL_FIELDS}
    for field in WRITTEN_SCHEMA:
        index = table.schema.get_field_index(field.name)
        if index < 0:
            if field.name not in optional:
                problems.append(f"column {field.name!r} is missing")
            continue
        found = table.schema.field(index).type
        if not _READABLE[str(field.type)](found):
            problems.append(f"column {field.name!r} is {found}, must be {field.type}")
        elif table.column(index).null_count:
            problems.append(f"column {field.name!r} has {table.column(index).null_count} nulls")
    if problems or not deep:
        return problems
    # pyarrow.compute costs ~100 ms to import: verify only, never a server's first search.
    # Its functions are generated at import time and pyarrow ships no stubs for them, so the
    # type checker cannot see `pc.unique`, `pc.min` or `pc.subtract`: hence the ignores below.
    import pyarrow.compute as pc

    files = pc.unique(table.column("file")).to_pylist()  # pyright: ignore[reportAttributeAccessIssue]
    problem = file_problem(files)
    if problem:
        problems.append(problem)
    if mirror_files is not None:
        absent = [f for f in files if safe_relpath(f) and f"{MIRROR}/{f}" not in mirror_files]
        if absent:
            shown = ", ".join(repr(f) for f in absent[:_SHOWN_FILES])
            problems.append(f"{len(absent)} files have no text in {MIRROR}/: {shown}")
    if table.num_rows:
        start, end = table.column("line_start"), table.column("line_end")
        if pc.min(start).as_py() < 1:  # pyright: ignore[reportAttributeAccessIssue]
            problems.append("column 'line_start' holds lines before 1 (lines are 1-based)")
        if pc.min(pc.subtract(end, start)).as_py() < 0:  # pyright: ignore[reportAttributeAccessIssue]
            problems.append("column 'line_end' holds lines before their 'line_start'")
    return problems


def file_problem(files: Iterable[str]) -> str | None:
    """Distinct `file` values that are not safe relative paths (hits point editors at them)."""
    unsafe = [f for f in files if not safe_relpath(f)]
    if not unsafe:
        return None
    shown = ", ".join(repr(f) for f in unsafe[:_SHOWN_FILES])
    return f"column 'file' holds paths that leave the mirror: {shown}"
