"""Hostile bundles (issue 10, items 1 and 8): a manifest `name` that is a path, byte flips and
truncation in every file of a real bundle, and "resealed" damage (a value edited and its SHA-256
and size re-hashed into the manifest, so hashes alone pass it).

For every case: `atlas verify` names the damaged file, and an engine opened on the bundle without
verifying it (what a server does on start) answers every kind of request or refuses with one
`BundleError`; no IndexError, UnicodeDecodeError, JSONDecodeError or AttributeError escapes. A
resealed flip inside a float vector is the one damage no structure shows; there the engine must
still answer. Most cases run in process; a representative few run the CLI as a subprocess.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import shutil
import subprocess
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from atlas_core.bundle import Bundle, BundleWriter, verify_bundle
from atlas_core.engine import Engine
from atlas_core.errors import BuildError, BundleError
from atlas_core.identifiers.store.table import write_npy
from atlas_core.types import Chunk, Document
from tests.reload_support import reseal

# --- the bundle under attack ------------------------------------------------------------------


@pytest.fixture
def bundle(hash_bundle: Path, tmp_path: Path) -> Path:
    """A private copy of the session's hash-model bundle, free to damage."""
    return Path(shutil.copytree(hash_bundle, tmp_path / "bundle"))


def _manifest(root: Path) -> dict[str, Any]:
    return json.loads((root / "manifest.json").read_text())


def _write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))


# --- what a server does with it ---------------------------------------------------------------

TALLY: Counter[tuple[str, str]] = Counter()


def _requests(engine: Engine) -> Iterator[tuple[str, Callable[[], object]]]:
    chunk_id = "?"
    with contextlib.suppress(BundleError):
        chunk_id = engine.bundles[0].chunks().column("chunk_id")[0].as_py()
    yield "keyword search", lambda: engine.search("find assets", mode="keyword")
    yield "hybrid search", lambda: engine.search("how do I find assets", mode="hybrid")
    yield "vector search", lambda: engine.search("workflow task forms", mode="vector")
    yield "exact lookup", lambda: engine.lookup("findAssets")
    yield "path lookup", lambda: engine.lookup("GET /rest/2.0/assets/{assetId}")
    yield "fuzzy lookup", lambda: engine.lookup("findAsets")
    yield "keyword lookup", lambda: engine.lookup("page of assets count")
    yield "symbols", lambda: engine.symbols("asset")
    yield "all symbols", lambda: engine.symbols("")
    yield "deprecations", engine.deprecations
    yield "endpoints", lambda: engine.endpoints("/assets")
    yield "get_chunk", lambda: engine.chunk(chunk_id)
    yield "info", engine.info


def serve(root: Path) -> dict[str, BaseException | None]:
    """Every request kind against an engine opened without verify; what each raised (None: an
    answer). Anything but a BundleError fails the test with its traceback."""
    outcome: dict[str, BaseException | None] = {}
    try:
        engine = Engine.open(root)
    except BundleError as exc:
        return {"open": exc}
    with engine:
        for name, request in _requests(engine):
            try:
                request()
                outcome[name] = None
            except BundleError as exc:
                outcome[name] = exc
            except Exception:
                pytest.fail(f"{name} raised instead of a BundleError:\n{traceback.format_exc()}")
    return outcome


def refused(outcome: dict[str, BaseException | None]) -> bool:
    return any(exc is not None for exc in outcome.values())


@dataclass(frozen=True)
class Checked:
    lines: list[str]  # what verify reported
    outcome: dict[str, BaseException | None]  # what each request raised (None: answered)

    def refused(self, request: str) -> bool:
        return "open" in self.outcome or self.outcome.get(request) is not None


