"""Corrupt copies of a real (hash-embedder) bundle: `atlas verify` names the file and exits 1,
`Bundle.open` / `atlas info` refuse what they can detect without hashing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from atlas_core.bundle import Bundle
from atlas_core.bundle.manifest import sha256_file
from atlas_core.errors import BundleError, BundleVersionError


def _flip_byte(rel: str) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        path = root / rel
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))

    return corrupt


def _truncate(rel: str) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        path = root / rel
        path.write_bytes(path.read_bytes()[:-64])

    return corrupt


def _delete(rel: str) -> Callable[[Path], None]:
    return lambda root: (root / rel).unlink()


def _edit_manifest(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        manifest = json.loads((root / "manifest.json").read_text())
        change(manifest)
        (root / "manifest.json").write_text(json.dumps(manifest))

    return corrupt


def _newer_major(manifest: dict) -> None:
    manifest["format_version"] = "2.0"
    manifest["atlas_version"] = "9.0.0"


def _drop_pickle(root: Path) -> None:
    (root / "identifiers" / "cache.pickle").write_bytes(b"\x80\x04\x95\x00.")


def _object_vectors(root: Path) -> None:
    """Replace the vectors with an object array and forge a consistent manifest entry."""
    path = root / "vectors.npy"
    np.save(path, np.array([{"payload": "x"}, None], dtype=object), allow_pickle=True)
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["files"]["vectors.npy"].update(sha256=sha256_file(path), size=path.stat().st_size)
    (root / "manifest.json").write_text(json.dumps(manifest))


def _schema_mismatch(manifest: dict) -> None:
    manifest["counts"]["chunks"] = -1


# name -> (corruption, file named in the first verify line, does Bundle.open refuse it?)
CASES: dict[str, tuple[Callable[[Path], None], str, bool]] = {
    "flipped byte in vectors": (_flip_byte("vectors.npy"), "vectors.npy", False),
    "flipped byte in the mirror": (
        _flip_byte("mirror/rest-core/assets-api.md"),
        "mirror/rest-core/assets-api.md",
        False,
    ),
    "flipped byte in the chunk table": (_flip_byte("chunks.parquet"), "chunks.parquet", False),
    "truncated vectors": (_truncate("vectors.npy"), "vectors.npy", True),
    "truncated keyword array": (_truncate("keyword/data.npy"), "keyword/data.npy", True),
    "missing mirror file": (
        _delete("mirror/workflows/task-forms.md"),
        "mirror/workflows/task-forms.md",
        True,
    ),
    "missing manifest": (_delete("manifest.json"), "manifest.json", True),
    "newer major version": (_edit_manifest(_newer_major), "manifest.json", True),
    "pickle file": (_drop_pickle, "identifiers/cache.pickle", True),
    "object-dtype array": (_object_vectors, "vectors.npy", True),
    "manifest not matching the schema": (_edit_manifest(_schema_mismatch), "manifest.json", True),
    "model of other dimensions": (
        _edit_manifest(lambda m: m["model"].update(dims=768)),
        "vectors.npy",
        True,
    ),
    "model named differently": (
        _edit_manifest(lambda m: m["model"].update(name="other-model")),
        "model/atlas_model.json",
        True,
    ),
}


@pytest.fixture
def bundle_copy(hash_bundle: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(hash_bundle, tmp_path / "copy"))


def _atlas(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("case", list(CASES))
def test_verify_names_the_damaged_file(bundle_copy: Path, case: str) -> None:
    corrupt, rel, _ = CASES[case]
    corrupt(bundle_copy)
    out = _atlas("verify", bundle_copy)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines and lines[0].startswith(f"{rel}: "), out.stdout
    assert "Traceback" not in out.stderr
    assert "atlas download" in out.stderr or "atlas download" in out.stdout


@pytest.mark.parametrize("case", [c for c, (_, _, refused) in CASES.items() if refused])
def test_open_refuses_naming_the_file(bundle_copy: Path, case: str) -> None:
    corrupt, rel, _ = CASES[case]
    corrupt(bundle_copy)
    with pytest.raises(BundleError) as err:
        Bundle.open(bundle_copy)
    assert rel in err.value.message
    assert err.value.hint
    if case in ("pickle file", "object-dtype array"):
        assert "pickle" in err.value.message


def test_info_refuses_a_newer_major_with_the_version_to_install(bundle_copy: Path) -> None:
    _edit_manifest(_newer_major)(bundle_copy)
    with pytest.raises(BundleVersionError):
        Bundle.open(bundle_copy)
    out = _atlas("info", bundle_copy)
    assert out.returncode == 2
    assert "manifest.json" in out.stderr and "2.0" in out.stderr
    assert "atlas-docs 9.0.0 or later" in out.stderr


def test_info_refuses_a_truncated_array(bundle_copy: Path) -> None:
    _truncate("vectors.npy")(bundle_copy)
    out = _atlas("info", bundle_copy, "--json")
    assert out.returncode == 2
    assert out.stdout == ""
    assert "vectors.npy" in out.stderr and "Traceback" not in out.stderr


def test_every_problem_gets_its_own_line(bundle_copy: Path) -> None:
    _flip_byte("vectors.npy")(bundle_copy)
    _delete("mirror/workflows/task-forms.md")(bundle_copy)
    _drop_pickle(bundle_copy)
    out = _atlas("verify", bundle_copy)
    assert out.returncode == 1
    named = sorted(line.split(": ", 1)[0] for line in out.stdout.splitlines())
    assert named == ["identifiers/cache.pickle", "mirror/workflows/task-forms.md", "vectors.npy"]
