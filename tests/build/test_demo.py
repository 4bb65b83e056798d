"""The embedded demo: its docs, its cached bundle, `atlas demo`, and the development query set."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import atlas_core.demo as demo
from atlas_core.crawl.validate import validate_mirror
from atlas_core.sources import load_sources

ROOT = Path(__file__).resolve().parents[2]
DEV_QUERIES = ROOT / "benchmarks" / "dev_queries.jsonl"
SECTIONS = (
    "rest-core",
    "import-api",
    "output-module",
    "authentication",
    "graphql",
    "cli",
    "workflows",
)
REST_AREAS = (
    "assets",
    "attributes",
    "relations",
    "communities",
    "domains",
    "responsibilities",
    "workflows",
)


@pytest.fixture(scope="module")
def demo_documents() -> list:
    return load_sources([f"mirror={demo.DOCS_DIR}"]).documents


def _copy_demo(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable copy of the demo content that `atlas_core.demo` reads instead of the package's."""
    root = tmp / "demo"
    shutil.copytree(demo.DOCS_DIR, root / "docs")
    shutil.copy2(demo.OPENAPI_FILE, root / "openapi.yaml")
    monkeypatch.setattr(demo, "DEMO_DIR", root)
    monkeypatch.setattr(demo, "DOCS_DIR", root / "docs")
    monkeypatch.setattr(demo, "OPENAPI_FILE", root / "openapi.yaml")
    return root


def _demo_dirs(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if p.is_dir() and "demo-bundle" in p.name)


# -- the documentation ---------------------------------------------------------------------------


def test_demo_docs_are_a_clean_mirror() -> None:
    assert validate_mirror(demo.DOCS_DIR) == []
    meta = json.loads((demo.DOCS_DIR / "crawl_meta.json").read_text(encoding="utf-8"))
    pages = list((demo.DOCS_DIR / "markdown").rglob("*.md"))
    assert meta["totals"]["found"] == len(pages)


def test_demo_docs_cover_every_area(demo_documents: list) -> None:
    assert len(demo_documents) >= 25
    sections = {doc.path.split("/")[0] for doc in demo_documents}
    assert set(SECTIONS) <= sections
    for doc in demo_documents:
        assert doc.title, doc.path
        assert doc.url.startswith("https://docs.example.invalid/"), doc.path
        assert doc.metadata.get("fetched_at"), doc.path
        size = len(doc.text.encode())
        assert 1500 <= size <= 7000, f"{doc.path} is {size} bytes"
        assert doc.text.lstrip().startswith("# "), f"{doc.path} does not open with its H1"
    rest_pages = {doc.path for doc in demo_documents if doc.path.startswith("rest-core/")}
    for area in REST_AREAS:
        assert any(area in path for path in rest_pages), f"no REST page for {area}"
    text = "\n".join(doc.text for doc in demo_documents)
    for needle in (
        "GET /rest/2.0/assets/{assetId}",
        "POST /rest/2.0/assets/bulk",
        "find_assets",
        "`resourceType`",
        "continueOnError",
        "TableViewConfig",
        "`Term` is deprecated; use `Asset` instead.",
        "`Vocabulary` is deprecated; use `Domain` instead.",
        "AddAssetRequest.builder()",
        "assetApi",
        "```groovy",
        "```graphql",
        "```java",
        "lineage-harvester full-sync",
        "/rest/oauth/v2/token",
    ):
        assert needle in text, needle


def test_demo_openapi_has_operations_and_a_deprecated_one() -> None:
    documents = load_sources([f"openapi={demo.OPENAPI_FILE}"]).documents
    entries = [e for doc in documents for e in doc.identifiers]
    operations = {e.operation_id for e in entries if e.operation_id}
    assert {"findAssets", "getAsset", "addAsset", "addAssets", "changeAsset", "removeAsset"} <= (
        operations
    )
    assert {"findCommunities", "findDomains"} <= operations
    assert any(e.deprecated and e.operation_id == "getAssetByName" for e in entries)


# -- the cached bundle ---------------------------------------------------------------------------


def test_demo_bundle_builds_once_and_answers(tmp_path: Path) -> None:
    from atlas_core.engine import Engine

    path = demo.ensure_demo_bundle(progress=False, model="hash")
    assert path.parent == Path(os.environ["ATLAS_CACHE_DIR"])
    assert path.name.startswith("demo-bundle-hash-")
    built = (path / "manifest.json").stat().st_mtime_ns
    assert demo.ensure_demo_bundle(progress=False, model="hash") == path
    assert (path / "manifest.json").stat().st_mtime_ns == built  # reused, not rebuilt

    with Engine.open(path) as engine:
        hits = engine.search("continueOnError batchSize", mode="keyword", top_k=3)
        assert hits and hits[0].file.startswith("import-api/")
        assert {c.operation_id for c in engine.lookup("findAssets")} >= {"findAssets"}
        replacements = {d.term: d.replacement for d in engine.deprecations()}
        assert replacements.get("Vocabulary") == "Domain"
        assert replacements.get("termComponent") == "assetApi"


def test_the_demo_bundle_says_it_is_the_demo_and_a_real_one_does_not(
    demo_bundle: Path, hash_bundle: Path
) -> None:
    from atlas_core.bundle import Bundle
    from atlas_core.engine import Engine

    assert json.loads((demo_bundle / "manifest.json").read_text())["demo"] is True
    assert "demo" not in json.loads((hash_bundle / "manifest.json").read_text())
    assert Bundle.open(demo_bundle).is_demo and not Bundle.open(hash_bundle).is_demo
    with Engine.open(demo_bundle) as engine:
        assert engine.serves_demo() and engine.info().demo
    with Engine.open(hash_bundle) as engine:
        assert not engine.serves_demo() and not engine.info().demo


