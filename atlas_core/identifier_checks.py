"""What makes an identifier table unsafe to serve, checked without numpy (SPEC "identifiers/").

The reader (`atlas_core.symbols.IdentifierIndex`) runs the cheap checks when it loads a file and
checks each JSON record as it decodes it, so a damaged table becomes one `BundleError` naming the
file instead of an IndexError, a JSONDecodeError or, worse, a wrong row served in silence (Python
reads a negative row number from the end of a list). `table_problems` is what `atlas verify` adds:
every file read in full, every record decoded.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from atlas_core.bundle.manifest import safe_relpath
from atlas_core.bundle.problems import Problem
from atlas_core.identifier_table import (
    DEPRECATIONS_FILE,
    GENERATED_FILE,
    KEY_FAMILIES,
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

_RECORD_TEXT = (
    "anchor",
    "url",
    "summary",
    "publication",
    "method",
    "path",
    "operation_id",
    "request_schema",
    "response_schema",
    "replacement",
)


def _line_number(value: object) -> bool:
    return type(value) is int and value >= 0


def checked_record(record: object) -> dict[str, Any]:
    """A decoded `records.jsonl` row, or ValueError saying which field is wrong."""
    if not isinstance(record, dict):
        raise ValueError(f"a record is {type(record).__name__}, not an object")
    file = record.get("file")
    if not isinstance(file, str) or not safe_relpath(file):
        raise ValueError(f"record file {file!r} is not a relative path inside the mirror")
    if not _line_number(record.get("line")):
        raise ValueError(f"record line {record.get('line')!r} is not a line number")
    for key in _RECORD_TEXT:
        if key in record and not isinstance(record[key], str):
            raise ValueError(f"record {key} {record[key]!r} is not text")
    params = record.get("params", [])
    if not isinstance(params, list) or not all(
        isinstance(p, list)
        and len(p) == 5
        and all(isinstance(p[i], str) for i in (0, 1, 2, 4))
        and isinstance(p[3], bool)
        for p in params
    ):
        raise ValueError("record params are not [name, in, type, required, description] lists")
    if not isinstance(record.get("deprecated", False), bool):
        raise ValueError("record deprecated is not true or false")
    return record


def rows_problem(rows: Sequence[int], count: int) -> str | None:
    """Row numbers must index the table: a negative one would read a row from the end."""
    if rows and (min(rows) < 0 or max(rows) >= count):
        return (
            f"row numbers run from {min(rows)} to {max(rows)}, the table has rows 0 to {count - 1}"
        )
    return None


def offsets_problem(offsets: Sequence[int], total: int, *, ordered: bool = True) -> str | None:
    """Offsets into something `total` long: from 0 to `total`, never going back (`ordered`)."""
    if not offsets or offsets[0] != 0 or offsets[-1] != total:
        first, last = (offsets[0], offsets[-1]) if offsets else (None, None)
        return f"offsets run from {first} to {last}, must run from 0 to {total}"
    if ordered and any(a > b for a, b in pairwise(offsets)):
        return "offsets go backwards (must not decrease)"
    return None


def meta_problem(meta: object) -> str | None:
    if not isinstance(meta, dict):
        return "is not a JSON object"
    if (meta.get("format"), meta.get("version")) != (TABLE_FORMAT, TABLE_VERSION):
        return (
            f"is format {meta.get('format')!r} version {meta.get('version')!r}; this Atlas "
            f"reads {TABLE_FORMAT} version {TABLE_VERSION}"
        )
    kinds = meta.get("kinds")
    if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) for k in kinds):
        return "kinds is not a list of kind names"
    if not _line_number(meta.get("count")):
        return f"count {meta.get('count')!r} is not a row count"
    return None


class _Table:
    """One table directory read for `table_problems`; each failure is a Problem for its file."""

    def __init__(self, directory: Path, rel_dir: str) -> None:
        self.directory = directory
        self.rel_dir = rel_dir
        self.problems: list[Problem] = []

    def rel(self, name: str) -> str:
        return f"{self.rel_dir}/{name}"

    def fail(self, name: str, message: str) -> None:
        self.problems.append(Problem(self.rel(name), message))

    def lines(self, name: str, expected: int = 0) -> list[str] | None:
        try:
            values = read_lines(self.directory / name, expected)
        except (OSError, ValueError) as exc:
            self.fail(name, f"cannot be read as UTF-8 lines ({exc})")
            return None
        if any("\r" in v for v in values):
            self.fail(name, "holds a carriage return (values are one line each)")
        return values

    def npy(self, name: str, length: int | None = None) -> array | None:
        try:
            values = read_npy(self.directory / name)
        except (OSError, ValueError) as exc:
            self.fail(name, str(exc))
            return None
        if length is not None and len(values) != length:
            self.fail(name, f"has {len(values)} values, the table needs {length}")
            return None
        return values


def table_problems(directory: Path, *, rel_dir: str = TABLE_DIR) -> list[Problem]:
    """Every problem of the table in `directory`, reading each file in full."""
    t = _Table(directory, rel_dir)
    try:
        meta = json.loads((directory / META_FILE).read_bytes())
    except (OSError, ValueError) as exc:
        t.fail(META_FILE, f"not readable JSON ({exc})")
        return t.problems
    problem = meta_problem(meta)
    if problem:
        t.fail(META_FILE, problem)
        return t.problems
    count, kinds = meta["count"], meta["kinds"]
    names = t.lines("names.txt", count)
    if names is not None and len(names) != count:
        t.fail("names.txt", f"has {len(names)} names, meta.json counts {count} rows")
    search = t.lines("search.txt", count)
    if search is not None and len(search) != count:
        t.fail("search.txt", f"has {len(search)} keys, meta.json counts {count} rows")
    kind = t.npy("kind.npy", count)
    if kind is not None and kind and max(kind) >= len(kinds):
        t.fail("kind.npy", f"holds kind {max(kind)}, meta.json names {len(kinds)} kinds")
    for name in (WEIGHT_FILE, GENERATED_FILE):
        if (directory / name).is_file():
            t.npy(name, count)
    _check_records(t, count)
    for family in KEY_FAMILIES:
        _check_family(t, family, count)
    _check_keyword(t, count)
    try:
        read_deprecations(directory)
    except (OSError, ValueError) as exc:
        t.fail(DEPRECATIONS_FILE, str(exc))
    return t.problems


def _check_records(t: _Table, count: int) -> None:
    offsets = t.npy("record_offsets.npy", count + 1)
    try:
        records = (t.directory / RECORDS_FILE).read_bytes()
    except OSError as exc:
        t.fail(RECORDS_FILE, f"cannot be read ({exc.strerror})")
        return
    if offsets is None:
        return
    problem = offsets_problem(offsets, len(records))
    if problem:
        t.fail("record_offsets.npy", f"{problem} (the size of {RECORDS_FILE})")
        return
    for row, (start, end) in enumerate(pairwise(offsets)):
        try:
            checked_record(json.loads(records[start:end]))
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            t.fail(RECORDS_FILE, f"row {row}: {exc}")
            return


def _check_family(t: _Table, family: str, count: int) -> None:
    keys_name, rows_name = f"keys_{family}.txt", f"rows_{family}.npy"
    if not (t.directory / keys_name).is_file() and not (t.directory / rows_name).is_file():
        return
    keys, rows = t.lines(keys_name), t.npy(rows_name)
    if keys is None or rows is None:
        return
    if len(keys) != len(rows):
        t.fail(rows_name, f"has {len(rows)} rows for the {len(keys)} keys of {keys_name}")
        return
    if any(a > b for a, b in pairwise(keys)):
        t.fail(keys_name, "keys are not sorted (lookups bisect them)")
    problem = rows_problem(rows, count)
    if problem:
        t.fail(rows_name, problem)


def _check_keyword(t: _Table, count: int) -> None:
    terms = t.lines("keyword_terms.txt")
    offsets = t.npy("keyword_offsets.npy")
    postings = t.npy("keyword_postings.npy")
    if terms is None or offsets is None or postings is None:
        return
    if len(offsets) != len(terms) + 1:
        t.fail("keyword_offsets.npy", f"has {len(offsets)} offsets for {len(terms)} terms")
        return
    problem = offsets_problem(offsets, len(postings))
    if problem:
        t.fail("keyword_offsets.npy", f"{problem} (the length of keyword_postings.npy)")
    if any(a > b for a, b in pairwise(terms)):
        t.fail("keyword_terms.txt", "terms are not sorted (lookups bisect them)")
    problem = postings_problem(postings, count, deep=True)
    if problem:
        t.fail("keyword_postings.npy", problem)


def postings_problem(postings: Sequence[int], count: int, *, deep: bool = False) -> str | None:
    """Postings are ``row * 4 + weight`` with a row of the table and (`deep`) a weight of 1 or 2."""
    if not postings:
        return None
    low, high = min(postings), max(postings)
    if low < 0 or high >= count * 4:
        return f"postings name rows from {low // 4} to {high // 4}, the table has {count}"
    if deep and any(p % 4 not in (1, 2) for p in postings):
        return "postings hold weights other than 1 and 2"
    return None
