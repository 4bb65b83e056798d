"""`Bundle.open` checks `.npy` headers, the Parquet footer and the manifest schema in plain Python
(no numpy, pyarrow or jsonschema import on the lookup path). Each plain check must never accept
what the library it stands in for refuses: these tests compare both on valid files and on many
damaged ones."""

from __future__ import annotations

import copy
import io
import json
import math
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pyarrow.parquet as pq
import pytest

from atlas_core.bundle import manifest as manifest_module
from atlas_core.bundle.chunk_schema import chunks_to_table
from atlas_core.bundle.manifest import (
    _fast_check,
    _numpy_npy_header,
    read_npy_header,
    schema,
    schema_errors,
)
from atlas_core.bundle.parquet_footer import footer_row_count
from atlas_core.bundle.schema_check import Unsupported, compile_schema
from atlas_core.types import Chunk
from tests.engine.test_bundle import write_bundle

ROOT = Path(__file__).resolve().parents[2]

# --- .npy headers ---------------------------------------------------------------------------------

PLAIN_ARRAYS = [
    np.zeros((3, 8), "<f2"),
    np.zeros(5, "?"),
    np.zeros((), "<i8"),
    np.zeros((2, 0), "u1"),
    np.zeros((4, 1, 2), "<i4"),
    np.arange(7, dtype="<u8"),
    np.zeros(2, "<c16"),
    np.zeros((2, 3), "<f8", order="F"),
    np.zeros(3, "i1"),
    np.zeros(3, "<u2"),
]