def test_a_cached_demo_that_does_not_say_so_is_not_reused(
    demo_bundle: Path, tmp_path: Path
) -> None:
    """A demo cached before the marker existed would pass for real docs: it does not count as
    usable, so `ensure_demo_bundle` builds it again (as it does a damaged one)."""
    stale = tmp_path / demo_bundle.name
    shutil.copytree(demo_bundle, stale)
    manifest = json.loads((stale / "manifest.json").read_text())
    del manifest["demo"]
    (stale / "manifest.json").write_text(json.dumps(manifest))
    assert demo._usable(demo_bundle)
    assert not demo._usable(stale)


def test_try_it_yourself_lines_work_as_printed_here(demo_bundle: Path) -> None:
    from atlas_core.console import installation
    from atlas_ls.cli.commands.demo import try_lines

    install = installation()
    lines = try_lines(demo_bundle)
    assert lines and all(line.startswith(install.atlas("")) for line in lines)
    if install.kind == "uv project":  # a clone: `atlas` is on no PATH, `uv run atlas` is
        assert lines[0].startswith("uv run atlas search ")
    words = shlex.split(lines[0])
    arguments = words[words.index("atlas") + 1 :]
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", *arguments], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "assets" in out.stdout.lower()


def test_changed_demo_content_builds_a_new_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(tmp_path / "cache"))
    root = _copy_demo(tmp_path, monkeypatch)
    first = demo.ensure_demo_bundle(progress=False, model="hash")
    page = root / "docs" / "markdown" / "rest-core" / "assets-api.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nA sentence added later.\n")
    second = demo.ensure_demo_bundle(progress=False, model="hash")
    assert second != first
    assert (
        "A sentence added later." in (second / "mirror" / "rest-core" / "assets-api.md").read_text()
    )
    assert _demo_dirs(tmp_path / "cache") == [second.name]  # the stale one is gone


def test_failed_demo_build_leaves_no_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atlas_core.errors import AtlasError

    cache = tmp_path / "cache"
    monkeypatch.setenv("ATLAS_CACHE_DIR", str(cache))
    root = _copy_demo(tmp_path, monkeypatch)
    (root / "openapi.yaml").write_text("openapi: 3.0.3\npaths: [not, a, mapping\n")
    with pytest.raises(AtlasError):
        demo.ensure_demo_bundle(progress=False, model="hash")
    assert not cache.exists() or _demo_dirs(cache) == []


def test_atlas_demo_with_unwritable_cache_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    env = {**os.environ, "ATLAS_CACHE_DIR": str(blocker / "cache")}
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "demo", "-q"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("atlas: error: cannot write the demo bundle under ")
    assert "ATLAS_CACHE_DIR" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.slow
@pytest.mark.stress
@pytest.mark.timeout(1200)
def test_atlas_demo_command_shows_every_mode() -> None:
    """`atlas demo` on a fresh cache builds with the real default model, then reuses the bundle."""
    cmd = [sys.executable, "-m", "atlas_ls.cli", "demo"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=1100)
    assert first.returncode == 0, first.stderr[-2000:]
    out = first.stdout
    for mode in ("hybrid", "vector", "keyword"):
        assert f"== {mode} search:" in out
    assert "== lookup: findAssets" in out
    assert "== symbols:" in out
    assert "building the demo bundle" in first.stderr
    # A ranked result line: rank, score, file:line, [heading].
    assert re.search(r"^  1\. \d+\.\d{3}  [\w./-]+\.md:\d+  \[.+\]$", out, re.MULTILINE)
    assert "import-api/continue-on-error.md" in out
    assert "AddAssetRequest" in out

    second = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "building the demo bundle" not in second.stderr


# -- the development query set -------------------------------------------------------------------


def _dev_queries() -> list[dict]:
    return [json.loads(line) for line in DEV_QUERIES.read_text(encoding="utf-8").splitlines()]


def test_dev_queries_are_well_formed() -> None:
    rows = _dev_queries()
    assert len(rows) >= 60
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert row["category"] in {"identifier", "natural", "paraphrase", "howto"}, row
        if "identifier" in row:
            assert row["identifier"].strip() and row["expected_file"].endswith(".md"), row
        else:
            assert row["query"].strip() and row["expected_files"], row
    by_identifier = {r["identifier"]: r["expected_file"] for r in rows if "identifier" in r}
    assert by_identifier["findAssets"] == "rest-core/assets-api.md"
    assert by_identifier["addAssets"] == "rest-core/assets-api.md"
    assert sum(r["category"] == "paraphrase" for r in rows) >= 20


@pytest.mark.shared
def test_dev_query_expected_files_exist(shared_dir: Path) -> None:
    markdown = shared_dir / "collibra-docs" / "markdown"
    specs = sorted((shared_dir / "collibra-openapi").glob("*.json"))
    generated = {doc.path for doc in load_sources([f"openapi={s}" for s in specs]).documents}
    missing = []
    for row in _dev_queries():
        for file in [row["expected_file"]] if "expected_file" in row else row["expected_files"]:
            if not (markdown / file).is_file() and file not in generated:
                missing.append(f"{row['id']}: {file}")
    assert missing == []