def check_case(kind: str, root: Path, rel: str | None, *, damaged: str | None = None) -> Checked:
    """verify names `rel` (None: the damage may be invisible to structure), serving stays clean,
    and every refusal names the `damaged` file (default `rel`) and says what to do."""
    TALLY[(kind, "tried")] += 1
    lines = verify_bundle(root)
    if rel is not None:
        assert any(line.startswith(f"{rel}: ") for line in lines), (rel, lines)
    outcome = serve(root)
    damaged = damaged or rel
    for request, exc in outcome.items():
        if exc is not None:
            assert isinstance(exc, BundleError) and exc.hint, (request, exc)
            if damaged is not None:
                assert Path(damaged).name in exc.message, (request, damaged, exc.message)
    TALLY[(kind, "refused by verify" if lines else "not detectable")] += 1
    TALLY[(kind, "engine refused" if refused(outcome) else "engine answered")] += 1
    return Checked(lines, outcome)


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not TALLY:
        return
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        _write_tally(reporter)


def _write_tally(reporter: Any) -> None:
    reporter.write_line("")
    for kind in sorted({k for k, _ in TALLY}):
        counts = {what: n for (k, what), n in TALLY.items() if k == kind}
        tried = counts.pop("tried")
        failures = tried - counts.get("engine answered", 0) - counts.get("engine refused", 0)
        parts = ", ".join(f"{what} {n}" for what, n in sorted(counts.items()))
        reporter.write_line(f"bundle damage [{kind}]: {tried} cases, {parts}, failures {failures}")


# --- (a) byte flips and (b) truncation, every file --------------------------------------------


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def bundle_files(hash_bundle: Path) -> list[str]:
    return _files(hash_bundle)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # The files of the fixture bundle, known before the session builds it: the same corpus and
    # builder always write the same names (a test below checks the list).
    if "rel" in metafunc.fixturenames:
        metafunc.parametrize("rel", FIXTURE_FILES)


FIXTURE_FILES = [
    "cards.npy",
    "chunks.parquet",
    "headings.npy",
    "identifiers/api_evidence.json",
    "identifiers/deprecations.json",
    "identifiers/generated.npy",
    "identifiers/keys_alias.txt",
    "identifiers/keys_initials.txt",
    "identifiers/keys_path.txt",
    "identifiers/keys_search.txt",
    "identifiers/keys_template.txt",
    "identifiers/keyword_offsets.npy",
    "identifiers/keyword_postings.npy",
    "identifiers/keyword_terms.txt",
    "identifiers/kind.npy",
    "identifiers/meta.json",
    "identifiers/names.txt",
    "identifiers/record_offsets.npy",
    "identifiers/records.jsonl",
    "identifiers/rows_alias.npy",
    "identifiers/rows_initials.npy",
    "identifiers/rows_path.npy",
    "identifiers/rows_search.npy",
    "identifiers/rows_template.npy",
    "identifiers/search.txt",
    "identifiers/weight.npy",
    "keyword/data.npy",
    "keyword/indices.npy",
    "keyword/indptr.npy",
    "keyword/vocab.txt",
    "manifest.json",
    "mentions/anchors.txt",
    "mentions/files.txt",
    "mentions/generated.npy",
    "mentions/key_offsets.npy",
    "mentions/key_starts.npy",
    "mentions/keys.txt",
    "mentions/meta.json",
    "mentions/row_anchor.npy",
    "mentions/row_count.npy",
    "mentions/row_file.npy",
    "mentions/row_line.npy",
    "mentions/row_places.npy",
    "mentions/row_section.npy",
    "mentions/urls.txt",
    "mirror/rest-core/assets-api.md",
    "model/atlas_model.json",
    "vectors.npy",
]


def test_the_damaged_files_are_the_bundles_files(bundle_files: list[str]) -> None:
    assert set(FIXTURE_FILES) <= set(bundle_files)
    assert {f for f in bundle_files if not f.startswith("mirror/")} <= set(FIXTURE_FILES)