def _npy_bytes(array: np.ndarray, version: tuple[int, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    if version is None:
        np.save(buffer, array, allow_pickle=True)
    else:
        np.lib.format.write_array(buffer, array, version=version, allow_pickle=True)
    return buffer.getvalue()


def _numpy_says(path: Path) -> Any:
    """What numpy's own header parser makes of the file: the header, or the error message."""
    with path.open("rb") as fh:
        try:
            return _numpy_npy_header(fh)
        except ValueError as exc:
            return f"error: {exc}"


def _same_header(fast: Any, slow: Any) -> bool:
    fields = ("dtype_str", "itemsize", "shape", "fortran_order", "data_offset", "has_objects")
    return (
        not isinstance(slow, str)
        and all(getattr(fast, f) == getattr(slow, f) for f in fields)
        and slow.dtype_problem is None
    )


@pytest.mark.parametrize("version", [None, (2, 0)])
def test_plain_npy_headers_are_read_without_numpy_and_agree(tmp_path: Path, version) -> None:
    for i, array in enumerate(PLAIN_ARRAYS):
        path = tmp_path / f"a{i}.npy"
        path.write_bytes(_npy_bytes(array, version))
        fast = manifest_module._plain_npy_header(*_opened(path))
        assert fast is not None, array.dtype  # the fast path is taken for what np.save writes
        assert _same_header(fast, _numpy_says(path)), (fast, _numpy_says(path))
        assert fast.dtype == array.dtype and fast.shape == array.shape


def _opened(path: Path) -> tuple[bytes, Any]:
    data = path.read_bytes()
    rest = io.BytesIO(data[10:])
    return data[:10], rest.read


def _no_address(message: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", "", message)


def _header_variants() -> Iterator[bytes]:
    """Damaged and unusual headers: each is either refused by numpy or read the same way."""
    base = _npy_bytes(np.zeros((3, 8), "<f2"))
    text = base[10 : 10 + int.from_bytes(base[8:10], "little")].decode("latin1")
    replacements = [
        ("'<f2'", "'>f2'"), ("'<f2'", "'|O'"), ("'<f2'", "'<U3'"), ("'<f2'", "'<f16'"),
        ("'<f2'", "'|V8'"), ("'<f2'", "[('a', '<f4')]"), ("'<f2'", "'=f2'"), ("'<f2'", "'f2'"),
        ("'<f2'", "'<f3'"), ("'<f2'", "'<M8'"), ("'<f2'", "'<i1'"), ("(3, 8)", "(3)"),
        ("(3, 8)", "(03, 8)"), ("(3, 8)", "(-3, 8)"), ("(3, 8)", "(True, 8)"),
        ("(3, 8)", "(3, 8,)"), ("(3, 8)", "[3, 8]"), ("(3, 8)", "(3,  8)"), ("False", "false"),
        ("False", "0"), ("'descr'", "'dtype'"), (", }", ", 'x': 1, }"), ("{", "{ "),
        ("(3, 8)", "(3, 8.0)"), ("(3, 8)", "(0x3, 8)"), ("(3, 8)", "(3_0, 8)"),
    ]  # fmt: skip
    for old, new in replacements:
        changed = text.replace(old, new, 1).encode("latin1")
        yield base[:8] + len(changed).to_bytes(2, "little") + changed + base[10 + len(text) :]
    # reordered keys, as another writer might produce
    reordered = "{'shape': (3, 8), 'fortran_order': False, 'descr': '<f2', }".ljust(117) + "\n"
    yield base[:8] + (118).to_bytes(2, "little") + reordered.encode() + base[128:]
    for version in (b"\x03\x00", b"\x01\x01", b"\x00\x00"):
        yield base[:6] + version + base[8:]
    yield base[:9]  # truncated inside the length
    yield base[:40]  # truncated inside the header
    yield b"\x93NUMPX" + base[6:]
    rng = random.Random(5)
    for _ in range(400):
        data = bytearray(base)
        data[rng.randrange(0, 128)] = rng.randrange(256)
        yield bytes(data)


def test_damaged_npy_headers_get_numpys_verdict(tmp_path: Path) -> None:
    path = tmp_path / "x.npy"
    fast_taken = 0
    for data in _header_variants():
        path.write_bytes(data)
        fast = manifest_module._plain_npy_header(*_opened(path))
        slow = _numpy_says(path)
        if fast is not None:
            fast_taken += 1
            assert _same_header(fast, slow), (data[:128], fast, slow)
        # whichever path reads it, read_npy_header's answer is numpy's
        try:
            got = read_npy_header(path)
        except ValueError as exc:
            assert isinstance(slow, str) and _no_address(str(exc)) in _no_address(slow)
        else:
            assert not isinstance(slow, str)
            assert (got.dtype_str, got.shape, got.fortran_order, got.data_offset) == (
                slow.dtype_str,
                slow.shape,
                slow.fortran_order,
                slow.data_offset,
            )
            assert got.dtype_problem == slow.dtype_problem
            assert got.has_objects == slow.has_objects
    assert fast_taken > 0


# --- the Parquet footer ---------------------------------------------------------------------------


def _parquet(path: Path, rows: int) -> bytes:
    chunks = [
        Chunk(
            chunk_id=f"c{i}", file=f"sec/p{i % 3}.md", publication="sec", title=f"Page {i}",
            heading=f"Page {i} > Part", anchor="part", url="", line_start=i, line_end=i + 2,
            text=f"text {i} " * 5, embed_text=f"text {i}", is_code=bool(i % 2),
            cluster_tags=("alpha", "beta")[: i % 3], token_count=i,
        )
        for i in range(rows)
    ]  # fmt: skip
    pq.write_table(chunks_to_table(chunks), path, compression="zstd", row_group_size=7)
    return path.read_bytes()


def _pyarrow_rows(path: Path) -> int | str:
    try:
        return pq.read_metadata(path).num_rows
    except Exception as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("rows", [0, 1, 20])
def test_footer_row_count_matches_pyarrow(tmp_path: Path, rows: int) -> None:
    path = tmp_path / "t.parquet"
    _parquet(path, rows)
    assert footer_row_count(path) == pq.read_metadata(path).num_rows == rows


def test_damaged_footers_are_left_to_pyarrow(tmp_path: Path) -> None:
    """Where pyarrow reads a damaged footer, the plain reader agrees or steps aside (None)."""
    path = tmp_path / "t.parquet"
    good = _parquet(path, 20)
    length = int.from_bytes(good[-8:-4], "little")
    start = len(good) - 8 - length
    variants = [good[:-1], good[:-8], good[:12], b"PAR1" + b"\0" * 8, good[:-4] + b"PARE"]
    variants += [good[:-8] + (n).to_bytes(4, "little") + b"PAR1" for n in (0, length + 1, 10**9)]
    rng = random.Random(11)
    for _ in range(300):
        data = bytearray(good)
        data[rng.randrange(start, len(good))] ^= 1 << rng.randrange(8)
        variants.append(bytes(data))
    for data in variants:
        path.write_bytes(data)
        ours, theirs = footer_row_count(path), _pyarrow_rows(path)
        if not isinstance(theirs, str):
            assert ours in (None, theirs), (ours, theirs)


def test_open_counts_the_table_rows_from_the_footer(tmp_path: Path) -> None:
    """A table with other rows than the manifest counts is refused at open, without pyarrow."""
    from atlas_core.bundle import Bundle
    from atlas_core.errors import BundleError

    bundle = write_bundle(tmp_path / "toy")
    _parquet(bundle / "chunks.parquet", 5)
    manifest = json.loads((bundle / "manifest.json").read_text())
    entry = manifest["files"]["chunks.parquet"]
    entry["size"] = (bundle / "chunks.parquet").stat().st_size
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(
        BundleError, match=r"chunks\.parquet: has 5 rows but manifest\.json counts 3"
    ):
        Bundle.open(bundle)
    (bundle / "chunks.parquet").write_bytes(b"PAR1 not really a parquet file PAR1")
    manifest["files"]["chunks.parquet"]["size"] = (bundle / "chunks.parquet").stat().st_size
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BundleError, match=r"chunks\.parquet: not a readable Parquet file"):
        Bundle.open(bundle)


# --- the manifest schema --------------------------------------------------------------------------

BAD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.0, 1.5, math.nan, math.inf, -math.inf, 10**30, "", "x",
    "AB" * 32, "ab" * 32, "<f4", ">f4", "|O", [], [1], [-1], [True], {}, {"sha256": "ab"},
]  # fmt: skip


def _paths(node: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


def _set(doc: Any, path: tuple, value: Any) -> Any:
    doc = copy.deepcopy(doc)
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return doc


def _mutations(manifest: dict) -> Iterator[Any]:
    for path in _paths(manifest):
        for value in BAD_VALUES:
            yield _set(manifest, path, value)
        if path and isinstance(path[-1], str):
            parent = copy.deepcopy(manifest)
            node = parent
            for key in path[:-1]:
                node = node[key]
            del node[path[-1]]
            yield parent
            renamed = copy.deepcopy(manifest)
            node = renamed
            for key in path[:-1]:
                node = node[key]
            for bad in ("../x", "/x", "a//b", "a/./b", "a\\b", "a\x01b", "manifest.json", ""):
                node[bad] = node[path[-1]]
            yield renamed
    extra = copy.deepcopy(manifest)
    extra["unknown"] = {"anything": [1, 2]}
    extra["model"]["new_field"] = "allowed"
    yield extra


@pytest.fixture(scope="module")
def manifests(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[dict, list[Any]]]:
    """A valid small and large manifest, each with a sample of its broken variants."""
    root = write_bundle(tmp_path_factory.mktemp("schema") / "toy")
    small = json.loads((root / "manifest.json").read_text())
    large = copy.deepcopy(small)
    for i in range(100):  # past the 64 entries where open checks entries without jsonschema
        large["files"][f"mirror/many/page-{i}.md"] = {"sha256": "ab" * 32, "size": i}
    rng = random.Random(7)
    out = []
    for base in (small, large):
        docs = list(_mutations(base))
        out.append((base, rng.sample(docs, min(len(docs), 1200))))
    return out


def test_the_bundle_schema_compiles_to_the_plain_check() -> None:
    assert _fast_check() is not None


def test_plain_schema_check_never_accepts_what_jsonschema_refuses(manifests, monkeypatch) -> None:
    validator = jsonschema.Draft202012Validator(schema())
    check = compile_schema(schema())
    accepted = refused = 0
    for base, docs in manifests:
        assert check(base) and validator.is_valid(base)
        for doc in docs:
            if check(doc):
                accepted += 1
                assert validator.is_valid(doc), json.dumps(doc, default=str)[:300]
            else:
                refused += 1
    assert accepted and refused > 500


def test_open_reports_schema_errors_exactly_as_the_validator_did(manifests, monkeypatch) -> None:
    """The plain check only decides "certainly valid"; every message still comes from before."""
    for _, docs in manifests:
        for doc in [doc for doc in docs if isinstance(doc, dict)][:200]:
            with_plain = schema_errors(doc)
            monkeypatch.setattr(manifest_module, "_certainly_valid", lambda m: False)
            without = schema_errors(doc)
            monkeypatch.undo()
            assert with_plain == without


def test_schema_keywords_it_does_not_know_fall_back() -> None:
    unknowns = [
        {"oneOf": [{"type": "string"}]},
        {"$ref": "other.json#/x"},
        {"type": "thing"},
        {"pattern": "(unclosed"},
        {"minimum": 0.5},
    ]
    for unknown in unknowns:
        with pytest.raises(Unsupported):
            compile_schema(unknown)
    recursive = {
        "$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
        "$ref": "#/$defs/n",
    }
    check = compile_schema(recursive)
    assert check([[], [[]]]) and not check([[], [1]])


# --- what the lookup path imports -----------------------------------------------------------------


def test_open_and_info_import_no_numpy_pyarrow_or_jsonschema(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "toy")
    code = (
        "import sys\n"
        "from atlas_core.bundle import Bundle\n"
        f"b = Bundle.open({str(bundle)!r})\n"
        "b.info()\n"
        "print([m for m in ('numpy', 'pyarrow', 'jsonschema') if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
