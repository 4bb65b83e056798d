"""`atlas verify` for the identifier table: every file read in full, every record decoded, with
the rules the reader checks as it goes (`atlas_core.identifiers.store.checks`) plus those that cannot
break a lookup but make its answers wrong (keys out of order, postings of odd weights)."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import accumulate, pairwise
from pathlib import Path
from typing import Any

from atlas_core.identifiers.store.checks import (
    checked_record,
    meta_problem,
    offsets_problem,
    postings_problem,
)
from atlas_core.identifiers.store.mentions import (
    ANCHORS_FILE,
    FILES_FILE,
    KEY_STARTS_FILE,
    KEYS_FILE,
    MENTIONS_DIR,
    OFFSETS_FILE,
    URLS_FILE,
)
from atlas_core.identifiers.store.mentions import GENERATED_FILE as MENTION_GENERATED
from atlas_core.identifiers.store.mentions import META_FILE as MENTION_META
from atlas_core.identifiers.store.mentions import ROW_ARRAYS as MENTION_ROW_ARRAYS
from atlas_core.identifiers.store.mentions import meta_problem as mention_meta_problem
from atlas_core.identifiers.store.places import PLACE_NAMES
from atlas_core.identifiers.store.table import (
    DEPRECATIONS_FILE,
    GENERATED_FILE,
    KEY_FAMILIES,
    META_FILE,
    RECORDS_FILE,
    TABLE_DIR,
    WEIGHT_FILE,
    read_deprecations,
    read_lines,
    read_npy,
)
from atlas_core.safeio import MAX_RECORD_DEPTH, loads_bounded, read_json, safe_relpath
from atlas_core.types import Problem


def rows_problem(rows: Sequence[int], count: int) -> str | None:
    """Row numbers must index the table: a negative one would read a row from the end."""
    if rows and (min(rows) < 0 or max(rows) >= count):
        return (
            f"row numbers run from {min(rows)} to {max(rows)}, the table has rows 0 to {count - 1}"
        )
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
        meta = read_json(directory / META_FILE)
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
    stated = meta.get("keys") if isinstance(meta.get("keys"), dict) else {}
    for family in KEY_FAMILIES:
        _check_family(t, family, count, stated.get(family))
    _check_keyword(t, count, meta.get("keyword_terms"))
    try:
        deprecations = read_deprecations(directory)
    except (OSError, ValueError) as exc:
        t.fail(DEPRECATIONS_FILE, str(exc))
    else:
        _agrees(t, DEPRECATIONS_FILE, len(deprecations), meta.get("deprecations"), "deprecations")
    return t.problems


def _agrees(t: _Table, name: str, found: int, stated: object, what: str) -> None:
    """meta.json's count of something, when it gives one, is what the file holds."""
    if stated is not None and stated != found:
        t.fail(name, f"holds {found} {what}, meta.json says {stated!r}")


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
    # Each record is one line (compact JSON escapes newlines inside strings), so when every
    # offset falls right after a newline the file decodes as one array, a record per row, far
    # faster than a hundred thousand json.loads calls; anything else is decoded row by row to
    # say which row is wrong.
    if all(records[end - 1 : end] == b"\n" for end in offsets[1:]):
        try:
            joined = b"[" + records[:-1].replace(b"\n", b",") + b"]"
            decoded = _loads_record(joined, depth=MAX_RECORD_DEPTH + 1) if count else []
        except ValueError:
            decoded = None
        if decoded is not None and len(decoded) == count:
            for row, record in enumerate(decoded):
                try:
                    checked_record(record)
                except ValueError as exc:
                    t.fail(RECORDS_FILE, f"row {row}: {exc}")
                    return
            return
    for row, (start, end) in enumerate(pairwise(offsets)):
        try:
            checked_record(_loads_record(records[start:end]))
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            t.fail(RECORDS_FILE, f"row {row}: {exc}")
            return


def _loads_record(raw: bytes, *, depth: int = MAX_RECORD_DEPTH) -> Any:
    # Records are written by Python's encoder, which lets an example value be NaN.
    return loads_bounded(raw, max_depth=depth, rfc8259=False)


def _check_family(t: _Table, family: str, count: int, stated: object) -> None:
    keys_name, rows_name = f"keys_{family}.txt", f"rows_{family}.npy"
    if not (t.directory / keys_name).is_file() and not (t.directory / rows_name).is_file():
        return
    keys, rows = t.lines(keys_name), t.npy(rows_name)
    if keys is None or rows is None:
        return
    if len(keys) != len(rows):
        t.fail(rows_name, f"has {len(rows)} rows for the {len(keys)} keys of {keys_name}")
        return
    _agrees(t, keys_name, len(keys), stated, "keys")
    if any(a > b for a, b in pairwise(keys)):
        t.fail(keys_name, "keys are not sorted (lookups bisect them)")
    problem = rows_problem(rows, count)
    if problem:
        t.fail(rows_name, problem)


