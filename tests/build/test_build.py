"""The build pipeline and `atlas build/verify/info`, on the fixture corpus with the hash embedder.

CLI checks run `atlas` as a subprocess; pipeline details use the Python API."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from atlas_core.build import build_bundle
from atlas_core.bundle import Bundle, verify_bundle
from atlas_core.bundle.manifest import sha256_file
from tests.conftest import fixture_sources

ATLAS = [sys.executable, "-m", "atlas_ls.cli"]


def atlas(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ATLAS, *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("atlas: error:")]


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def _manifest(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


# --- the shared hash bundle -------------------------------------------------------------------


def test_verify_accepts_a_fresh_bundle(hash_bundle: Path) -> None:
    out = atlas("verify", hash_bundle)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith(f"OK {hash_bundle}")
    assert "SHA-256 verified" in out.stdout


def test_info_json_has_the_documented_keys(hash_bundle: Path) -> None:
    out = atlas("info", hash_bundle, "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    manifest = _manifest(hash_bundle)
    assert info["format_version"] == "1.4"
    assert info["chunks"] == manifest["counts"]["chunks"] > 0
    assert info["files"] == len(manifest["files"])
    assert info["model"] == manifest["model"]["name"]
    assert info["model_kind"] == "hash"
    assert info["dims"] == manifest["model"]["dims"]
    assert [s["kind"] for s in info["sources"]] == ["mirror", "openapi"]
    assert info["built_at"] == manifest["built_at"]
    assert info["identifiers"] == manifest["identifiers"]["count"] > 0
    assert info["size"] == sum(e["size"] for e in manifest["files"].values())


def test_info_text_warns_about_the_hash_embedder(hash_bundle: Path) -> None:
    out = atlas("info", hash_bundle)
    assert out.returncode == 0
    assert "format      1.4" in out.stdout
    assert "hash test embedder" in out.stdout


def test_chunk_files_are_relative_to_the_source_root(hash_bundle: Path) -> None:
    bundle = Bundle.open(hash_bundle)
    files = set(bundle.chunks().column("file").to_pylist())
    assert {"rest-core/assets-api.md", "workflows/groovy-scripting.md"} <= files
    mirror_text = (bundle.mirror_dir / "rest-core" / "assets-api.md").read_text(encoding="utf-8")
    assert not mirror_text.startswith("---"), "front matter must not reach the mirror"
    assert "# Assets API" in mirror_text
    assert "fetched_at" not in mirror_text
    table = bundle.chunks()
    row = table.column("file").to_pylist().index("rest-core/assets-api.md")
    assert table.column("title")[row].as_py() == "Assets API"
    assert (
        table.column("url")[row]
        .as_py()
        .startswith("https://fixture-docs.example.invalid/rest-core/assets-api")
    )
    assert table.column("publication")[row].as_py() == "rest-core"


def test_chunk_lines_point_into_the_mirror(hash_bundle: Path) -> None:
    bundle = Bundle.open(hash_bundle)
    for chunk in bundle.chunks().to_pylist():
        lines = (bundle.mirror_dir / chunk["file"]).read_text(encoding="utf-8").split("\n")
        assert 1 <= chunk["line_start"] <= chunk["line_end"] <= len(lines)
        span = "\n".join(lines[chunk["line_start"] - 1 : chunk["line_end"]])
        first = next(line for line in chunk["text"].splitlines() if line.strip())
        assert first.strip() in span, (chunk["file"], chunk["line_start"], first)


def test_vectors_are_one_normalised_row_per_chunk(hash_bundle: Path) -> None:
    bundle = Bundle.open(hash_bundle)
    vectors = bundle.vectors()
    assert vectors.shape == (bundle.chunk_count, bundle.dims)
    norms = np.linalg.norm(vectors.astype(np.float32), axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=5e-3)


def test_manifest_records_build_sources_model_and_indexes(hash_bundle: Path) -> None:
    manifest = _manifest(hash_bundle)
    assert manifest["model"]["kind"] == "hash"
    assert manifest["build"]["backend"] == "hash"
    assert manifest["build"]["embedded"] == manifest["counts"]["chunks"]
    assert manifest["counts"]["documents"] == manifest["counts"]["mirror_files"] == 10
    assert manifest["sources"][0]["documents"] == 7
    assert {"keyword", "identifiers"} <= set(manifest)
    assert any(rel.startswith("keyword/") for rel in manifest["files"])
    assert any(rel.startswith("identifiers/") for rel in manifest["files"])
    assert any(rel.startswith("model/") for rel in manifest["files"])
    assert "mirror/openapi/assets.md" in manifest["files"] or any(
        rel.startswith("mirror/") and "assets" in rel and "rest-core" not in rel
        for rel in manifest["files"]
    )


# --- building from the CLI ------------------------------------------------------------------------


def _cli_build(output: Path, *extra: str | Path, sources: list[str] | None = None) -> dict:
    args: list[str | Path] = ["build", "--output", output, "--model", "hash", "--json", "-q"]
    for spec in sources or fixture_sources():
        args += ["--source", spec]
    out = atlas(*args, *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_cli_build_then_reuse_every_vector(tmp_path: Path) -> None:
    first = _cli_build(tmp_path / "a")
    assert first["reused"] == 0 and first["embedded"] == first["chunks"]
    second = _cli_build(tmp_path / "b", "--reuse", tmp_path / "a")
    assert second["reused"] == second["chunks"] == first["chunks"]
    assert second["embedded"] == 0
    assert (tmp_path / "a" / "vectors.npy").read_bytes() == (
        tmp_path / "b" / "vectors.npy"
    ).read_bytes()
    assert _manifest(tmp_path / "b")["build"]["reused_from"] == "a"
    assert verify_bundle(tmp_path / "b") == []


def test_cli_build_text_summary_reports_reuse(tmp_path: Path) -> None:
    args: list[str | Path] = ["build", "--model", "hash"]
    for spec in fixture_sources():
        args += ["--source", spec]
    first = atlas(*args, "--output", tmp_path / "a")
    assert first.returncode == 0, first.stderr
    # stderr is a pipe here, as in a CI log: progress comes as whole lines, no bar redraws.
    assert "\r" not in first.stderr
    assert re.search(r"^embedding \[\w[\w-]*\]: \d+/\d+ chunks \(\d+%\)$", first.stderr, re.M)
    assert re.search(
        r"^embedding \[\w[\w-]*\]: (\d+)/\1 chunks \(100%\), done in ", first.stderr, re.M
    )
    out = atlas(*args, "--output", tmp_path / "b", "--reuse", tmp_path / "a")
    assert out.returncode == 0, out.stderr
    chunks = Bundle.open(tmp_path / "b").chunk_count
    assert f"reused {chunks}" in out.stdout
    assert "atlas build [" in out.stderr  # stage lines
    assert "embedding" in out.stderr


def test_rebuild_in_place_reusing_the_bundle_being_replaced(tmp_path: Path) -> None:
    first = _cli_build(tmp_path / "b")
    again = _cli_build(tmp_path / "b", "--reuse", tmp_path / "b")
    assert again["reused"] == first["chunks"] and again["embedded"] == 0
    assert verify_bundle(tmp_path / "b") == []
    assert _leftovers(tmp_path) == []


def test_reuse_reembeds_only_changed_chunks(tmp_path: Path, fixture_corpus: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(fixture_corpus, corpus)
    old = build_bundle(fixture_sources(corpus), tmp_path / "old", model="hash", progress=False)
    page = corpus / "mirror" / "markdown" / "workflows" / "task-forms.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("Text, number, date", "Text, long text, number, date"))
    new = build_bundle(
        fixture_sources(corpus),
        tmp_path / "new",
        model="hash",
        reuse=tmp_path / "old",
        progress=False,
    )
    fresh = build_bundle(fixture_sources(corpus), tmp_path / "fresh", model="hash", progress=False)
    assert new.chunks == fresh.chunks == old.chunks
    assert 1 <= new.embedded <= 3  # the changed section (and the overlap it lends the next one)
    assert new.reused == new.chunks - new.embedded
    # Reused vectors are exactly what embedding again would give.
    new_vectors = np.asarray(Bundle.open(tmp_path / "new").vectors())
    np.testing.assert_array_equal(
        new_vectors, np.asarray(Bundle.open(tmp_path / "fresh").vectors())
    )


def test_reuse_from_a_different_model_reuses_nothing(tmp_path: Path) -> None:
    build_bundle(fixture_sources(), tmp_path / "old", model="hash", progress=False)
    # Rename the model consistently everywhere, as if another model of the same shape was used.
    config_path = tmp_path / "old" / "model" / "atlas_model.json"
    config = json.loads(config_path.read_text())
    config["name"] = "some-other-model"
    config_path.write_text(json.dumps(config))
    manifest = _manifest(tmp_path / "old")
    manifest["model"]["name"] = "some-other-model"
    manifest["files"]["model/atlas_model.json"].update(
        sha256=sha256_file(config_path), size=config_path.stat().st_size
    )
    (tmp_path / "old" / "manifest.json").write_text(json.dumps(manifest))
    assert verify_bundle(tmp_path / "old") == []
    report = build_bundle(
        fixture_sources(), tmp_path / "new", model="hash", reuse=tmp_path / "old", progress=False
    )
    assert report.reused == 0 and report.embedded == report.chunks
    assert "model differs" in report.reuse_note


def test_reuse_of_a_broken_bundle_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "broken").mkdir()
    out = atlas(
        "build", "--source", fixture_sources()[0], "--output", tmp_path / "b", "--model", "hash",
        "--reuse", tmp_path / "broken",
    )  # fmt: skip
    assert out.returncode == 2
    (line,) = _error_lines(out.stderr)
    assert "--reuse" in line and "manifest.json" in line
    assert not (tmp_path / "b").exists()


def test_limit_caps_documents(tmp_path: Path) -> None:
    report = _cli_build(tmp_path / "b", "--limit", "2")
    assert report["documents"] == 2
    assert _manifest(tmp_path / "b")["build"]["limit"] == 2


def test_build_replaces_an_existing_bundle(tmp_path: Path) -> None:
    _cli_build(tmp_path / "b", "--limit", "2")
    _cli_build(tmp_path / "b", "--name", "full")
    manifest = _manifest(tmp_path / "b")
    assert manifest["name"] == "full" and manifest["counts"]["documents"] == 10
    assert _leftovers(tmp_path) == []


# --- bad input ------------------------------------------------------------------------------------


def _bad_local(tmp_path: Path, content: bytes, name: str = "page.md") -> str:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nA fine page.\n")
    (folder / name).write_bytes(content)
    return f"local={folder}"


def _bad_mirror(tmp_path: Path, content: bytes) -> str:
    section = tmp_path / "mirror" / "markdown" / "guide"
    section.mkdir(parents=True)
    (section / "ok.md").write_text("---\ntitle: OK\n---\n\n# OK\n\nFine.\n")
    (section / "bad.md").write_bytes(content)
    return f"mirror={tmp_path / 'mirror'}"


def _bad_openapi(tmp_path: Path, content: str) -> str:
    (tmp_path / "spec.yaml").write_text(content)
    return f"openapi={tmp_path / 'spec.yaml'}"


def _empty_dir(tmp_path: Path) -> str:
    (tmp_path / "empty").mkdir()
    return f"local={tmp_path / 'empty'}"


BAD_SOURCES = {
    "missing source": (lambda t: f"mirror={t / 'does-not-exist'}", "does-not-exist"),
    "empty source": (_empty_dir, "empty"),
    "not UTF-8": (lambda t: _bad_local(t, b"# Caf\xe9\n\nLatin-1 text\n"), "page.md"),
    "front matter not YAML": (
        lambda t: _bad_mirror(t, b"---\ntitle: [unclosed\n  - : :\n---\n\n# Bad\n"),
        "bad.md",
    ),
    "OpenAPI not OpenAPI": (lambda t: _bad_openapi(t, "hello: world\n"), "spec.yaml"),
    "OpenAPI not YAML": (lambda t: _bad_openapi(t, "openapi: 3.0.0\npaths: [\n"), "spec.yaml"),
    "source without KIND=": (lambda t: str(t), "KIND=PATH"),
}


@pytest.mark.parametrize("case", list(BAD_SOURCES))
def test_bad_source_is_one_clear_line_and_exit_2(tmp_path: Path, case: str) -> None:
    make, fragment = BAD_SOURCES[case]
    spec = make(tmp_path)
    output = tmp_path / "out" / "bundle"
    out = atlas("build", "--source", spec, "--output", output, "--model", "hash")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    lines = _error_lines(out.stderr)
    assert len(lines) == 1, out.stderr
    assert fragment in lines[0], lines[0]
    assert not output.exists()
    assert not (tmp_path / "out").exists() or _leftovers(tmp_path / "out") == []


def test_bad_source_leaves_the_existing_bundle_untouched(tmp_path: Path) -> None:
    _cli_build(tmp_path / "b")
    before = (tmp_path / "b" / "manifest.json").read_bytes()
    out = atlas("build", "--source", f"local={tmp_path / 'nope'}", "--output", tmp_path / "b")
    assert out.returncode == 2
    assert (tmp_path / "b" / "manifest.json").read_bytes() == before
    assert verify_bundle(tmp_path / "b") == []


def test_unwritable_output_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    out = atlas(
        "build", "--source", fixture_sources()[0], "--output", tmp_path / "a-file" / "b",
        "--model", "hash",
    )  # fmt: skip
    assert out.returncode == 2
    (line,) = _error_lines(out.stderr)
    assert "cannot write the bundle" in line and "a-file" in line
    assert "hint:" in out.stderr


def test_output_that_is_not_a_bundle_is_refused_before_any_work(tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine")
    out = atlas("build", "--source", fixture_sources()[0], "--output", keep, "--model", "hash")
    assert out.returncode == 2
    (line,) = _error_lines(out.stderr)
    assert "not an Atlas bundle" in line
    assert "reading" not in out.stderr  # refused before reading sources
    assert sorted(p.name for p in keep.iterdir()) == ["notes.txt"]


def _big_corpus(root: Path, pages: int = 1500) -> Path:
    for i in range(pages):
        section = root / "markdown" / f"section-{i % 10}"
        section.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(
            f"## Part {j}\n\nPage {i} part {j} explains setting {j} of widget {i} in some detail."
            for j in range(6)
        )
        (section / f"page-{i}.md").write_text(
            f"---\ntitle: Page {i}\n---\n\n# Page {i}\n\n{body}\n"
        )
    return root


def test_sigterm_during_a_build_leaves_the_output_untouched(tmp_path: Path) -> None:
    _cli_build(tmp_path / "b")
    before = (tmp_path / "b" / "manifest.json").read_bytes()
    corpus = _big_corpus(tmp_path / "corpus")
    proc = subprocess.Popen(
        [*ATLAS, "build", "--source", f"mirror={corpus}", "--output", str(tmp_path / "b"),
         "--model", "hash"],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    seen = []
    deadline = time.monotonic() + 120
    for line in proc.stderr:
        seen.append(line)
        if "writing the mirror" in line:  # the staging directory exists and is being filled
            proc.send_signal(signal.SIGTERM)
            break
        assert time.monotonic() < deadline, "".join(seen)
    _, rest = proc.communicate(timeout=120)
    assert proc.returncode == 130, "".join(seen) + rest
    assert (tmp_path / "b" / "manifest.json").read_bytes() == before
    assert verify_bundle(tmp_path / "b") == []
    assert _leftovers(tmp_path) == []


def test_verify_and_info_on_a_missing_directory(tmp_path: Path) -> None:
    # A missing folder is "no bundle at PATH", one line and exit 2, like every bad path (issue 31).
    out = atlas("verify", tmp_path / "nothing")
    assert out.returncode == 2
    assert "no bundle at" in out.stderr and "nothing" in out.stderr
    assert len(_error_lines(out.stderr)) == 1
    info = atlas("info", tmp_path / "nothing")
    assert info.returncode == 2
    assert len(_error_lines(info.stderr)) == 1


@pytest.mark.skipif(os.environ.get("ATLAS_SKIP_WHEEL") == "1", reason="wheel check disabled")
def test_schema_ships_inside_the_package(tmp_path: Path) -> None:
    """A wheel must carry the manifest schema, since bundle_spec/ is not a package."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(tmp_path), str(root)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    import zipfile

    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "atlas_core/bundle/manifest.schema.json" in names