def _flip(path: Path, seed: int) -> None:
    data = bytearray(path.read_bytes())
    offset = random.Random(f"{path.name}-{seed}").randrange(len(data))
    data[offset] ^= 0x80  # an ASCII byte becomes one that is never valid UTF-8 on its own
    path.write_bytes(bytes(data))


def test_byte_flips_are_named_and_never_crash_a_reader(bundle: Path, rel: str) -> None:
    for seed in range(3):
        target = bundle.parent / f"flip-{seed}"
        shutil.copytree(bundle, target)
        _flip(target / rel, seed)
        check_case("byte flip", target, rel)


def test_byte_flips_resealed_are_named_or_harmless(bundle: Path, rel: str) -> None:
    """Flips whose hash was re-sealed: text files and indexes are refused by structure; a flip
    inside float data or prose is not structure, and the engine must still answer."""
    if rel == "manifest.json":
        pytest.skip("the manifest is what a reseal rewrites")
    invisible = rel in ("vectors.npy", "keyword/data.npy") or rel.startswith("mirror/")
    for seed in range(3):
        target = bundle.parent / f"flip-{seed}"
        shutil.copytree(bundle, target)
        _flip(target / rel, seed)
        reseal(target, rel)
        lines = check_case("resealed byte flip", target, None, damaged=rel).lines
        if not invisible and rel.endswith((".txt", ".jsonl", ".json")):
            assert any(line.startswith(f"{rel}: ") for line in lines), (rel, lines)


def test_truncation_is_named_and_never_crashes_a_reader(bundle: Path, rel: str) -> None:
    path = bundle / rel
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    check_case("truncated", bundle, rel)


# --- (c) resealed damage ----------------------------------------------------------------------


def _edit_array(rel: str, change: Callable[[np.ndarray], np.ndarray]) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        array = np.load(root / rel, allow_pickle=False)
        np.save(root / rel, change(array.copy()), allow_pickle=False)
        reseal(root, rel)

    return corrupt


def _set(index: int, value: Any) -> Callable[[np.ndarray], np.ndarray]:
    def change(array: np.ndarray) -> np.ndarray:
        array[index] = value
        return array

    return change


def _swap_middle(array: np.ndarray) -> np.ndarray:
    middle = len(array) // 2
    array[middle], array[middle + 1] = array[middle + 1], array[middle]
    return array