def _check_keyword(t: _Table, count: int, stated: object) -> None:
    terms = t.lines("keyword_terms.txt")
    offsets = t.npy("keyword_offsets.npy")
    postings = t.npy("keyword_postings.npy")
    if terms is None or offsets is None or postings is None:
        return
    if len(offsets) != len(terms) + 1:
        t.fail("keyword_offsets.npy", f"has {len(offsets)} offsets for {len(terms)} terms")
        return
    _agrees(t, "keyword_terms.txt", len(terms), stated, "terms")
    problem = offsets_problem(offsets, len(postings))
    if problem:
        t.fail("keyword_offsets.npy", f"{problem} (the length of keyword_postings.npy)")
    if any(a > b for a, b in pairwise(terms)):
        t.fail("keyword_terms.txt", "terms are not sorted (lookups bisect them)")
    problem = postings_problem(postings, count, deep=True)
    if problem:
        t.fail("keyword_postings.npy", problem)


def mention_problems(directory: Path, *, rel_dir: str = MENTIONS_DIR) -> list[Problem]:
    """Every problem of the mention index in `directory` (a bundle's ``mentions/``), reading
    each file in full: what the reader checks as it goes, and what would make it answer from the
    wrong page (keys out of order, rows naming pages or anchors that are not there)."""
    t = _Table(directory, rel_dir)
    try:
        meta = read_json(directory / MENTION_META)
    except (OSError, ValueError) as exc:
        t.fail(MENTION_META, f"not readable JSON ({exc})")
        return t.problems
    problem = mention_meta_problem(meta)
    if problem:
        t.fail(MENTION_META, problem)
        return t.problems
    pages, n_keys, n_rows = meta["files"], meta["keys"], meta["rows"]
    for name in (FILES_FILE, URLS_FILE):
        values = t.lines(name, pages)
        if values is not None and len(values) != pages:
            t.fail(name, f"has {len(values)} lines, meta.json counts {pages} pages")
        if name == FILES_FILE and values:
            bad = next((v for v in values if not safe_relpath(v)), None)
            if bad is not None:
                t.fail(name, f"names {bad!r}, not a path inside the mirror")
    anchors = t.lines(ANCHORS_FILE, 1)
    if anchors is not None and len(anchors) != meta["anchors"]:
        t.fail(ANCHORS_FILE, f"has {len(anchors)} anchors, meta.json says {meta['anchors']}")
    keys = t.lines(KEYS_FILE, n_keys)
    if keys is not None:
        if len(keys) != n_keys:
            t.fail(KEYS_FILE, f"has {len(keys)} keys, meta.json says {n_keys}")
        elif any(a >= b for a, b in pairwise(keys)):
            t.fail(KEYS_FILE, "keys are not sorted and unique (lookups bisect them)")
    starts = t.npy(KEY_STARTS_FILE, n_keys + 1)
    if starts is not None and keys is not None and len(keys) == n_keys:
        expected = list(accumulate((len(k.encode("utf-8")) + 1 for k in keys), initial=0))
        if list(starts) != expected:
            t.fail(KEY_STARTS_FILE, f"does not give the byte offsets of the lines of {KEYS_FILE}")
    generated = t.npy(MENTION_GENERATED, pages)
    if generated is not None and any(v > 1 for v in generated):
        t.fail(MENTION_GENERATED, "holds a value other than 0 and 1")
    offsets = t.npy(OFFSETS_FILE, n_keys + 1)
    if offsets is not None:
        problem = offsets_problem(offsets, n_rows)
        if problem:
            t.fail(OFFSETS_FILE, f"{problem} (meta.json rows)")
        elif any(a == b for a, b in pairwise(offsets)):
            t.fail(OFFSETS_FILE, "a key has no rows")
    columns = {name: t.npy(name, n_rows) for name in MENTION_ROW_ARRAYS}
    limits = {
        "row_file.npy": (0, pages - 1, "pages of files.txt"),
        "row_count.npy": (1, None, "occurrences"),
        "row_places.npy": (1, (1 << len(PLACE_NAMES)) - 1, "place bits"),
        "row_section.npy": (1, None, "occurrences in a section"),
        "row_line.npy": (1, None, "line numbers"),
        "row_anchor.npy": (0, meta["anchors"] - 1, "anchors of anchors.txt"),
    }
    for name, values in columns.items():
        low, high, what = limits[name]
        if values is None or not values:
            continue
        if min(values) < low or (high is not None and max(values) > high):
            span = f"{low} to {high}" if high is not None else f"at least {low}"
            t.fail(name, f"holds {min(values)} to {max(values)}; {what} run {span}")
    counts, sections = columns["row_count.npy"], columns["row_section.npy"]
    if counts is not None and sections is not None and any(map(int.__gt__, sections, counts)):
        t.fail("row_section.npy", "a section holds more occurrences than its page")
    return t.problems
