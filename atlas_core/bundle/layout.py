"""What the manifest alone says about the indexes: counts that must agree, and the dtype and shape
of every array the keyword index and the identifier table hold (SPEC "keyword/", "identifiers/").

These checks read nothing but the manifest, so `Bundle.open` runs them on every open: a bundle
whose values were edited and re-hashed into the manifest ("resealed") is refused here when the
edit changed a count, a dtype or a shape. The `.npy` headers were already checked against the
manifest entries, so an entry that passes here describes the array on disk.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from atlas_core.bundle.manifest import CHUNKS, MIRROR
from atlas_core.types import Problem

KEYWORD_ARRAYS = {
    "keyword/indptr.npy": "<i8",
    "keyword/indices.npy": "<i4",
    "keyword/data.npy": "<f4",
}
KEYWORD_VOCAB = "keyword/vocab.txt"
IDENTIFIERS = "identifiers"
# Per-row arrays of the identifier table: dtype, and how many values beyond the row count.
ROW_ARRAYS = {
    "identifiers/kind.npy": ("|u1", 0),
    "identifiers/weight.npy": ("|u1", 0),
    "identifiers/generated.npy": ("|u1", 0),
    "identifiers/record_offsets.npy": ("<i8", 1),
}
OTHER_ID_ARRAYS = {
    "identifiers/keyword_offsets.npy": "<i8",
    "identifiers/keyword_postings.npy": "<i4",
}
ROWS_PREFIX = "identifiers/rows_"
MENTIONS = "mentions"
# The mention index's arrays: dtype, and which manifest count (plus how many) gives the length.
MENTION_ARRAYS = {
    "mentions/key_offsets.npy": ("<i8", "keys", 1),
    "mentions/key_starts.npy": ("<i8", "keys", 1),
    "mentions/generated.npy": ("|u1", "pages", 0),
    "mentions/row_file.npy": ("<i4", "rows", 0),
    "mentions/row_count.npy": ("<i4", "rows", 0),
    "mentions/row_places.npy": ("|u1", "rows", 0),
    "mentions/row_section.npy": ("<i4", "rows", 0),
    "mentions/row_line.npy": ("<i4", "rows", 0),
    "mentions/row_anchor.npy": ("<i4", "rows", 0),
}


def _count(value: object) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _array(
    files: Mapping[str, Any], rel: str, dtype: str, length: int | None, why: str
) -> Problem | None:
    """A 1-D array entry of `dtype` and, when `length` is known, that many values."""
    entry = files.get(rel)
    if entry is None:
        return None
    shape = list(entry.get("shape", []))
    if entry.get("dtype") != dtype or len(shape) != 1:
        return Problem(rel, f"must be a 1-D {dtype} array, is {entry.get('dtype')} {shape}")
    if length is not None and shape[0] != length:
        return Problem(rel, f"has {shape[0]} values, {why} needs {length}")
    return None


def _named_files(section: Mapping[str, Any], files: Mapping[str, Any], key: str) -> list[Problem]:
    named = section.get("files")
    if not isinstance(named, list):
        return []
    return [
        Problem(rel, f"named by manifest.json {key}.files but not listed in files")
        for rel in named
        if isinstance(rel, str) and rel not in files
    ]


def keyword_problems(manifest: Mapping[str, Any]) -> list[Problem]:
    section = manifest.get("keyword")
    files: Mapping[str, Any] = manifest["files"]
    if not isinstance(section, Mapping):
        return []  # no keyword index: the engine refuses keyword search on this bundle
    problems = _named_files(section, files, "keyword")
    chunks = manifest["counts"]["chunks"]
    n_chunks = _count(section.get("n_chunks"))
    if n_chunks is not None and n_chunks != chunks:
        problems.append(
            Problem(
                "keyword/indices.npy", f"index covers {n_chunks} chunks, the bundle has {chunks}"
            )
        )
    n_terms, nnz = _count(section.get("n_terms")), _count(section.get("nnz"))
    lengths = {
        "keyword/indptr.npy": (None if n_terms is None else n_terms + 1, "keyword.n_terms + 1"),
        "keyword/indices.npy": (nnz, "keyword.nnz"),
        "keyword/data.npy": (nnz, "keyword.nnz"),
    }
    for rel, dtype in KEYWORD_ARRAYS.items():
        length, why = lengths[rel]
        problem = _array(files, rel, dtype, length, why)
        if problem is not None:
            problems.append(problem)
    indices, data = files.get("keyword/indices.npy"), files.get("keyword/data.npy")
    if indices and data and list(indices.get("shape", [])) != list(data.get("shape", [])):
        problems.append(Problem("keyword/data.npy", "has another length than keyword/indices.npy"))
    return problems


def identifier_problems(manifest: Mapping[str, Any]) -> list[Problem]:
    files: Mapping[str, Any] = manifest["files"]
    section = manifest.get(IDENTIFIERS)
    counted = _count(manifest["counts"].get("identifiers"))
    if not isinstance(section, Mapping):
        if counted:
            return [
                Problem(
                    "manifest.json",
                    f"counts.identifiers is {counted} but there is no identifiers section",
                )
            ]
        return []
    problems = _named_files(section, files, IDENTIFIERS)
    count = _count(section.get("count"))
    if count is None:
        count = counted
    elif counted is not None and counted != count:
        problems.append(
            Problem(
                "manifest.json",
                f"counts.identifiers is {counted} but identifiers.count is {count}",
            )
        )
    kinds = section.get("kinds")
    if count is not None and isinstance(kinds, Mapping):
        total = sum(v for v in kinds.values() if _count(v) is not None)
        if total != count:
            problems.append(
                Problem("manifest.json", f"identifiers.kinds add up to {total}, not {count}")
            )
    for rel, (dtype, extra) in ROW_ARRAYS.items():
        length = None if count is None else count + extra
        problem = _array(files, rel, dtype, length, "identifiers.count" + (" + 1" * extra))
        if problem is not None:
            problems.append(problem)
    for rel, dtype in OTHER_ID_ARRAYS.items():
        problem = _array(files, rel, dtype, None, "")
        if problem is not None:
            problems.append(problem)
    # The table's own files, from its section: the bundle's thousands of mirror pages are not
    # walked again on every open.
    named = section.get("files")
    for rel in named if isinstance(named, list) else ():
        if isinstance(rel, str) and rel.startswith(ROWS_PREFIX) and rel.endswith(".npy"):
            problem = _array(files, rel, "<i4", None, "")
            if problem is not None:
                problems.append(problem)
    return problems


def mention_problems(manifest: Mapping[str, Any]) -> list[Problem]:
    """The mention index's arrays against its manifest section (optional since format 1.1: a
    bundle without the section serves lookups from the identifier table alone)."""
    section = manifest.get(MENTIONS)
    if not isinstance(section, Mapping):
        return []
    files: Mapping[str, Any] = manifest["files"]
    problems = _named_files(section, files, MENTIONS)
    for rel, (dtype, key, extra) in MENTION_ARRAYS.items():
        count = _count(section.get(key))
        length = None if count is None else count + extra
        why = f"mentions.{key}" + (f" + {extra}" if extra else "")
        if rel not in files and isinstance(section.get("files"), list):
            problems.append(Problem(rel, "missing; the mention index is incomplete"))
            continue
        problem = _array(files, rel, dtype, length, why)
        if problem is not None:
            problems.append(problem)
    return problems


def count_problems(manifest: Mapping[str, Any], names: Sequence[str]) -> list[Problem]:
    counts = manifest["counts"]
    mirror_files = _count(counts.get("mirror_files"))
    if mirror_files is None:
        return []
    # `names` is sorted, so the mirror's pages are one run: two bisections count thousands.
    listed = bisect_left(names, MIRROR + "0") - bisect_left(names, MIRROR + "/")
    if listed != mirror_files:
        return [
            Problem(
                "manifest.json",
                f"counts.mirror_files is {mirror_files} but {listed} mirror files are listed",
            )
        ]
    return []


def layout_problems(manifest: Mapping[str, Any], names: Sequence[str]) -> list[Problem]:
    """Everything the manifest alone shows to be inconsistent (no file is read); `names` are the
    listed files, sorted."""
    if CHUNKS not in manifest["files"]:
        return []  # reported by the table checks
    return [
        *count_problems(manifest, names),
        *keyword_problems(manifest),
        *identifier_problems(manifest),
        *mention_problems(manifest),
    ]
