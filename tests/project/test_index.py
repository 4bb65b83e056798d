"""`atlas index`: a repository as a bundle, updated by embedding only what changed, and served
beside the docs with scoped search, project symbols and "used in your project" cross-links."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from atlas_core.bundle import Bundle
from atlas_core.bundle.manifest import file_entry
from atlas_core.engine import Engine
from atlas_core.errors import QueryError
from atlas_core.project import project_bundle_dir
from atlas_core.project.index import index_project, target_of
from tests.project.conftest import SYNC_PY, make_repo

BIN = Path(sys.executable).parent


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "acme-sync")


def test_a_project_bundle_keeps_each_definition_with_its_place(repo: Path) -> None:
    report = index_project(target_of(repo), model="hash", progress=False)
    assert report.output == project_bundle_dir(repo)
    bundle = Bundle.open(report.output)
    assert bundle.name == "acme-sync"
    rows = {(r["file"], r["heading"]): r for r in bundle.chunks().to_pylist()}
    files = {file for file, _ in rows}
    assert files == {"README.md", "src/sync.py", "web/client.ts", "workflows/approval.groovy"}
    find = rows[("src/sync.py", "AssetSync.find_assets")]
    assert (find["language"], find["symbol"], find["symbol_kind"], find["parent"]) == (
        "python",
        "find_assets",
        "method",
        "AssetSync",
    )
    lines = SYNC_PY.split("\n")
    assert lines[find["line_start"] - 1].strip().startswith("def find_assets")
    assert '"""Find the assets whose name matches."""' in find["text"]  # docstring kept with it
    assert find["calls"] == [
        f"{find['line_start'] + 2}\tGET\thttps://acme.collibra.com/rest/2.0/assets"
    ]
    assert rows[("web/client.ts", "listDomains")]["symbol_kind"] == "function"
    assert rows[("workflows/approval.groovy", "notifySteward")]["language"] == "groovy"
    readme = [r for (f, _), r in rows.items() if f == "README.md"]
    assert readme and readme[0]["language"] == "" and readme[0]["heading"] == "ACME sync"
    build = bundle.manifest["build"]
    assert build["ranking"] == "untrained fusion: built with --no-ranking"
    (source,) = bundle.manifest["sources"]
    assert source["kind"] == "code" and source["skipped"] == {
        "credentials file (.env, keys)": 1,
        "hidden file": 1,
        "ignored (.gitignore or .atlasignore)": 1,
        "vendored or generated folder": 1,
    }
    assert not any("hunter2" in r["text"] for r in rows.values())


def test_an_update_embeds_only_what_changed(repo: Path) -> None:
    target = target_of(repo)
    first = index_project(target, model="hash", progress=False)
    again = index_project(target, model="hash", progress=False)
    assert (again.embedded, again.reused) == (0, first.chunks)
    text = (repo / "src" / "sync.py").read_text()
    edited = text.replace("Give an asset a new name.", "Rename an asset in Collibra.")
    (repo / "src" / "sync.py").write_text("# header comment\n" + edited)
    update = index_project(target, model="hash", progress=False)
    # The changed function and the module code above it; every other definition keeps its
    # vector although its lines moved.
    assert update.embedded == 2 and update.reused == update.chunks - 2
    table = Bundle.open(update.output).chunks().to_pylist()
    (rename,) = [r for r in table if r["symbol"] == "rename_asset"]
    assert "Rename an asset in Collibra." in rename["text"]


def test_search_reads_the_scope_it_is_given(repo: Path, hash_bundle: Path) -> None:
    project = index_project(target_of(repo), model="hash", progress=False).output
    with Engine.open([hash_bundle, project]) as engine:
        hits = engine.search("find assets name", mode="keyword", top_k=20)
        assert {h.scope for h in hits} == {"docs", "project"}
        mine = engine.search("find assets name", mode="keyword", scope="project")
        assert mine and {(h.scope, h.bundle) for h in mine} == {("project", "acme-sync")}
        assert mine[0].file == "src/sync.py"
        docs = engine.search("find assets name", mode="keyword", scope="docs")
        assert docs and all(h.scope == "docs" and h.file != "src/sync.py" for h in docs)
        with pytest.raises(QueryError, match="scope"):
            engine.search("assets", scope="everything")


def test_the_docs_answer_lookups_and_the_project_says_where_it_calls_them(
    repo: Path, hash_bundle: Path
) -> None:
    project = index_project(target_of(repo), model="hash", progress=False).output
    with Engine.open([hash_bundle, project]) as engine:
        # A wrapper named like the operation is not its documentation.
        found = engine.resolve("find_assets")
        assert found and (found[0].method, found[0].path) == ("GET", "/assets")
        assert all(c.bundle != "acme-sync" for c in found)
        (use,) = engine.usages_of(found[0])
        line = SYNC_PY.split("\n").index(
            '        response = requests.get(BASE + "/assets", params={"name": name, '
            '"nameMatchMode": "EXACT"})'
        )
        assert (use.where, use.symbol, use.bundle) == (
            f"src/sync.py:{line + 1}",
            "AssetSync.find_assets",
            "acme-sync",
        )
        (rename,) = engine.usages("PATCH", "/assets/{assetId}")
        assert rename.symbol == "rename_asset"
        # fetch(`${BASE}/domains`) in TypeScript: the call's line, not the base URL's.
        (domains,) = engine.usages("GET", "/domains")
        assert (domains.where, domains.symbol) == ("web/client.ts:9", "listDomains")
        # Project definitions are workspace symbols only when asked for.
        assert not [s for s in engine.symbols("find_assets") if s.bundle == "acme-sync"]
        mine = [s for s in engine.symbols("find_assets", project=True) if s.bundle == "acme-sync"]
        assert mine[0].name == "AssetSync.find_assets" and mine[0].kind == "method"
        assert engine.project_file("acme-sync", "src/sync.py") == repo / "src" / "sync.py"
        assert engine.project_file(engine.bundle_infos()[0].name, "src/sync.py") is None
        assert engine.project_file("acme-sync", "../outside.py") is None


def test_usages_need_a_project_beside_the_docs_and_build_no_api_model_without(
    repo: Path, hash_bundle: Path
) -> None:
    """A docs-only engine (every language server without a project) answers usages with none,
    without building the API model: on a large bundle that build made the first hover on an
    endpoint take ~0.2 s."""
    with Engine.open(hash_bundle) as docs:
        (found,) = [c for c in docs.resolve("findAssets") if c.method == "GET"][:1]
        assert docs.usages_of(found) == [] and docs.usages("GET", "/assets") == []
        assert docs._api is None
    project = index_project(target_of(repo), model="hash", progress=False).output
    with Engine.open(project) as alone:
        assert alone.usages("GET", "/assets") == []
        assert alone._api is None
    with Engine.open([hash_bundle, project]) as both:
        assert [u.symbol for u in both.usages("GET", "/domains")] == ["listDomains"]
        assert both._api is not None


def test_a_bundle_written_before_the_code_columns_still_serves(
    hash_bundle: Path, tmp_path: Path
) -> None:
    import shutil

    old = tmp_path / "old"
    shutil.copytree(hash_bundle, old)
    table = pq.read_table(old / "chunks.parquet")
    keep = [
        c
        for c in table.column_names
        if c not in ("language", "symbol", "symbol_kind", "parent", "calls")
    ]
    pq.write_table(table.select(keep), old / "chunks.parquet")
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["files"]["chunks.parquet"] = file_entry(old / "chunks.parquet")
    (old / "manifest.json").write_text(json.dumps(manifest))
    with Engine.open(old) as engine:
        hit = engine.search("find assets", mode="keyword")[0]
        chunk = engine.chunk(hit.chunk_id)
        assert chunk is not None and chunk.language == "" and chunk.calls == ()


def test_atlas_index_from_the_command_line(repo: Path) -> None:
    def index(*args: str) -> dict:
        done = subprocess.run(
            [str(BIN / "atlas"), "index", *args, "--model", "hash", "--json"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=repo / "src",
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    first = index()  # inside the repository: that repository
    assert first["project"] == str(repo.resolve()) and first["embedded"] == first["chunks"]
    assert first["skipped_files"]["vendored or generated folder"] == 1
    second = index(str(repo))
    assert second["embedded"] == 0 and second["output"] == first["output"]
    manifest = Path(second["output"], "manifest.json").read_bytes()
    too_many = subprocess.run(
        [str(BIN / "atlas"), "index", str(repo), "--model", "hash", "--max-files", "3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert too_many.returncode == 2 and "Traceback" not in too_many.stderr
    assert "more than 3 files to index" in too_many.stderr and ".atlasignore" in too_many.stderr
    assert Path(second["output"], "manifest.json").read_bytes() == manifest  # still serving
    inside = subprocess.run(
        [str(BIN / "atlas"), "index", str(repo), "--output", str(repo / "index")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert inside.returncode == 2 and "inside the repository" in inside.stderr
    assert not (repo / "index").exists()
    done = subprocess.run(
        [str(BIN / "atlas"), "index", str(repo / "missing")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "not a folder" in done.stderr and "Traceback" not in done.stderr


def test_a_watch_build_with_its_cache_writes_what_a_fresh_build_writes(
    repo: Path, tmp_path: Path
) -> None:
    import numpy as np

    from atlas_core.build import BuildCache, build_bundle
    from atlas_core.embed import load_embedder

    target = target_of(repo)
    cache = BuildCache()
    with load_embedder("hash") as embedder:
        index_project(target, progress=False, embedder=embedder, cache=cache)
        with (repo / "src" / "sync.py").open("a") as fh:
            fh.write('\n\ndef archive_asset(asset_id):\n    """Move an asset to the archive."""\n')
        (repo / "web" / "client.ts").unlink()
        cached = index_project(target, progress=False, embedder=embedder, cache=cache).output
    fresh = build_bundle(
        [f"code={repo}"], tmp_path / "fresh", model="hash", ranking=False, progress=False
    )
    one, two = Bundle.open(cached), Bundle.open(fresh.output)
    assert one.chunks().to_pylist() == two.chunks().to_pylist()
    assert any(r["symbol"] == "archive_asset" for r in one.chunks().to_pylist())
    for rel in ("keyword/indptr.npy", "keyword/indices.npy", "keyword/data.npy"):
        assert np.array_equal(np.load(one.path / rel), np.load(two.path / rel))
    tables = sorted(p.name for p in (two.path / "identifiers").iterdir())
    assert "keyword_postings.npy" in tables and "records.jsonl" in tables
    for rel in ("keyword/vocab.txt", "mirror/src/sync.py", *(f"identifiers/{t}" for t in tables)):
        assert (one.path / rel).read_bytes() == (two.path / rel).read_bytes(), rel
    assert one.files == two.files  # the same hashes, whether hashed in memory or read back
    assert not (one.path / "mirror" / "web" / "client.ts").exists()
