"""An opened identifier table: the files of ``identifiers/`` in a bundle (written by
`atlas_core.identifiers.store.table`, byte layout in ``bundle_spec/SPEC.md``) read as rows.

The table is sorted key files, small ``.npy`` arrays and JSON records. Rows are found by bisecting
sorted key files, so opening builds no dictionaries, and JSON is decoded only for rows asked for.
This module imports neither numpy nor rapidfuzz: the language server opens a table on its
cold-start path, where ``import numpy`` alone can cost hundreds of milliseconds. What is asked of
the rows (lookup, definitions, symbols) lives in `atlas_core.identifiers.lookup`.
"""

from __future__ import annotations

import mmap
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Self, TypeVar

from atlas_core.errors import BundleError
from atlas_core.identifiers.spelling import compact
from atlas_core.identifiers.store.checks import checked_record, meta_problem, offsets_problem
from atlas_core.identifiers.store.mentions import MENTIONS_DIR, MentionIndex
from atlas_core.identifiers.store.table import (
    DEPRECATIONS_FILE,
    GENERATED_FILE,
    META_FILE,
    RECORDS_FILE,
    TABLE_DIR,
    TABLE_FORMAT,
    TABLE_VERSION,
    WEIGHT_FILE,
    read_deprecations,
    read_lines,
    read_npy,
)
from atlas_core.safeio import MAX_RECORD_DEPTH, loads_bounded, read_json
from atlas_core.types import Deprecation, Param

T = TypeVar("T")


