"""What `atlas verify` checks beyond hashes: the values inside every file (SPEC "What a reader
checks", 10-13).

A bundle whose bad values were re-hashed into its manifest has matching SHA-256s, so hashes alone
pass it. These checks read each index in full (numpy and pyarrow are fine here; opening a bundle
never runs them) and ask what its readers assume: every row pointer and row number in range, every
count equal to what the other files say, every column of the chunk table there with its type,
every text file UTF-8 and every JSON file of the right shape. The readers check the cheap part of
the same rules when they load an index, so what verify misses still fails as one BundleError.

Only files that passed their size and hash checks are read (a damaged file is already reported).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from atlas_core.bundle.layout import KEYWORD_ARRAYS, KEYWORD_VOCAB, MENTIONS
from atlas_core.bundle.manifest import CHUNKS, MIRROR, VECTORS
from atlas_core.safeio import read_json, read_regular
from atlas_core.types import Problem

# Rows are L2-normalised in float32 and then rounded to float16 (SPEC "vectors.npy"), which moves
# a norm by about 1e-3; a damaged row is far off, a zero row (norm 0) is never written.
NORM_TOLERANCE = 0.01
_BLOCK_ROWS = 8192


def content_problems(root: Path, manifest: Mapping[str, Any], usable: set[str]) -> list[Problem]:
    """Problems inside the files of `usable` (bundle-relative paths that passed their checks)."""
    problems: list[Problem] = []
    if CHUNKS in usable:
        problems += _chunk_problems(root, manifest)
    if VECTORS in usable:
        problems += _vector_problems(root)
    # A bundle whose keyword section names no index (an old or a test bundle) has nothing to
    # check here; the engine refuses keyword search on it.
    keyword_files = (*KEYWORD_ARRAYS, KEYWORD_VOCAB)
    if isinstance(manifest.get("keyword"), Mapping) and usable.issuperset(keyword_files):
        problems += _keyword_problems(root, manifest, usable)
    if isinstance(manifest.get("identifiers"), Mapping):
        problems += _identifier_problems(root, manifest, usable)
    if isinstance(manifest.get(MENTIONS), Mapping):
        problems += _mention_problems(root, manifest, usable)
    if isinstance(manifest.get("ranking"), Mapping):
        from atlas_core.search import ranking_problems

        problems += ranking_problems(root, manifest)
    if "cards" in manifest:
        from atlas_core.search import cards_problems

        problems += cards_problems(manifest)
    if "headings" in manifest:
        from atlas_core.search import headings_problems

        problems += headings_problems(manifest)
    problems += _text_problems(root, manifest, usable)
    return problems


def _chunk_problems(root: Path, manifest: Mapping[str, Any]) -> list[Problem]:
    import pyarrow.parquet as pq

    from atlas_core.bundle.chunk_schema import table_problems

    try:
        table = pq.read_table(root / CHUNKS)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        return [Problem(CHUNKS, f"cannot read the chunk table ({exc})")]
    messages = table_problems(table, mirror_files=manifest["files"], deep=True)
    return [Problem(CHUNKS, message) for message in messages]


def _vector_problems(root: Path) -> list[Problem]:
    import numpy as np

    vectors = np.load(root / VECTORS, mmap_mode="r", allow_pickle=False)
    for start in range(0, vectors.shape[0], _BLOCK_ROWS):
        block = np.asarray(vectors[start : start + _BLOCK_ROWS], dtype=np.float32)
        if not np.isfinite(block).all():
            row = start + int(np.flatnonzero(~np.isfinite(block).all(axis=1))[0])
            return [Problem(VECTORS, f"row {row} holds a value that is not finite")]
        norms = np.linalg.norm(block, axis=1)
        off = np.flatnonzero(np.abs(norms - 1.0) > NORM_TOLERANCE)
        if off.size:
            row = start + int(off[0])
            return [
                Problem(
                    VECTORS,
                    f"row {row} has length {float(norms[off[0]]):.4f}; rows are L2-normalised "
                    f"({off.size} such rows in rows {start}-{start + len(block) - 1})",
                )
            ]
    return []


def _keyword_problems(root: Path, manifest: Mapping[str, Any], usable: set[str]) -> list[Problem]:
    import numpy as np

    from atlas_core.search import DATA, INDICES, INDPTR, VOCAB, index_problems, verify_problems

    indptr, indices, data = (
        np.load(root / rel, mmap_mode="r", allow_pickle=False) for rel in (INDPTR, INDICES, DATA)
    )
    try:
        raw = (root / VOCAB).read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Problem(VOCAB, f"not valid UTF-8 ({exc})")]
    if raw and not raw.endswith("\n"):
        return [Problem(VOCAB, "the last term does not end with a newline (truncated?)")]
    terms = raw.split("\n")[:-1] if raw else []
    problems = index_problems(indptr, indices, data, terms, manifest["counts"]["chunks"], deep=True)
    claimed = manifest["keyword"].get("synonyms")
    listed = manifest["files"]
    return problems + verify_problems(root, claimed, listed, usable, frozenset(terms))


def _identifier_problems(
    root: Path, manifest: Mapping[str, Any], usable: set[str]
) -> list[Problem]:
    from atlas_core.identifiers import META_FILE, TABLE_DIR, read_npy, table_problems

    section = manifest["identifiers"]
    mine = [rel for rel in manifest["files"] if rel.startswith(TABLE_DIR + "/")]
    if f"{TABLE_DIR}/{META_FILE}" not in mine:
        return [Problem(f"{TABLE_DIR}/{META_FILE}", "missing; the identifier table is incomplete")]
    if not usable.issuperset(mine):
        return []  # a damaged file of the table is reported already
    problems = table_problems(root / TABLE_DIR)
    if problems:
        return problems
    meta = read_json(root / TABLE_DIR / META_FILE)  # table_problems parsed it already
    kinds = section.get("kinds")
    if isinstance(kinds, Mapping):
        stored = Counter(meta["kinds"][code] for code in read_npy(root / TABLE_DIR / "kind.npy"))
        wrong = sorted(k for k in {*kinds, *stored} if kinds.get(k, 0) != stored.get(k, 0))
        if wrong:
            problems.append(
                Problem(
                    f"{TABLE_DIR}/kind.npy",
                    f"rows per kind differ from manifest.json identifiers.kinds for {wrong}",
                )
            )
    for key in ("count", "deprecations"):
        if key in section and key in meta and section[key] != meta[key]:
            problems.append(
                Problem(
                    f"{TABLE_DIR}/{META_FILE}",
                    f"says {key} {meta[key]!r}, manifest.json identifiers.{key} says "
                    f"{section[key]!r}",
                )
            )
    return problems


def _mention_problems(root: Path, manifest: Mapping[str, Any], usable: set[str]) -> list[Problem]:
    from atlas_core.identifiers import mention_problems

    mine = [rel for rel in manifest["files"] if rel.startswith(MENTIONS + "/")]
    if f"{MENTIONS}/meta.json" not in mine:
        return [Problem(f"{MENTIONS}/meta.json", "missing; the mention index is incomplete")]
    if not usable.issuperset(mine):
        return []  # a damaged file of the index is reported already
    problems = mention_problems(root / MENTIONS)
    if problems:
        return problems
    meta = read_json(root / MENTIONS / "meta.json")  # mention_problems parsed it already
    section = manifest[MENTIONS]
    return [
        Problem(
            f"{MENTIONS}/meta.json",
            f"says {key} {meta[key]!r}, manifest.json mentions.{key} says {section[key]!r}",
        )
        for key in ("keys", "rows")
        if key in section and section[key] != meta[key]
    ]


def _text_problems(root: Path, manifest: Mapping[str, Any], usable: set[str]) -> list[Problem]:
    """Mirror pages are UTF-8 text; JSON files parse (RFC 8259: no NaN) as what they hold."""
    problems = []
    for rel in sorted(usable):
        if rel.startswith(MIRROR + "/"):
            try:
                read_regular(root / rel, limit=manifest["files"][rel]["size"]).decode("utf-8")
            except UnicodeDecodeError as exc:
                problems.append(Problem(rel, f"not valid UTF-8 text ({exc})"))
            except (OSError, ValueError) as exc:  # replaced since its size was checked
                problems.append(Problem(rel, f"cannot be read ({exc})"))
        elif rel.endswith(".json"):
            try:
                read_json(root / rel)
            except (OSError, ValueError) as exc:
                problems.append(Problem(rel, f"not valid JSON ({exc})"))
    return problems
