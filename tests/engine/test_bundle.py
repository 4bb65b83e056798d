"""Bundle format v1: the writer, the reader, versioning and every refusal, on small bundles written
directly with the writer primitives (no sources, no model)."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from atlas_core.bundle import Bundle, BundleWriter, verify_bundle
from atlas_core.bundle.chunk_schema import WRITTEN_SCHEMA, iter_chunks
from atlas_core.bundle.manifest import read_npy_header, schema, schema_errors, sha256_file
from atlas_core.errors import BuildError, BundleError, BundleVersionError
from atlas_core.types import Chunk, Document

DIMS = 8

DOCS = [
    Document(
        path="guide/intro.md",
        publication="guide",
        title="Intro",
        url="https://docs.example.invalid/guide/intro",
        text="# Intro\n\nWelcome to the guide.\n\n## Setup\n\nInstall it — then run it.\n",
        source="local",
    ),
    Document(
        path="api/things.md",
        publication="api",
        title="Things API",
        url="",
        text="# Things API\n\n`GET /things/{thingId}` returns one thing.\n",
        source="openapi",
    ),
]


def _chunks() -> list[Chunk]:
    return [
        Chunk(
            chunk_id="a1",
            file="guide/intro.md",
            publication="guide",
            title="Intro",
            heading="Intro",
            anchor="intro",
            url="https://docs.example.invalid/guide/intro#intro",
            line_start=1,
            line_end=3,
            text="Welcome to the guide.",
            embed_text="Intro\n\nWelcome to the guide.",
            cluster_tags=("setup",),
            token_count=7,
        ),
        Chunk(
            chunk_id="b2",
            file="guide/intro.md",
            publication="guide",
            title="Intro",
            heading="Intro > Setup",
            anchor="setup",
            url="",
            line_start=5,
            line_end=7,
            text="Install it — then run it.",
            embed_text="Intro > Setup\n\nInstall it — then run it.",
            token_count=9,
        ),
        Chunk(
            chunk_id="c3",
            file="api/things.md",
            publication="api",
            title="Things API",
            heading="Things API",
            anchor="things-api",
            url="",
            line_start=1,
            line_end=3,
            text="`GET /things/{thingId}` returns one thing.",
            is_code=True,
        ),
    ]


def _vectors(n: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    v = rng.normal(size=(n, DIMS)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def write_bundle(output: Path, *, name: str | None = None, extra_arrays: bool = True) -> Path:
    chunks = _chunks()
    with BundleWriter(output, name=name) as writer:
        writer.path("model/atlas_model.json").write_text('{"name": "toy", "dims": 8}\n')
        writer.write_mirror(DOCS)
        writer.write_chunks(chunks)
        writer.write_vectors(_vectors(len(chunks)))
        if extra_arrays:
            writer.write_array("keyword/indptr.npy", np.array([0, 2, 3], dtype=np.int64))
            writer.set_section("keyword", {"k1": 1.2, "b": 0.75})
        return writer.commit(
            model={"name": "toy", "kind": "hash", "dims": DIMS},
            sources=[{"kind": "local", "path": "/docs", "documents": 2}],
            counts={"documents": len(DOCS)},
        )


@pytest.fixture
def bundle_dir(tmp_path: Path) -> Path:
    return write_bundle(tmp_path / "toy")


def _manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


def _save_manifest(root: Path, manifest: dict) -> None:
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))


def _relist(root: Path, rel: str) -> None:
    """Make the manifest agree with a changed file's size and hash (a consistent forgery)."""
    manifest = _manifest(root)
    path = root / rel
    manifest["files"][rel].update(sha256=sha256_file(path), size=path.stat().st_size)
    _save_manifest(root, manifest)


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


# --- writing --------------------------------------------------------------------------------------


def test_manifest_lists_every_file_with_hash_size_and_array_shape(bundle_dir: Path) -> None:
    manifest = _manifest(bundle_dir)
    on_disk = sorted(
        p.relative_to(bundle_dir).as_posix()
        for p in bundle_dir.rglob("*")
        if p.is_file() and p.name != "manifest.json"
    )
    assert sorted(manifest["files"]) == on_disk
    for rel, entry in manifest["files"].items():
        assert entry["size"] == (bundle_dir / rel).stat().st_size
        assert entry["sha256"] == sha256_file(bundle_dir / rel)
    assert manifest["files"]["vectors.npy"]["dtype"] == "<f2"
    assert manifest["files"]["vectors.npy"]["shape"] == [3, DIMS]
    assert manifest["files"]["keyword/indptr.npy"] == {
        **manifest["files"]["keyword/indptr.npy"],
        "dtype": "<i8",
        "shape": [3],
    }
    assert manifest["format_version"] == "1.4"
    assert manifest["counts"] == {"documents": 2, "chunks": 3, "mirror_files": 2}
    assert manifest["keyword"] == {"k1": 1.2, "b": 0.75}
    assert schema_errors(manifest) == []


