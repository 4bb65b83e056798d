"""The identifier table on disk: its constants, plain-file codecs and writer.

The table (``identifiers/`` in a bundle, byte layout in ``bundle_spec/SPEC.md``) is newline-
separated UTF-8 key files, little-endian ``.npy`` integer arrays and one JSON record per row. This
module writes it and holds the codecs the reader (`atlas_core.identifiers.lookup.identifier_index`) shares; it imports
neither numpy nor anything else heavy, since the language server reads the table on cold start.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from pathlib import Path
from typing import Any

from atlas_core.identifiers.spelling import (
    STOPWORDS,
    compact,
    initials,
    path_key,
    split_words,
    strip_path,
)
from atlas_core.safeio import read_json, safe_relpath
from atlas_core.types import Deprecation, IdentifierEntry, Param

log = logging.getLogger(__name__)

TABLE_FORMAT = "atlas-identifiers"
TABLE_VERSION = 1
TABLE_DIR = "identifiers"
META_FILE = "meta.json"
RECORDS_FILE = "records.jsonl"
DEPRECATIONS_FILE = "deprecations.json"
# What the docs pages say about the API beside the specs (`extract.api_evidence`); optional.
API_EVIDENCE_FILE = "api_evidence.json"
# Sorted key families: keys_<family>.txt (one key a line) + rows_<family>.npy (int32 row ids).
KEY_FAMILIES: tuple[str, ...] = ("search", "alias", "path", "template", "initials")
# Per-row ranking facts (uint8); tables written before them lack both files and rank by row order.
WEIGHT_FILE = "weight.npy"
GENERATED_FILE = "generated.npy"
MAX_WEIGHT = 255

KIND_ORDER: tuple[str, ...] = (
    "endpoint",
    "operation",
    "schema",
    "type",
    "json_key",
    "cli",
    "graphql",
    "heading",
    # Appended, never inserted: kind.npy stores positions in this tuple, so older tables keep
    # their meaning and older readers (which name kinds from meta.json) read these rows too.
    "parameter",
    "property",
    # Definitions in a project's source code (a `code` source), since format 1.3.
    "function",
    "method",
    "class",
)
# Kinds of which one page holds many rows of one name (one per operation or schema that takes
# it): the writer keeps each, where it keeps one row of any other kind per page.
OWNED_KINDS: frozenset[str] = frozenset({"parameter", "property"})
HTTP_METHODS: tuple[str, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_SUMMARY_WORD_RE = re.compile(r"[a-z0-9]{2,}")

# ---------------------------------------------------------------------------------------------
# Plain files: newline-separated text and 1-D little-endian .npy arrays, without numpy.

_NPY_TYPES = {"|u1": "B", "<i4": "i", "<i8": "q"}
_NPY_CODES = {v: k for k, v in _NPY_TYPES.items()}
# The exact header `write_npy` (and numpy for these dtypes) writes; ast would cost an import.
_NPY_HEADER_RE = re.compile(
    r"^\{'descr': '([|<]\w\d)', 'fortran_order': False, 'shape': \((\d+),\), \}\s*$"
)


def write_lines(path: Path, values: Sequence[str]) -> None:
    """One value a line; values never hold a newline (the writer replaces them)."""
    path.write_bytes("\n".join(values).encode("utf-8"))


def read_lines(path: Path, expected: int = 0) -> list[str]:
    """The values of `write_lines`; `expected` tells one empty value from none."""
    data = path.read_bytes()
    return data.decode("utf-8").split("\n") if data else [""] * min(expected, 1)


def write_npy(path: Path, typecode: str, values: Iterable[int]) -> None:
    """A 1-D .npy (format 1.0) of uint8, int32 or int64, readable by numpy.load."""
    arr = array(typecode, values)
    if sys.byteorder != "little":
        arr.byteswap()
    header = (
        f"{{'descr': '{_NPY_CODES[typecode]}', 'fortran_order': False, 'shape': ({len(arr)},), }}"
    )
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    with open(path, "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1"))
        fh.write(arr.tobytes())


def read_npy(path: Path) -> array:
    data = path.read_bytes()
    if data[:8] != b"\x93NUMPY\x01\x00":
        raise ValueError(f"{path.name} is not a version 1.0 .npy file")
    size = int.from_bytes(data[8:10], "little")
    header = data[10 : 10 + size].decode("latin1")
    m = _NPY_HEADER_RE.match(header)
    if not m or m.group(1) not in _NPY_TYPES:
        raise ValueError(f"{path.name}: not a 1-D uint8/int32/int64 array ({header.strip()})")
    arr = array(_NPY_TYPES[m.group(1)])
    arr.frombytes(data[10 + size :])
    if sys.byteorder != "little":
        arr.byteswap()
    if len(arr) != int(m.group(2)):
        raise ValueError(f"{path.name}: {len(arr)} values, header says {m.group(2)}")
    return arr


_RECORD_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _record(e: IdentifierEntry) -> bytes:
    rec: dict[str, Any] = {"file": e.file, "line": e.line}
    # A parameter's or property's summary is its description, already in its one params item:
    # written once, the thousands of such rows of a large spec cost half the space.
    skip = "summary" if e.kind in OWNED_KINDS and e.params else ""
    for key in ("anchor", "url", "summary", "publication", "method", "path", "operation_id"):
        if key == skip:
            continue
        value = getattr(e, key)
        if value:
            rec[key] = value
    if e.params:
        rec["params"] = [[p.name, p.location, p.type, p.required, p.description] for p in e.params]
        # Format, values and default beside `params`, not inside it: the readers before them
        # check each params item is exactly five fields, and ignore record keys they do not know.
        details = [_param_details(p) for p in e.params]
        if any(details):
            rec["param_details"] = details
    for key in ("request_schema", "response_schema", "replacement", "owner"):
        value = getattr(e, key)
        if value:
            rec[key] = value
    if e.deprecated:
        rec["deprecated"] = True
    return _RECORD_ENCODER.encode(rec).encode("utf-8") + b"\n"


def _param_details(p: Param) -> dict[str, Any]:
    details: dict[str, Any] = {}
    if p.format:
        details["format"] = p.format
    if p.enum:
        details["enum"] = list(p.enum)
    if p.default:
        details["default"] = p.default
    if p.deprecated:
        details["deprecated"] = True
    if p.example:
        details["example"] = p.example
    return details


def _deprecation_record(d: Deprecation) -> dict[str, Any]:
    return {
        "term": d.term,
        "replacement": d.replacement,
        "file": d.file,
        "line": d.line,
        "url": d.url,
        "note": d.note,
        "whole_word": d.whole_word,
        "code_only": d.code_only,
    }


_DEPRECATION_TEXT = ("replacement", "file", "url", "note")


def _deprecation(d: object) -> Deprecation:
    """One ``deprecations.json`` row; ValueError naming the field that is wrong."""
    if not isinstance(d, dict):
        raise ValueError(f"an entry is {type(d).__name__}, not an object")
    if not isinstance(d.get("term"), str) or not d["term"]:
        raise ValueError(f"term {d.get('term')!r} is not a non-empty text")
    for key in _DEPRECATION_TEXT:
        if not isinstance(d.get(key, ""), str):
            raise ValueError(f"{key} of {d['term']!r} is not text")
    if d.get("file") and not safe_relpath(d["file"]):
        raise ValueError(f"file of {d['term']!r} is {d['file']!r}, not a path inside the mirror")
    line = d.get("line", 0)
    if type(line) is not int or line < 0:
        raise ValueError(f"line of {d['term']!r} is {line!r}, not a line number")
    for key in ("whole_word", "code_only"):
        if not isinstance(d.get(key, False), bool):
            raise ValueError(f"{key} of {d['term']!r} is not true or false")
    return Deprecation(
        term=d["term"],
        replacement=d.get("replacement", ""),
        file=d.get("file", ""),
        line=line,
        url=d.get("url", ""),
        note=d.get("note", ""),
        whole_word=d.get("whole_word", True),
        code_only=d.get("code_only", False),  # absent in tables written before it
    )


def read_deprecations(directory: Path) -> list[Deprecation]:
    """The rows of ``deprecations.json`` in a table directory; none when the file is absent.

    OSError or ValueError (with the reason) for a file that is not a JSON array of entries."""
    path = directory / DEPRECATIONS_FILE
    try:
        rows = read_json(path)
    except FileNotFoundError:
        return []
    if not isinstance(rows, list):
        raise ValueError(f"{DEPRECATIONS_FILE} is not a JSON array")
    return [_deprecation(d) for d in rows]


def _aliases(e: IdentifierEntry, search: str) -> set[str]:
    """Extra lookup keys of an entry besides its name, compact name and path keys."""
    keys = set()
    if e.kind == "endpoint":
        keys.add("path:" + e.path)
        if e.operation_id:
            keys.add(compact(e.operation_id))
    if e.kind == "operation" and e.operation_id:
        keys.add(compact(e.operation_id))
    parts = [p for p in re.split(r"[.#]|::", e.name) if p]
    if len(parts) > 1:
        keys.add(compact(parts[-1]))
    if e.kind == "cli":
        words = e.name.split()
        if len(words) > 1:
            keys.add(compact(" ".join(words[1:])))
    keys.discard(search)
    keys.discard("")
    return keys


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def _write_family(target: Path, family: str, pairs: list[tuple[str, int]]) -> int:
    pairs = sorted(p for p in pairs if p[0])
    write_lines(target / f"keys_{family}.txt", [_one_line(k) for k, _ in pairs])
    write_npy(target / f"rows_{family}.npy", "i", (r for _, r in pairs))
    return len(pairs)


@dataclass(frozen=True, slots=True)
class _RowKeys:
    """What one entry adds to the table besides its position: all of it depends on the entry
    alone, so a writer that keeps these between builds (`atlas index --watch`) derives them
    only for entries it has not seen."""

    record: bytes
    search: str
    initials: str
    paths: tuple[str, ...]  # path keys, endpoints only
    template: str  # endpoints only
    aliases: tuple[str, ...]
    keyword: tuple[tuple[str, int], ...]  # (token, 2 for a name word, 1 for a summary word)


def _row_keys(e: IdentifierEntry) -> _RowKeys:
    search = compact(e.name)
    paths: tuple[str, ...] = ()
    template = ""
    if e.kind == "endpoint":
        pkey = path_key(e.path or strip_path(e.name)[1])
        method = e.method or e.name.split(" ", 1)[0]
        paths = (pkey, f"{method} {pkey}")
        template = (e.path or strip_path(e.name)[1]).lower()
    keyword: tuple[tuple[str, int], ...] = ()
    if e.kind not in OWNED_KINDS:
        # The keyword fallback answers names that resolve to nothing; thousands of parameter
        # rows would drown its page headings and summaries, and a name of theirs resolves
        # exactly or by its compact key anyway.
        name_words = set(split_words(e.name)) | {search}
        summary_words = set(_SUMMARY_WORD_RE.findall(e.summary.lower()[:600]))
        keyword = tuple((t, 2) for t in name_words) + tuple(
            (t, 1) for t in summary_words - name_words - STOPWORDS
        )
    return _RowKeys(
        record=_record(e),
        search=search,
        initials=initials(e.name),
        paths=paths,
        template=template,
        aliases=tuple(_aliases(e, search)),
        keyword=keyword,
    )


RowMemo = dict[IdentifierEntry, _RowKeys]


def write_table(
    entries: Iterable[IdentifierEntry],
    deprecations: Iterable[Deprecation],
    out_dir: Path,
    *,
    weights: Sequence[int] | None = None,
    generated: Sequence[bool] | None = None,
    memo: RowMemo | None = None,
) -> dict:
    """Write the identifier table under ``out_dir/identifiers/``; returns the manifest section.

    `weights` and `generated`, when given, run parallel to `entries`: how much each entry's
    section documents it (`Scan.weight`) and whether its page was generated from an API spec.
    Lookups rank equal matches by them; absent, every row weighs 0 and counts as written docs.
    A `memo` kept between builds saves deriving each row's keys again; it is left holding the
    rows of this table only, and the table is the same with or without it."""
    order = {k: n for n, k in enumerate(KIND_ORDER)}
    unique: dict[tuple[str, str, str, int, str], tuple[IdentifierEntry, int, bool]] = {}
    for n, e in enumerate(entries):
        if e.kind not in order:
            log.warning("identifier %r has unknown kind %r; stored as heading", e.name, e.kind)
            e = replace(e, kind="heading")
        e = replace(e, name=_one_line(e.name).strip()) if "\n" in e.name or "\r" in e.name else e
        ranking = (
            min(max(int(weights[n]), 0), MAX_WEIGHT) if weights is not None else 0,
            bool(generated[n]) if generated is not None else False,
        )
        # Headings repeat legitimately ("Parameters" under every operation), and so do the
        # parameters and properties of different owners; other names keep one row per page.
        line = e.line if e.kind == "heading" or e.kind in OWNED_KINDS else 0
        owner = f"{e.method} {e.path} {e.owner}" if e.kind in OWNED_KINDS else ""
        unique.setdefault((e.kind, e.name, e.file, line, owner), (e, *ranking))
    # Kind-major order: the first rows are endpoints, which is what an empty symbol query shows.
    # Equal names keep the caller's order of preference (`extract` puts the best documented first),
    # which is the order lookups and symbol searches break ties in.
    ranked = sorted(unique.values(), key=lambda r: (order[r[0].kind], r[0].name.lower()))
    rows = [e for e, _, _ in ranked]
    target = Path(out_dir) / TABLE_DIR
    target.mkdir(parents=True, exist_ok=True)

    previous = memo if memo is not None else {}
    keys: list[_RowKeys] = []
    for e in rows:
        found = previous.get(e)
        keys.append(found if found is not None else _row_keys(e))
    if memo is not None:
        memo.clear()
        memo.update(zip(rows, keys, strict=True))
    names = [e.name for e in rows]
    search = [k.search for k in keys]
    families: dict[str, list[tuple[str, int]]] = {f: [] for f in KEY_FAMILIES}
    families["search"] = [(k, r) for r, k in enumerate(search)]
    families["initials"] = [(k.initials, r) for r, k in enumerate(keys) if k.initials]
    postings: dict[str, list[int]] = {}
    offsets = [0]
    with open(target / RECORDS_FILE, "wb") as records:
        records.write(b"".join(k.record for k in keys))
    for row, k in enumerate(keys):
        offsets.append(offsets[-1] + len(k.record))
        if k.paths:
            families["path"] += [(p, row) for p in k.paths]
            families["template"].append((k.template, row))
        families["alias"] += [(a, row) for a in k.aliases]
        for token, weight in k.keyword:
            postings.setdefault(token, []).append(row * 4 + weight)
    write_lines(target / "names.txt", names)
    write_lines(target / "search.txt", search)
    write_npy(target / "kind.npy", "B", (order[e.kind] for e in rows))
    write_npy(target / WEIGHT_FILE, "B", (w for _, w, _ in ranked))
    write_npy(target / GENERATED_FILE, "B", (int(g) for _, _, g in ranked))
    write_npy(target / "record_offsets.npy", "q", offsets)
    key_counts = {f: _write_family(target, f, pairs) for f, pairs in families.items()}
    terms = sorted(postings)
    write_lines(target / "keyword_terms.txt", terms)
    write_npy(
        target / "keyword_offsets.npy",
        "q",
        accumulate((len(postings[t]) for t in terms), initial=0),
    )
    write_npy(target / "keyword_postings.npy", "i", (p for t in terms for p in postings[t]))
    deps = [_deprecation_record(d) for d in deprecations]
    (target / DEPRECATIONS_FILE).write_text(
        json.dumps(deps, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    counts = Counter(e.kind for e in rows)
    meta = {
        "format": TABLE_FORMAT,
        "version": TABLE_VERSION,
        "count": len(rows),
        "kinds": list(KIND_ORDER),
        "kind_counts": {k: counts.get(k, 0) for k in KIND_ORDER},
        "keys": key_counts,
        "keyword_terms": len(terms),
        "deprecations": len(deps),
    }
    (target / META_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    files = sorted(p.name for p in target.iterdir() if p.is_file())
    return {
        "format": TABLE_FORMAT,
        "version": TABLE_VERSION,
        "count": len(rows),
        "kinds": meta["kind_counts"],
        "deprecations": len(deps),
        "files": [f"{TABLE_DIR}/{name}" for name in files],
    }