class StoredTable:
    """The rows of an opened table. Opening reads names and two small arrays; the sorted key
    families, the search keys, the ranking arrays and the deprecations load on first use."""

    def __init__(self, directory: Path, meta: dict[str, Any]) -> None:
        self.directory = directory
        self.meta = meta
        self._kind_names: list[str] = list(meta["kinds"])
        self._names = self._load(directory / "names.txt", read_lines)
        self._kinds = self._load(directory / "kind.npy", read_npy)
        offsets_path = directory / "record_offsets.npy"
        self._offsets = self._load(offsets_path, read_npy)
        self.count = len(self._names)
        if len(self._kinds) != self.count or len(self._offsets) != self.count + 1:
            raise _damaged(
                directory,
                f"names.txt ({self.count}), kind.npy ({len(self._kinds)}) and "
                f"record_offsets.npy ({len(self._offsets)} - 1) disagree on the row count",
            )
        # bytes.translate deletes the valid codes in one C pass; max() over an array of 100,000
        # rows would box each value, a few milliseconds of the language server's cold start.
        valid = bytes(range(min(len(self._kind_names), 256)))
        if self._kinds.tobytes().translate(None, valid):
            raise _damaged(
                directory / "kind.npy",
                f"holds kind {max(self._kinds)}, meta.json names {len(self._kind_names)} kinds",
            )
        self._families: dict[str, tuple[list[str], array]] = {}
        self._search: list[str] | None = None
        self._mentions: MentionIndex | None = None
        self._mentions_opened = False
        self._ranking: tuple[array | None, array | None] | None = None
        self._deprecations: list[Deprecation] | None = None
        self._deprecated: dict[str, str] | None = None
        self._records_file = self._load(directory / RECORDS_FILE, _open_binary)
        try:
            self._records: mmap.mmap | bytes = mmap.mmap(
                self._records_file.fileno(), 0, access=mmap.ACCESS_READ
            )
        except ValueError:  # an empty file cannot be mapped
            self._records = b""
        # Only the ends here (opening stays O(1) in the records); a record whose offsets are out
        # of order fails to decode, and `record` names the file then.
        problem = offsets_problem(self._offsets, len(self._records), ordered=False)
        if problem:
            self.close()
            raise _damaged(offsets_path, f"{problem} (the size of {RECORDS_FILE})")

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(cls, bundle: Any) -> Self:
        """Open the table of a `Bundle` (anything with ``.file(relpath)``) or of a directory
        (the bundle directory or its ``identifiers/`` folder)."""
        if hasattr(bundle, "file"):
            directory = Path(bundle.file(f"{TABLE_DIR}/{META_FILE}")).parent
        else:
            directory = Path(bundle)
            if (directory / TABLE_DIR / META_FILE).is_file():
                directory = directory / TABLE_DIR
        path = directory / META_FILE
        try:
            meta = read_json(path)
        except FileNotFoundError:
            raise BundleError(
                f"identifier table missing: {path}",
                hint="rebuild the bundle with `atlas build`",
                path=str(path),
            ) from None
        except (OSError, ValueError) as exc:
            raise BundleError(
                f"identifier table unreadable: {path}: {exc}",
                hint="the bundle is corrupt; run `atlas verify` and rebuild or re-download it",
                path=str(path),
            ) from None
        if not isinstance(meta, dict) or (meta.get("format"), meta.get("version")) != (
            TABLE_FORMAT,
            TABLE_VERSION,
        ):
            found = (meta.get("format"), meta.get("version")) if isinstance(meta, dict) else meta
            raise BundleError(
                f"identifier table {path} has format/version {found!r}; this Atlas reads "
                f"{TABLE_FORMAT} version {TABLE_VERSION}",
                hint="upgrade Atlas or rebuild the bundle",
                path=str(path),
            )
        problem = meta_problem(meta)
        if problem:
            raise _damaged(path, problem)
        try:
            return cls(directory, meta)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise _damaged(directory, str(exc)) from None

    def close(self) -> None:
        if self._mentions is not None:
            self._mentions.close()
        if isinstance(self._records, mmap.mmap):
            self._records.close()
        self._records_file.close()

    def __len__(self) -> int:
        return self.count

    # -- rows ----------------------------------------------------------------------------------

    def record(self, row: int, *, full: bool = True) -> dict[str, Any]:
        """The cold fields of one row (file, line, url, summary, params, ...), checked: all of
        them, or (not `full`) the file, line, url and publication a symbol shows."""
        start, end = self._offsets[row], self._offsets[row + 1]
        try:
            raw = self._records[start:end]
            # Written by Python's encoder, which lets an example value be NaN.
            record = loads_bounded(raw, max_depth=MAX_RECORD_DEPTH, rfc8259=False)
            return checked_record(record, full=full)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError too
            # Either file may be the damaged one: the record, or the offsets that cut it out.
            where = f"row {row} (bytes {start}-{end} by record_offsets.npy)"
            raise _damaged(self.directory / RECORDS_FILE, f"{where}: {exc}") from None

    def _file_of(self, row: int) -> str:
        """A row's file without decoding its whole record: the writer puts ``"file"`` first, so
        the name is the bytes up to ``","line":``; any other layout is decoded in full."""
        start, end = self._offsets[row], self._offsets[row + 1]
        head = self._records[start : min(end, start + 600)]
        stop = head.find(b'","line":')
        if head.startswith(b'{"file":"') and stop > 0 and b"\\" not in head[9:stop]:
            try:
                return head[9:stop].decode("utf-8")
            except UnicodeDecodeError:
                pass  # decoded in full below, which names the damaged file
        return str(self.record(row, full=False)["file"])

    def kind(self, row: int) -> str:
        return self._kind_names[self._kinds[row]]

    # -- sorted key families -------------------------------------------------------------------

    def _family(self, name: str) -> tuple[list[str], array]:
        fam = self._families.get(name)
        if fam is None:
            keys_path = self.directory / f"keys_{name}.txt"
            rows_path = self.directory / f"rows_{name}.npy"
            keys = self._load(keys_path, read_lines)
            rows = self._load(rows_path, read_npy)
            if len(keys) != len(rows):
                raise _damaged(rows_path, f"{len(rows)} rows for the {len(keys)} keys")
            fam = self._families[name] = (keys, rows)
        return fam

    def _checked(self, family: str, rows: list[int]) -> list[int]:
        """Rows read from a key family, each checked as it is used (checking a whole family on
        load would cost the cold start more than the lookup): one outside the table means the
        file is damaged, and a negative one would otherwise name a row from the end."""
        if rows and (min(rows) < 0 or max(rows) >= self.count):
            bad = next(row for row in rows if not 0 <= row < self.count)
            raise _damaged(
                self.directory / f"rows_{family}.npy",
                f"holds row {bad}, the table has rows 0 to {self.count - 1}",
            )
        return rows

    @staticmethod
    def _load(path: Path, read: Callable[[Path], T]) -> T:
        """One lazily read file of the table; BundleError naming it when it is damaged or gone."""
        try:
            return read(path)
        except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            raise _damaged(path, str(exc)) from None

    def _rows(self, family: str, key: str) -> list[int]:
        keys, rows = self._family(family)
        i = bisect_left(keys, key)
        j = bisect_right(keys, key, i)
        return self._checked(family, list(rows[i:j]))

    def _prefix_rows(self, family: str, prefix: str, cap: int) -> list[int]:
        keys, rows = self._family(family)
        i = bisect_left(keys, prefix)
        j = bisect_left(keys, prefix + "\U0010ffff", i)
        return self._checked(family, list(rows[i : min(j, i + cap)]))

    def _rows_named(self, name: str) -> list[int]:
        """Rows whose display name is exactly `name` (equal names have equal compact keys)."""
        return [r for r in self._rows("search", compact(name)) if self._names[r] == name]

    def _rows_compact(self, key: str) -> list[int]:
        rows = self._rows("search", key)
        rows.extend(r for r in self._rows("alias", key) if r not in rows)
        return rows

    def _first_char_slice(self, key: str) -> tuple[list[str], array]:
        """Sorted search keys sharing the first character of `key`: a contiguous slice, so the
        fuzzy scorer sees a few thousand choices instead of every row. A typo in the very first
        character is the price; people type the start of a name right."""
        keys, rows = self._family("search")
        i = bisect_left(keys, key[0])
        j = bisect_left(keys, key[0] + "\U0010ffff", i)
        return keys[i:j], rows[i:j]  # callers check the rows they use

    def _search_list(self) -> list[str]:
        if self._search is None:
            path = self.directory / "search.txt"
            search = self._load(path, lambda p: read_lines(p, self.count))
            if len(search) != self.count:
                raise _damaged(path, f"{len(search)} keys for {self.count} rows")
            self._search = search
        return self._search

    # -- beside the rows: ranking arrays, mentions, deprecations --------------------------------

    def _ranking_arrays(self) -> tuple[array | None, array | None]:
        """Per-row section weight and generated-page flag; None for a table written before them
        (its rows of one name are still in the builder's order of preference)."""
        if self._ranking is None:
            arrays: list[array | None] = []
            for name in (WEIGHT_FILE, GENERATED_FILE):
                path = self.directory / name
                try:
                    arr = read_npy(path) if path.is_file() else None
                    if arr is not None and len(arr) != self.count:
                        raise ValueError(f"{len(arr)} rows, the table has {self.count}")
                except (OSError, ValueError) as exc:
                    raise BundleError(
                        f"identifier table unreadable: {path}: {exc}",
                        hint="the bundle is corrupt; run `atlas verify` and rebuild or re-download it",
                        path=str(path),
                    ) from None
                arrays.append(arr)
            self._ranking = (arrays[0], arrays[1])
        return self._ranking

    def mentions(self) -> MentionIndex | None:
        """The bundle's mention index beside this table; None for a bundle built before it."""
        if not self._mentions_opened:
            self._mentions_opened = True
            if self.directory.name == TABLE_DIR:
                self._mentions = MentionIndex.open(self.directory.parent / MENTIONS_DIR)
        return self._mentions

    def _deprecated_terms(self) -> dict[str, str]:
        """Deprecated term -> its replacement ("" when the docs give none), for mentions."""
        if self._deprecated is None:
            self._deprecated = {d.term: d.replacement for d in self.deprecations()}
        return self._deprecated

    def deprecations(self) -> list[Deprecation]:
        if self._deprecations is None:
            self._deprecations = self._load(
                self.directory / DEPRECATIONS_FILE, lambda path: read_deprecations(path.parent)
            )
        return list(self._deprecations)

    # -- the API model -------------------------------------------------------------------------

    def endpoint_rows(self) -> Iterator[tuple[str, dict[str, Any], tuple[Param, ...]]]:
        """(name, record, params) of every endpoint row, in table order (`apicheck`)."""
        if "endpoint" not in self._kind_names:
            return
        kind = self._kind_names.index("endpoint")
        for row in range(self.count):
            if self._kinds[row] == kind:
                rec = self.record(row)
                yield self._names[row], rec, record_params(rec)

    def rows_of(self, kinds: Iterable[str]) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """(kind, name, record) of every row of `kinds`, in table order (`changes`)."""
        codes = {self._kind_names.index(k) for k in kinds if k in self._kind_names}
        for row in range(self.count):
            if self._kinds[row] in codes:
                yield self.kind(row), self._names[row], self.record(row)

    def schema_params(self, name: str, publication: str = "") -> tuple[Param, ...] | None:
        """The properties of the schema `name` (from `publication` when several have one), or
        None when the table has no such schema."""
        if "schema" not in self._kind_names:
            return None
        kind = self._kind_names.index("schema")
        found = None
        for row in self._rows_named(name):
            if self._kinds[row] != kind:
                continue
            rec = self.record(row)
            if found is None or rec.get("publication") == publication:
                found = record_params(rec)
                if rec.get("publication") == publication:
                    break
        return found


def record_params(rec: dict[str, Any]) -> tuple[Param, ...]:
    """A checked record's params with their format, values, default and example
    (`param_details`, absent in tables written before them)."""
    raw = rec.get("params", ())
    details = rec.get("param_details") or [{}] * len(raw)
    return tuple(
        Param(
            p[0],
            p[1],
            p[2],
            bool(p[3]),
            p[4],
            format=d.get("format", ""),
            enum=tuple(d.get("enum", ())),
            default=d.get("default", ""),
            deprecated=d.get("deprecated", False),
            example=d.get("example", ""),
        )
        for p, d in zip(raw, details, strict=True)
    )


def _open_binary(path: Path) -> Any:
    return open(path, "rb")  # held by the index until close()


def _damaged(path: Path, reason: str) -> BundleError:
    return BundleError(
        f"identifier table unreadable: {path}: {reason}",
        hint="run `atlas verify` on the bundle, then re-download it (`atlas download`) or "
        "rebuild it (`atlas build`)",
        path=str(path),
    )