def _edit_text(rel: str, change: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        (root / rel).write_bytes(change((root / rel).read_bytes()))
        reseal(root, rel)

    return corrupt


def _bad_utf8_line(data: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[len(lines) // 2] = b"\xff\xfe" + lines[len(lines) // 2]
    return b"\n".join(lines)


def _drop_last_line(data: bytes) -> bytes:
    return data[: data.rstrip(b"\n").rfind(b"\n") + 1]


def _drop_last_value(data: bytes) -> bytes:
    """A line file (SPEC "identifiers/": no newline after the last value) one value short."""
    return data[: data.rfind(b"\n")]


def _swap_lines(data: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[0], lines[-2] = lines[-2], lines[0]
    return b"\n".join(lines)


def _edit_json(rel: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        value = json.loads((root / rel).read_text())
        (root / rel).write_text(json.dumps(change(value)))
        reseal(root, rel)

    return corrupt


def _edit_chunks(change: Callable[[pa.Table], pa.Table]) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        table = pq.read_table(root / "chunks.parquet")
        pq.write_table(change(table), root / "chunks.parquet")
        reseal(root, "chunks.parquet")

    return corrupt


def _replace_column(name: str, values: Callable[[pa.Table], Any]) -> Callable[[pa.Table], pa.Table]:
    def change(table: pa.Table) -> pa.Table:
        return table.set_column(table.schema.get_field_index(name), name, values(table))

    return change


def _edit_records(change: Callable[[list[bytes]], list[bytes]]) -> Callable[[Path], None]:
    """Rewrite records.jsonl and its offsets consistently, so only the records are wrong."""

    def corrupt(root: Path) -> None:
        table = root / "identifiers"
        data = (table / "records.jsonl").read_bytes()
        offsets = np.load(table / "record_offsets.npy")
        records = [data[a:b] for a, b in itertools.pairwise(offsets)]
        records = change(records)
        (table / "records.jsonl").write_bytes(b"".join(records))
        write_npy(table / "record_offsets.npy", "q", np.cumsum([0, *map(len, records)]).tolist())
        reseal(root, "identifiers/records.jsonl", "identifiers/record_offsets.npy")

    return corrupt


def _first_record(value: bytes) -> Callable[[list[bytes]], list[bytes]]:
    return lambda records: [value + b"\n", *records[1:]]


def _record_field(key: str, value: Any) -> Callable[[list[bytes]], list[bytes]]:
    def change(records: list[bytes]) -> list[bytes]:
        first = json.loads(records[0])
        first[key] = value
        return [json.dumps(first).encode() + b"\n", *records[1:]]

    return change


def _edit_manifest(change: Callable[[dict[str, Any]], Any]) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        manifest = _manifest(root)
        change(manifest)
        _write_manifest(root, manifest)

    return corrupt


def _manifest_text(old: str, new: str) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        text = (root / "manifest.json").read_text()
        assert old in text
        (root / "manifest.json").write_text(text.replace(old, new, 1))

    return corrupt


def _rename_listed(old: str, new: str) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        manifest = _manifest(root)
        manifest["files"][new] = manifest["files"].pop(old)
        _write_manifest(root, manifest)

    return corrupt


@dataclass(frozen=True)
class Resealed:
    corrupt: Callable[[Path], None]
    named: str  # the file verify must name
    # requests that must be refused with a BundleError rather than answered from bad data
    refuses: tuple[str, ...] = ()


SEARCHES = ("keyword search", "hybrid search")
LOOKUPS = ("exact lookup",)
EVERYTHING = ("open",)

RESEALED: dict[str, Resealed] = {
    # keyword/
    "negative chunk row": Resealed(
        _edit_array("keyword/indices.npy", _set(0, -1)), "keyword/indices.npy", SEARCHES
    ),
    "chunk row past the end": Resealed(
        _edit_array("keyword/indices.npy", _set(-1, 10_000)), "keyword/indices.npy", SEARCHES
    ),
    "row pointers going back": Resealed(
        _edit_array("keyword/indptr.npy", _swap_middle), "keyword/indptr.npy", SEARCHES
    ),
    "row pointers past nnz": Resealed(
        _edit_array("keyword/indptr.npy", _set(-1, 10**9)), "keyword/indptr.npy", SEARCHES
    ),
    "NaN score": Resealed(_edit_array("keyword/data.npy", _set(3, np.nan)), "keyword/data.npy"),
    "negative score": Resealed(_edit_array("keyword/data.npy", _set(3, -5.0)), "keyword/data.npy"),
    "indices of another dtype": Resealed(
        _edit_array("keyword/indices.npy", lambda a: a.astype("<i8")),
        "keyword/indices.npy",
        EVERYTHING,
    ),
    "scores of another dtype": Resealed(
        _edit_array("keyword/data.npy", lambda a: a.astype("<f8")), "keyword/data.npy", EVERYTHING
    ),
    "indptr of two dimensions": Resealed(
        _edit_array("keyword/indptr.npy", lambda a: np.stack([a, a])),
        "keyword/indptr.npy",
        EVERYTHING,
    ),
    "vocabulary not UTF-8": Resealed(
        _edit_text("keyword/vocab.txt", _bad_utf8_line), "keyword/vocab.txt", SEARCHES
    ),
    "vocabulary a term short": Resealed(
        _edit_text("keyword/vocab.txt", _drop_last_line), "keyword/vocab.txt", SEARCHES
    ),
    "vocabulary unsorted": Resealed(
        _edit_text("keyword/vocab.txt", _swap_lines), "keyword/vocab.txt"
    ),
    # chunks.parquet
    "no text column": Resealed(
        _edit_chunks(lambda t: t.drop_columns(["text"])), "chunks.parquet", SEARCHES
    ),
    "line numbers as text": Resealed(
        _edit_chunks(_replace_column("line_start", lambda t: t["line_start"].cast(pa.string()))),
        "chunks.parquet",
        SEARCHES,
    ),
    "chunk file leaving the mirror": Resealed(
        _edit_chunks(_replace_column("file", lambda t: pa.array(["../../../etc/passwd"] * len(t)))),
        "chunks.parquet",
        SEARCHES,
    ),
    "chunk file not in the mirror": Resealed(
        _edit_chunks(_replace_column("file", lambda t: pa.array(["nowhere/page.md"] * len(t)))),
        "chunks.parquet",
    ),
    "null titles": Resealed(
        _edit_chunks(_replace_column("title", lambda t: pa.nulls(len(t), pa.string()))),
        "chunks.parquet",
        SEARCHES,
    ),
    "lines backwards": Resealed(
        _edit_chunks(_replace_column("line_end", lambda t: pa.array([0] * len(t), pa.int32()))),
        "chunks.parquet",
    ),
    # vectors.npy
    "NaN vector": Resealed(_edit_array("vectors.npy", _set(2, np.nan)), "vectors.npy"),
    "vector of another width": Resealed(
        _edit_array("vectors.npy", lambda a: a[:, :8].copy()), "vectors.npy", EVERYTHING
    ),
    # manifest.json
    "a trillion identifiers": Resealed(
        _edit_manifest(lambda m: m["counts"].update(identifiers=10**12)),
        "manifest.json",
        EVERYTHING,
    ),
    "k1 as text": Resealed(
        _edit_manifest(lambda m: m["keyword"].update(k1="nan")), "manifest.json", EVERYTHING
    ),
    "k1 NaN": Resealed(_manifest_text('"k1": 0.9', '"k1": NaN'), "manifest.json", EVERYTHING),
    "b Infinity": Resealed(
        _manifest_text('"b": 0.3', '"b": Infinity'), "manifest.json", EVERYTHING
    ),
    "b out of range": Resealed(
        _edit_manifest(lambda m: m["keyword"].update(b=7)), "manifest.json", EVERYTHING
    ),
    "negative field weight": Resealed(
        _edit_manifest(lambda m: m["keyword"]["field_weights"].update(title=-3.0)),
        "manifest.json",
        EVERYTHING,
    ),
    "keyword index for other chunks": Resealed(
        _edit_manifest(lambda m: m["keyword"].update(n_chunks=10**6)),
        "keyword/indices.npy",
        EVERYTHING,
    ),
    "keyword nnz wrong": Resealed(
        _edit_manifest(lambda m: m["keyword"].update(nnz=5)), "keyword/indices.npy", EVERYTHING
    ),
    "listed file leaving the bundle": Resealed(
        _rename_listed("keyword/vocab.txt", "../../../etc/passwd"), "manifest.json", EVERYTHING
    ),
    "keyword files leaving the bundle": Resealed(
        _edit_manifest(lambda m: m["keyword"]["files"].append("../../../etc/passwd")),
        "manifest.json",
        EVERYTHING,
    ),
    "mirror count wrong": Resealed(
        _edit_manifest(lambda m: m["counts"].update(mirror_files=10**9)),
        "manifest.json",
        EVERYTHING,
    ),
    "listed page renamed": Resealed(
        _rename_listed("mirror/rest-core/assets-api.md", "mirror/rest-core/assets-api.txt"),
        "mirror/rest-core/assets-api.txt",
        EVERYTHING,
    ),
    # identifiers/
    "negative identifier row": Resealed(
        _edit_array("identifiers/rows_search.npy", lambda a: np.full_like(a, -1)),
        "identifiers/rows_search.npy",
        LOOKUPS,
    ),
    "identifier row past the end": Resealed(
        _edit_array("identifiers/rows_search.npy", lambda a: np.full_like(a, 5000)),
        "identifiers/rows_search.npy",
        LOOKUPS,
    ),
    "search keys not UTF-8": Resealed(
        _edit_text("identifiers/keys_search.txt", _bad_utf8_line),
        "identifiers/keys_search.txt",
        LOOKUPS,
    ),
    "alias keys not UTF-8": Resealed(
        _edit_text("identifiers/keys_alias.txt", _bad_utf8_line),
        "identifiers/keys_alias.txt",
        LOOKUPS,
    ),
    "path keys unsorted": Resealed(
        _edit_text("identifiers/keys_path.txt", _swap_lines), "identifiers/keys_path.txt"
    ),
    "names not UTF-8": Resealed(
        _edit_text("identifiers/names.txt", _bad_utf8_line), "identifiers/names.txt", LOOKUPS
    ),
    "search list short": Resealed(
        _edit_text("identifiers/search.txt", _drop_last_value),
        "identifiers/search.txt",
        ("symbols",),
    ),
    "unknown kind": Resealed(
        _edit_array("identifiers/kind.npy", _set(0, 200)), "identifiers/kind.npy", LOOKUPS
    ),
    "record offsets going back": Resealed(
        _edit_array("identifiers/record_offsets.npy", _swap_middle),
        "identifiers/record_offsets.npy",
    ),
    "record offsets past the file": Resealed(
        _edit_array("identifiers/record_offsets.npy", _set(-1, 10**9)),
        "identifiers/record_offsets.npy",
        LOOKUPS,
    ),
    "record that is a list": Resealed(
        _edit_records(_first_record(b"[1, 2]")), "identifiers/records.jsonl", ("all symbols",)
    ),
    "record that is not JSON": Resealed(
        _edit_records(_first_record(b'{"file": ')), "identifiers/records.jsonl", ("all symbols",)
    ),
    "record line as text": Resealed(
        _edit_records(_record_field("line", "seven")),
        "identifiers/records.jsonl",
        ("all symbols",),
    ),
    "record file leaving the mirror": Resealed(
        _edit_records(_record_field("file", "../../../etc/passwd")),
        "identifiers/records.jsonl",
        ("all symbols",),
    ),
    "record params of the wrong shape": Resealed(
        _edit_records(_record_field("params", [["only a name"]])),
        "identifiers/records.jsonl",
        LOOKUPS,  # symbols show no params, so only what shows them refuses
    ),
    "meta.json an array": Resealed(
        _edit_json("identifiers/meta.json", lambda m: [m]), "identifiers/meta.json", LOOKUPS
    ),
    "meta.json kinds a number": Resealed(
        _edit_json("identifiers/meta.json", lambda m: {**m, "kinds": 8}),
        "identifiers/meta.json",
        LOOKUPS,
    ),
    "deprecations an object": Resealed(
        _edit_json("identifiers/deprecations.json", lambda d: {"items": d}),
        "identifiers/deprecations.json",
        ("deprecations",),
    ),
    "deprecation without a term": Resealed(
        _edit_json("identifiers/deprecations.json", lambda d: [{"line": 3}, *d]),
        "identifiers/deprecations.json",
        ("deprecations",),
    ),
    "deprecation line as text": Resealed(
        _edit_json("identifiers/deprecations.json", lambda d: [{**d[0], "line": "x"}, *d[1:]]),
        "identifiers/deprecations.json",
        ("deprecations",),
    ),
    # Lookups no longer read the keyword fallback (format 1.1 answers "not documented"); the
    # files stay for 1.0 readers, so verify still names their damage.
    "postings past the table": Resealed(
        _edit_array("identifiers/keyword_postings.npy", _set(0, 4 * 10**6 + 1)),
        "identifiers/keyword_postings.npy",
    ),
    "posting offsets going back": Resealed(
        _edit_array("identifiers/keyword_offsets.npy", _swap_middle),
        "identifiers/keyword_offsets.npy",
    ),
    "weights of other rows": Resealed(
        _edit_array("identifiers/weight.npy", lambda a: a[:-1].copy()),
        "identifiers/weight.npy",
        EVERYTHING,
    ),
    # model/
    "model config an array": Resealed(
        _edit_json("model/atlas_model.json", lambda m: [m]), "model/atlas_model.json"
    ),
}


@pytest.mark.parametrize("case", list(RESEALED))
def test_resealed_damage_is_named_and_never_crashes_a_reader(bundle: Path, case: str) -> None:
    damage = RESEALED[case]
    damage.corrupt(bundle)
    checked = check_case("resealed", bundle, damage.named)
    for request in damage.refuses:
        assert checked.refused(request), (request, checked.outcome)


def test_a_resealed_flip_inside_a_vector_is_served(bundle: Path) -> None:
    """Structure cannot see a flipped low mantissa bit; the engine answers as before."""

    def nudge(array: np.ndarray) -> np.ndarray:
        array.view("<u2")[5, 7] ^= 0x0001
        return array

    _edit_array("vectors.npy", nudge)(bundle)
    checked = check_case("resealed", bundle, None)
    assert checked.lines == []
    assert not refused(checked.outcome)


# --- the CLI, for a representative few ----------------------------------------------------------


def _atlas(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "case",
    ["negative chunk row", "vocabulary not UTF-8", "no text column", "a trillion identifiers"],
)
def test_atlas_verify_names_resealed_damage(bundle: Path, case: str) -> None:
    RESEALED[case].corrupt(bundle)
    out = _atlas("verify", bundle)
    assert out.returncode == 1, out.stdout + out.stderr
    assert any(line.startswith(f"{RESEALED[case].named}: ") for line in out.stdout.splitlines())
    assert "Traceback" not in out.stderr


# --- item 1: the manifest name is one safe path segment ---------------------------------------


@pytest.mark.parametrize(
    "name", ["../../../../tmp/x/PWN", "a/b", "..", ".hidden", "a\nb", "x" * 129]
)
def test_verify_refuses_a_name_that_is_not_one_path_segment(bundle: Path, name: str) -> None:
    _edit_manifest(lambda m: m.update(name=name))(bundle)
    out = _atlas("verify", bundle)
    assert out.returncode == 1, out.stdout
    assert out.stdout.startswith("manifest.json: name "), out.stdout
    assert "Traceback" not in out.stderr
    with pytest.raises(BundleError, match="not a bundle name"):
        Bundle.open(bundle)


def test_build_refuses_a_name_that_is_a_path(tmp_path: Path, fixture_corpus: Path) -> None:
    out = _atlas(
        "build", "--source", f"local={fixture_corpus / 'mirror' / 'markdown'}",
        "--output", tmp_path / "out", "--model", "hash", "--name", "../../x/PWN", "--quiet",
    )  # fmt: skip
    assert out.returncode == 2, out.stdout + out.stderr
    assert "--name '../../x/PWN' is not a bundle name" in out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "out").exists()


def test_the_writer_refuses_bad_names_and_cleans_folder_names(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="not a bundle name"):
        BundleWriter(tmp_path / "out", name="a/b")
    chunk = Chunk("c1", "a.md", "p", "T", "T", "", "", 1, 1, "text")
    page = Document("a.md", "p", "T", "", "text\n")
    for folder, expected in (("my docs (v2)", "my-docs-v2-"), ("Dökumente", "Dokumente")):
        with BundleWriter(tmp_path / folder) as writer:
            writer.write_mirror([page])
            writer.write_chunks([chunk])
            writer.write_vectors(np.eye(1, 4, dtype=np.float32))
            root = writer.commit(model={"name": "toy", "dims": 4}, sources=[])
        assert Bundle.open(root).name == expected
        assert verify_bundle(root) == []
