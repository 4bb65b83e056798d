"""What makes an identifier table unsafe to serve, checked without numpy (SPEC "identifiers/").

The reader (`atlas_core.identifiers.lookup.identifier_index.IdentifierIndex`) runs these cheap checks when it loads a file and
checks each JSON record as it decodes it, so a damaged table becomes one `BundleError` naming the
file instead of an IndexError, a JSONDecodeError or, worse, a wrong row served in silence (Python
reads a negative row number from the end of a list). `atlas_core.identifiers.store.verify` applies the
same rules to every file and record for `atlas verify`. This module is on the language server's
cold-start path, so it stays small.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from atlas_core.identifiers.store.table import TABLE_FORMAT, TABLE_VERSION
from atlas_core.safeio import safe_relpath

_RECORD_TEXT = frozenset(
    {
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
        "owner",
    }
)
# Records of one page share its file name; verify checks every record of a large table.
_safe_file = functools.lru_cache(maxsize=4096)(safe_relpath)


def _line_number(value: object) -> bool:
    return type(value) is int and value >= 0


def _param(p: object) -> bool:
    return (
        type(p) is list
        and len(p) == 5
        and type(p[0]) is str
        and type(p[1]) is str
        and type(p[2]) is str
        and type(p[3]) is bool
        and type(p[4]) is str
    )


def _details(d: object) -> bool:
    """One `param_details` item: optional format, default and example text, enum a list of
    text."""
    return (
        type(d) is dict
        and type(d.get("format", "")) is str
        and type(d.get("default", "")) is str
        and type(d.get("example", "")) is str
        and type(d.get("enum", [])) is list
        and all(type(v) is str for v in d.get("enum", []))
        and type(d.get("deprecated", False)) is bool
    )


def checked_record(record: object, *, full: bool = True) -> dict[str, Any]:
    """A decoded `records.jsonl` row, or ValueError saying which field is wrong. Not `full`:
    only what a workspace symbol shows (file, line, url, publication), which costs a symbol
    search of 50 results less than checking every field."""
    if type(record) is not dict:
        raise ValueError(f"a record is {type(record).__name__}, not an object")
    file = record.get("file")
    if type(file) is not str or not _safe_file(file):
        raise ValueError(f"record file {file!r} is not a relative path inside the mirror")
    if not _line_number(record.get("line")):
        raise ValueError(f"record line {record.get('line')!r} is not a line number")
    if not full:
        if type(record.get("url", "")) is not str or type(record.get("publication", "")) is not str:
            raise ValueError("record url or publication is not text")
        return record
    for key, value in record.items():
        if key in _RECORD_TEXT and type(value) is not str:
            raise ValueError(f"record {key} {value!r} is not text")
    params = record.get("params")
    if params is not None and (type(params) is not list or not all(map(_param, params))):
        raise ValueError("record params are not [name, in, type, required, description] lists")
    details = record.get("param_details")
    if details is not None and (
        type(details) is not list
        or len(details) != len(params or ())
        or not all(map(_details, details))
    ):
        raise ValueError(
            "record param_details is not one {format, enum, default, example} object per param"
        )
    if type(record.get("deprecated", False)) is not bool:
        raise ValueError("record deprecated is not true or false")
    return record


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