def test_vectors_are_little_endian_float16_c_order_without_pickle(bundle_dir: Path) -> None:
    header = read_npy_header(bundle_dir / "vectors.npy")
    assert header.dtype.str == "<f2"
    assert header.shape == (3, DIMS)
    assert header.fortran_order is False
    loaded = np.load(bundle_dir / "vectors.npy", allow_pickle=False)
    np.testing.assert_allclose(loaded.astype(np.float32), _vectors(3), atol=1e-3)


def test_mirror_holds_document_text_byte_for_byte(bundle_dir: Path) -> None:
    for doc in DOCS:
        assert (bundle_dir / "mirror" / doc.path).read_bytes() == doc.text.encode("utf-8")


def _rewrite(output: Path, documents: list[Document], previous: Path) -> Path:
    """`write_bundle` again, with other documents and the mirror linked from `previous`."""
    with BundleWriter(output) as writer:
        writer.path("model/atlas_model.json").write_text('{"name": "toy", "dims": 8}\n')
        writer.write_mirror(documents, Bundle.open(previous))
        writer.write_chunks(_chunks())
        writer.write_vectors(_vectors(3))
        return writer.commit(
            model={"name": "toy", "kind": "hash", "dims": DIMS},
            sources=[{"kind": "local", "path": "/docs", "documents": 2}],
        )


def test_update_links_the_unchanged_pages_of_the_previous_bundle(tmp_path: Path) -> None:
    old = write_bundle(tmp_path / "old")
    changed = Document(**{**_doc_fields(DOCS[1]), "text": DOCS[1].text.replace("one", "a")})
    new = _rewrite(tmp_path / "new", [DOCS[0], changed], old)
    same, edited = (f"mirror/{d.path}" for d in DOCS)
    assert (new / same).stat().st_ino == (old / same).stat().st_ino  # linked, not copied
    assert (new / edited).stat().st_ino != (old / edited).stat().st_ino
    assert (new / edited).read_text() == changed.text
    assert (old / edited).read_text() == DOCS[1].text  # the old bundle is never changed
    assert verify_bundle(new) == [] and verify_bundle(old) == []
    assert _manifest(new)["files"][same] == _manifest(old)["files"][same]


def test_update_writes_a_page_the_previous_bundle_holds_damaged(tmp_path: Path) -> None:
    old = write_bundle(tmp_path / "old")
    page = old / "mirror" / DOCS[0].path
    # Same size (a reader's open checks sizes), other bytes: not what its manifest vouches for.
    page.write_text(DOCS[0].text.replace("Welcome", "Wxlcome"))
    new = _rewrite(tmp_path / "new", DOCS, old)
    assert (new / "mirror" / DOCS[0].path).read_text() == DOCS[0].text
    assert (new / "mirror" / DOCS[0].path).stat().st_ino != page.stat().st_ino
    assert verify_bundle(new) == []


def test_chunk_table_has_the_spec_schema_and_round_trips(bundle_dir: Path) -> None:
    table = pq.read_table(bundle_dir / "chunks.parquet")
    assert table.schema.equals(WRITTEN_SCHEMA, check_metadata=False)
    assert table.schema.metadata[b"atlas.format_version"] == b"1.4"
    assert list(iter_chunks(table)) == _chunks()


def test_rebuild_replaces_an_existing_bundle_and_leaves_no_staging(tmp_path: Path) -> None:
    first = write_bundle(tmp_path / "b", name="first")
    second = write_bundle(tmp_path / "b", name="second")
    assert first == second
    assert Bundle.open(second).name == "second"
    assert _leftovers(tmp_path) == []
    assert verify_bundle(second) == []


