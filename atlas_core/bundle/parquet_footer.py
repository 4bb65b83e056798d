"""The row count of a Parquet file, read from its footer without pyarrow.

`Bundle.open` compares the chunk table's row count with the manifest. Importing ``pyarrow.parquet``
for that costs about 200 ms, more than the rest of the open, and the language server's lookup path
never reads the table. The footer is a Thrift compact-protocol ``FileMetaData`` struct between the
data and the trailing ``<length><"PAR1">``; this module walks the whole struct (every field of
every nested struct, so a footer that is not well-formed Thrift is caught as pyarrow would catch
it) and returns its ``num_rows`` (field 3).

Anything unexpected (a bad magic, an encrypted footer, a length out of range, a truncated or
malformed struct, a missing required field) returns None: the caller then asks pyarrow, whose
verdict and message stand. The Parquet schema inside the footer is not interpreted here; the
first read of the table and `atlas verify` do that with pyarrow.
"""

from __future__ import annotations

import os
from pathlib import Path

MAGIC = b"PAR1"
_MAX_DEPTH = 64  # nesting of structs, lists and maps; real footers stay under 10

# Thrift compact protocol type ids.
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12

# FileMetaData's required fields (parquet.thrift): version, schema, num_rows, row_groups.
_REQUIRED = {1: (_I32,), 2: (_LIST,), 3: (_I64,), 4: (_LIST,)}


class _Malformed(Exception):
    pass


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise _Malformed("truncated")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def skip_bytes(self, n: int) -> None:
        if n < 0 or self.pos + n > len(self.data):
            raise _Malformed("truncated")
        self.pos += n

    def varint(self) -> int:
        result = shift = 0
        for _ in range(10):
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
        raise _Malformed("varint longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def count(self, n: int) -> int:
        # Every element takes at least one byte: a larger count is damage, not a big footer.
        if n > len(self.data) - self.pos:
            raise _Malformed("element count beyond the footer")
        return n

    def skip(self, kind: int, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _Malformed("nested too deeply")
        if kind in (_TRUE, _FALSE, _BYTE):
            # A bool field carries its value in the type id; a bool list element is one byte.
            if kind == _BYTE:
                self.byte()
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            self.skip_bytes(8)
        elif kind == _BINARY:
            self.skip_bytes(self.varint())
        elif kind in (_LIST, _SET):
            header = self.byte()
            size, element = header >> 4, header & 0x0F
            if size == 15:
                size = self.varint()
            for _ in range(self.count(size)):
                self.skip(_BYTE if element in (_TRUE, _FALSE) else element, depth + 1)
        elif kind == _MAP:
            size = self.count(self.varint())
            if size:
                types = self.byte()
                for _ in range(size):
                    self.skip(types >> 4, depth + 1)
                    self.skip(types & 0x0F, depth + 1)
        elif kind == _STRUCT:
            self.struct(depth + 1)
        else:
            raise _Malformed(f"unknown Thrift type {kind}")

    def struct(self, depth: int, wanted: dict[int, int] | None = None) -> None:
        """Skip one struct; record the I64 and I32 values of top-level fields into `wanted`."""
        if depth > _MAX_DEPTH:
            raise _Malformed("nested too deeply")
        last = 0
        while True:
            header = self.byte()
            if header == 0:
                return
            delta, kind = header >> 4, header & 0x0F
            field = last + delta if delta else self.zigzag()
            last = field
            if wanted is not None and field in _REQUIRED:
                if kind not in _REQUIRED[field]:
                    raise _Malformed(f"field {field} has type {kind}")
                if kind in (_I32, _I64):
                    wanted[field] = self.zigzag()
                    continue
                wanted[field] = -1
            self.skip(kind, depth)


def footer_row_count(path: str | os.PathLike[str] | Path) -> int | None:
    """``num_rows`` of the Parquet file at `path`, or None when its footer is not plainly readable."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < 12 or fh.read(4) != MAGIC:
                return None
            fh.seek(size - 8)
            tail = fh.read(8)
            length = int.from_bytes(tail[:4], "little")
            if tail[4:] != MAGIC or not 0 < length <= size - 12:
                return None
            fh.seek(size - 8 - length)
            footer = fh.read(length)
    except OSError:
        return None
    reader = _Reader(footer)
    found: dict[int, int] = {}
    try:
        reader.struct(0, found)
    except _Malformed:
        return None
    if reader.pos != len(footer) or found.keys() != _REQUIRED.keys():
        return None
    return found[3]