@pytest.mark.parametrize("failure", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_failed_or_interrupted_build_leaves_the_old_bundle_untouched(
    tmp_path: Path, failure: BaseException
) -> None:
    old = write_bundle(tmp_path / "b", name="old")
    before = (old / "manifest.json").read_bytes()
    with pytest.raises(type(failure)), BundleWriter(tmp_path / "b", name="new") as writer:
        writer.write_mirror(DOCS)
        writer.write_chunks(_chunks())
        raise failure
    assert (old / "manifest.json").read_bytes() == before
    assert verify_bundle(old) == []
    assert _leftovers(tmp_path) == []


def test_failed_first_build_leaves_nothing_at_the_output(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), BundleWriter(tmp_path / "new") as writer:
        writer.write_mirror(DOCS)
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_output_that_is_not_a_bundle_is_never_replaced(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("years of work")
    with pytest.raises(BuildError, match="not an Atlas bundle") as err:
        BundleWriter(precious)
    assert str(precious) in err.value.message
    assert (precious / "thesis.txt").read_text() == "years of work"
    assert _leftovers(tmp_path) == []


def test_empty_output_directory_is_filled(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert verify_bundle(write_bundle(tmp_path / "empty")) == []


def test_unwritable_output_is_a_build_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(BuildError, match="cannot write the bundle") as err:
        BundleWriter(blocker / "bundle")
    assert err.value.hint


def test_stale_staging_of_a_dead_build_is_removed(tmp_path: Path) -> None:
    # pid 2**22 + 1 is above Linux's pid_max, so no live process has it.
    stale = tmp_path / f".b.building-{2**22 + 1}-abc"
    stale.mkdir()
    (stale / "chunks.parquet").write_text("half")
    write_bundle(tmp_path / "b")
    assert not stale.exists()


def test_writer_refuses_pickle_unsafe_paths_and_duplicates(tmp_path: Path) -> None:
    with BundleWriter(tmp_path / "b") as writer:
        with pytest.raises(ValueError, match="object"):
            writer.write_array("keyword/x.npy", np.array([{"a": 1}], dtype=object))
        with pytest.raises(ValueError):
            writer.path("../escape.txt")
        with pytest.raises(ValueError):
            writer.path("keyword/model.pkl")
        with pytest.raises(BuildError, match="not a safe relative path"):
            writer.write_mirror([DOCS[0].__class__(**{**_doc_fields(DOCS[0]), "path": "../x.md"})])
        with pytest.raises(BuildError, match="same path"):
            writer.write_mirror([DOCS[0], DOCS[0]])
        writer.abort()
    assert _leftovers(tmp_path) == []


def _doc_fields(doc: Document) -> dict:
    return {name: getattr(doc, name) for name in Document.__slots__}


def test_big_endian_input_is_stored_little_endian(tmp_path: Path) -> None:
    chunks = _chunks()
    with BundleWriter(tmp_path / "b") as writer:
        writer.write_mirror(DOCS)
        writer.write_chunks(chunks)
        writer.write_vectors(_vectors(3))
        writer.write_array("extra/big.npy", np.arange(4, dtype=">i4"))
        out = writer.commit(model={"name": "toy", "dims": DIMS}, sources=[{"kind": "local"}])
    bundle = Bundle.open(out)
    assert bundle.array("extra/big.npy").dtype.str == "<i4"
    assert bundle.array("extra/big.npy").tolist() == [0, 1, 2, 3]


# --- reading --------------------------------------------------------------------------------------


def test_open_exposes_the_contract(bundle_dir: Path) -> None:
    bundle = Bundle.open(bundle_dir)
    assert bundle.path == bundle_dir
    assert bundle.name == "toy"
    assert bundle.manifest["format_version"] == "1.4"
    assert bundle.mirror_dir == bundle_dir / "mirror"
    assert bundle.model_dir == bundle_dir / "model"
    assert bundle.chunk_count == 3
    assert bundle.dims == DIMS
    assert bundle.file("mirror/guide/intro.md").read_text(encoding="utf-8") == DOCS[0].text
    vectors = bundle.vectors()
    assert isinstance(vectors, np.memmap)
    assert vectors.shape == (3, DIMS) and vectors.dtype == np.float16
    assert not vectors.flags.writeable
    assert bundle.array("vectors.npy") is vectors  # memory-mapped once, then cached
    table = bundle.chunks()
    assert table.num_rows == 3 and bundle.chunks() is table
    assert table.column("chunk_id").to_pylist() == ["a1", "b2", "c3"]


def test_info_summarises_the_manifest(bundle_dir: Path) -> None:
    info = Bundle.open(bundle_dir).info()
    assert (info.name, info.format_version, info.chunks, info.dims, info.model) == (
        "toy",
        "1.4",
        3,
        DIMS,
        "toy",
    )
    assert info.bundle_files == len(_manifest(bundle_dir)["files"])
    assert info.sources == ({"kind": "local", "path": "/docs", "documents": 2},)
    assert info.extra["size"] == sum(e["size"] for e in _manifest(bundle_dir)["files"].values())


@pytest.mark.parametrize("bad", ["../outside.md", "/etc/passwd", "mirror/../../x", "a\\b", ""])
def test_file_refuses_paths_leaving_the_bundle(bundle_dir: Path, bad: str) -> None:
    with pytest.raises(BundleError):
        Bundle.open(bundle_dir).file(bad)


def test_file_refuses_a_link_leading_outside(bundle_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path, bundle_dir / "mirror" / "out")
    with pytest.raises(BundleError, match="outside"):
        Bundle.open(bundle_dir).file("mirror/out/secret.txt")


def test_array_not_in_the_manifest_is_refused(bundle_dir: Path) -> None:
    with pytest.raises(BundleError, match="lists no array"):
        Bundle.open(bundle_dir).array("keyword/nope.npy")


def test_empty_array_loads_without_mmap(tmp_path: Path) -> None:
    with BundleWriter(tmp_path / "b") as writer:
        writer.write_mirror(DOCS)
        writer.write_chunks(_chunks())
        writer.write_vectors(_vectors(3))
        writer.write_array("keyword/empty.npy", np.zeros((0,), dtype="<i4"))
        out = writer.commit(model={"name": "toy", "dims": DIMS}, sources=[{"kind": "local"}])
    assert Bundle.open(out).array("keyword/empty.npy").shape == (0,)


def test_unknown_keys_and_listed_files_of_the_same_major_are_ignored(bundle_dir: Path) -> None:
    (bundle_dir / "future").mkdir()
    (bundle_dir / "future" / "thing.bin").write_bytes(b"\x00\x01")
    manifest = _manifest(bundle_dir)
    manifest["shiny_new_section"] = {"x": 1}
    manifest["files"]["vectors.npy"]["compression"] = "none"
    manifest["files"]["future/thing.bin"] = {
        "sha256": sha256_file(bundle_dir / "future" / "thing.bin"),
        "size": 2,
    }
    _save_manifest(bundle_dir, manifest)
    assert Bundle.open(bundle_dir).chunk_count == 3
    assert verify_bundle(bundle_dir) == []


# --- versions -------------------------------------------------------------------------------------


def test_newer_minor_opens_with_a_note(bundle_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    manifest = _manifest(bundle_dir)
    manifest["format_version"] = "1.7"
    _save_manifest(bundle_dir, manifest)
    with caplog.at_level(logging.INFO, logger="atlas_core.bundle"):
        bundle = Bundle.open(bundle_dir)
    assert bundle.format_version == "1.7"
    assert any("1.7 is newer" in r.getMessage() for r in caplog.records)


def test_newer_major_is_refused_naming_the_atlas_to_install(bundle_dir: Path) -> None:
    manifest = _manifest(bundle_dir)
    manifest.update(format_version="2.0", atlas_version="3.1.0", files="a new layout")
    _save_manifest(bundle_dir, manifest)
    with pytest.raises(BundleVersionError) as err:
        Bundle.open(bundle_dir)
    assert "manifest.json" in err.value.message and "2.0" in err.value.message
    assert "atlas-docs 3.1.0 or later" in err.value.hint
    assert verify_bundle(bundle_dir)[0].startswith("manifest.json: bundle format 2.0 is newer")


def test_older_major_is_refused_with_a_rebuild_hint(bundle_dir: Path) -> None:
    manifest = _manifest(bundle_dir)
    manifest["format_version"] = "0.9"
    _save_manifest(bundle_dir, manifest)
    with pytest.raises(BundleVersionError) as err:
        Bundle.open(bundle_dir)
    assert "older" in err.value.message
    assert "atlas build" in err.value.hint and "atlas download" in err.value.hint


@pytest.mark.parametrize("version", [None, 1, "1", "v1.0", "1.0.0"])
def test_malformed_version_is_refused(bundle_dir: Path, version: object) -> None:
    manifest = _manifest(bundle_dir)
    if version is None:
        del manifest["format_version"]
    else:
        manifest["format_version"] = version
    _save_manifest(bundle_dir, manifest)
    with pytest.raises(BundleError, match=r"manifest\.json: format_version"):
        Bundle.open(bundle_dir)


# --- refusals -------------------------------------------------------------------------------------


def _refused(root: Path, fragment: str) -> BundleError:
    with pytest.raises(BundleError) as err:
        Bundle.open(root)
    assert fragment in err.value.message, err.value.message
    assert err.value.hint
    return err.value


def test_flipped_byte_is_found_by_verify(bundle_dir: Path) -> None:
    path = bundle_dir / "vectors.npy"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    Bundle.open(bundle_dir)  # opening never reads every byte, so only verify can tell
    problems = verify_bundle(bundle_dir)
    assert len(problems) == 1
    assert problems[0].startswith("vectors.npy: SHA-256 differs")


def test_truncated_array_is_refused(bundle_dir: Path) -> None:
    path = bundle_dir / "vectors.npy"
    path.write_bytes(path.read_bytes()[:-10])
    _refused(bundle_dir, "vectors.npy")
    assert any(p.startswith("vectors.npy: size is") for p in verify_bundle(bundle_dir))


def test_truncated_array_with_a_forged_manifest_is_still_refused(bundle_dir: Path) -> None:
    path = bundle_dir / "vectors.npy"
    path.write_bytes(path.read_bytes()[:-10])
    _relist(bundle_dir, "vectors.npy")
    _refused(bundle_dir, "header needs")


def test_missing_file_is_refused(bundle_dir: Path) -> None:
    (bundle_dir / "mirror" / "api" / "things.md").unlink()
    _refused(bundle_dir, "mirror/api/things.md: missing")
    assert verify_bundle(bundle_dir) == ["mirror/api/things.md: missing (listed in manifest.json)"]


def test_missing_manifest_is_refused(bundle_dir: Path) -> None:
    (bundle_dir / "manifest.json").unlink()
    _refused(bundle_dir, "manifest.json: missing")
    assert verify_bundle(bundle_dir)[0].startswith("manifest.json: missing")


def test_manifest_that_is_not_json_is_refused(bundle_dir: Path) -> None:
    (bundle_dir / "manifest.json").write_bytes(b"{not json\xff")
    _refused(bundle_dir, "not valid UTF-8 JSON")


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda m: m.pop("files"), "files"),
        (lambda m: m["counts"].update(chunks="three"), "counts/chunks"),
        (lambda m: m["files"]["vectors.npy"].update(sha256="XYZ"), "files/vectors.npy/sha256"),
        (lambda m: m["model"].pop("dims"), "model"),
        (lambda m: m.update(sources="everywhere"), "sources"),
        (lambda m: m["files"].update({"../up.md": m["files"]["vectors.npy"]}), "files"),
    ],
)
def test_manifest_not_matching_the_schema_is_refused(bundle_dir: Path, change, where: str) -> None:
    manifest = _manifest(bundle_dir)
    change(manifest)
    _save_manifest(bundle_dir, manifest)
    err = _refused(bundle_dir, "does not match the manifest schema")
    assert "manifest.json" in err.message and where in err.message


def test_pickle_file_anywhere_is_refused(bundle_dir: Path) -> None:
    (bundle_dir / "keyword" / "index.pkl").write_bytes(b"\x80\x04N.")
    _refused(bundle_dir, "keyword/index.pkl: is a pickle file")
    assert "keyword/index.pkl: is a pickle file; bundles never contain pickle" in verify_bundle(
        bundle_dir
    )


def test_object_dtype_array_is_refused_even_when_listed(bundle_dir: Path) -> None:
    path = bundle_dir / "keyword" / "evil.npy"
    np.save(path, np.array([{"payload": 1}], dtype=object), allow_pickle=True)
    manifest = _manifest(bundle_dir)
    # A forger would claim a harmless dtype to get past the schema.
    manifest["files"]["keyword/evil.npy"] = {
        "sha256": sha256_file(path),
        "size": path.stat().st_size,
        "dtype": "<f4",
        "shape": [1],
    }
    _save_manifest(bundle_dir, manifest)
    _refused(bundle_dir, "keyword/evil.npy: holds Python objects")


def test_unlisted_object_dtype_array_is_refused(bundle_dir: Path) -> None:
    np.save(bundle_dir / "sneaky.npy", np.array([None], dtype=object), allow_pickle=True)
    _refused(bundle_dir, "sneaky.npy: holds Python objects")


def test_big_endian_array_is_refused(bundle_dir: Path) -> None:
    path = bundle_dir / "keyword" / "indptr.npy"
    np.save(path, np.array([0, 2, 3], dtype=">i8"), allow_pickle=False)
    _relist(bundle_dir, "keyword/indptr.npy")
    _refused(bundle_dir, "big-endian")


def test_dims_not_matching_the_model_are_refused(bundle_dir: Path) -> None:
    manifest = _manifest(bundle_dir)
    manifest["model"]["dims"] = 384
    _save_manifest(bundle_dir, manifest)
    _refused(bundle_dir, "vectors.npy: has 8 dimensions but the bundle's model 'toy' has 384")


def test_chunk_count_not_matching_the_table_is_refused(bundle_dir: Path) -> None:
    manifest = _manifest(bundle_dir)
    manifest["counts"]["chunks"] = 4
    _save_manifest(bundle_dir, manifest)
    err = _refused(bundle_dir, "vectors.npy: has 3 rows")
    assert "more problems" in err.message  # chunks.parquet disagrees too


def test_listed_symlink_is_refused(bundle_dir: Path, tmp_path: Path) -> None:
    target = bundle_dir / "mirror" / "api" / "things.md"
    outside = tmp_path / "outside.md"
    shutil.copy(target, outside)
    target.unlink()
    os.symlink(outside, target)
    _refused(bundle_dir, "symbolic link")


def test_unlisted_file_is_reported_by_verify_only(bundle_dir: Path) -> None:
    (bundle_dir / "mirror" / "extra.md").write_text("# smuggled\n")
    Bundle.open(bundle_dir)
    assert verify_bundle(bundle_dir) == ["mirror/extra.md: is not listed in manifest.json"]


def test_not_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="no bundle here"):
        Bundle.open(tmp_path / "nothing")
    assert verify_bundle(tmp_path / "nothing") != []


def test_schema_is_valid_draft_2020_12() -> None:
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(schema())
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


GOOD_SHA = "ab" * 32
BAD_ENTRIES = {
    "escaping path": ("../up.md", {"sha256": GOOD_SHA, "size": 1}),
    "absolute path": ("/etc/passwd", {"sha256": GOOD_SHA, "size": 1}),
    "the manifest itself": ("manifest.json", {"sha256": GOOD_SHA, "size": 1}),
    "backslash": ("mirror\\x.md", {"sha256": GOOD_SHA, "size": 1}),
    "upper-case hash": ("mirror/x.md", {"sha256": "AB" * 32, "size": 1}),
    "short hash": ("mirror/x.md", {"sha256": "ab", "size": 1}),
    "negative size": ("mirror/x.md", {"sha256": GOOD_SHA, "size": -1}),
    "boolean size": ("mirror/x.md", {"sha256": GOOD_SHA, "size": True}),
    "missing size": ("mirror/x.md", {"sha256": GOOD_SHA}),
    "not an object": ("mirror/x.md", "big"),
    "object dtype": ("x.npy", {"sha256": GOOD_SHA, "size": 1, "dtype": "|O", "shape": [1]}),
    "big-endian dtype": ("x.npy", {"sha256": GOOD_SHA, "size": 1, "dtype": ">f4", "shape": [1]}),
    "dtype without shape": ("x.npy", {"sha256": GOOD_SHA, "size": 1, "dtype": "<f4"}),
    "negative shape": ("x.npy", {"sha256": GOOD_SHA, "size": 1, "dtype": "<f4", "shape": [-1]}),
}


def _many_files(bundle_dir: Path) -> dict:
    manifest = _manifest(bundle_dir)
    for i in range(100):
        manifest["files"][f"mirror/many/page-{i}.md"] = {"sha256": GOOD_SHA, "size": i}
    return manifest


def test_fast_entry_checks_agree_with_jsonschema_on_a_valid_manifest(bundle_dir: Path) -> None:
    manifest = _many_files(bundle_dir)
    assert schema_errors(manifest) == []
    assert schema_errors(manifest, exhaustive=True) == []


@pytest.mark.parametrize("case", list(BAD_ENTRIES))
def test_fast_entry_checks_agree_with_jsonschema(bundle_dir: Path, case: str) -> None:
    """Large manifests skip jsonschema for file entries when opening; both must refuse alike."""
    rel, entry = BAD_ENTRIES[case]
    manifest = _many_files(bundle_dir)
    manifest["files"][rel] = entry
    fast = schema_errors(manifest)
    full = schema_errors(manifest, exhaustive=True)
    assert fast and full
    assert any(rel in e or "files:" in e for e in fast), fast
    _save_manifest(bundle_dir, manifest)
    _refused(bundle_dir, "does not match the manifest schema")
    assert verify_bundle(bundle_dir)[0].startswith("manifest.json: ")
