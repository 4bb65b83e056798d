"""A first `atlas index` serves keyword answers before the vectors are in, and says what it will
take before it starts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atlas_core.build import build_bundle
from atlas_core.bundle import Bundle
from atlas_core.engine import Engine
from atlas_core.errors import BundleError
from atlas_core.project.estimate import remember_speed, stored_speed
from atlas_core.project.index import index_project, target_of
from tests.project.conftest import make_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # A data dir of its own: the rate an index remembers must not reach another test.
    monkeypatch.setenv("ATLAS_DATA_DIR", str(tmp_path / "data"))
    return make_repo(tmp_path / "acme-sync")


def test_keyword_answers_are_served_before_the_vectors_are_in(repo: Path) -> None:
    target = target_of(repo)
    lines: list[str] = []
    seen: dict[str, Any] = {}

    def say(line: str) -> None:
        lines.append(line)
        if line.startswith("keyword and identifier search ready"):
            # What a server serving the project sees between the two passes.
            bundle = Bundle.open(target.bundle)
            seen["pending"] = bundle.vectors_pending
            engine = Engine.open(target.bundle)
            seen["keyword"] = [h.heading for h in engine.search("find_assets", mode="keyword")]
            seen["hybrid"] = [h.heading for h in engine.search("find_assets", mode="hybrid")]
            seen["off"] = engine.search_off()
            with pytest.raises(BundleError, match="still being computed"):
                engine.search("find_assets", mode="vector")

    report = index_project(target, model="hash", progress=False, say=say)
    assert seen["pending"] is True
    assert "AssetSync.find_assets" in seen["keyword"]
    assert seen["hybrid"] == seen["keyword"]  # hybrid answers from the keyword list
    assert "vectors are still being computed" in seen["off"]["vector"]
    # The estimate came first, then the keyword pass; the finished bundle has its vectors.
    assert lines[0].startswith("indexing 4 files (") and "chunks" in lines[0]
    assert "minutes once the keyword pass has measured this machine" in lines[0]
    assert len(lines) == 2 and "chunks/s)" in lines[1]  # measured after keyword answers
    finished = Bundle.open(report.output)
    assert not finished.vectors_pending
    assert Engine.open(report.output).search("find_assets", mode="vector")
    assert stored_speed(report.model) is None  # 8 chunks say nothing about this machine's rate


def test_an_update_of_a_finished_index_reuses_its_vectors_in_one_pass(repo: Path) -> None:
    target = target_of(repo)
    first = index_project(target, model="hash", progress=False)
    lines: list[str] = []
    again = index_project(target, model="hash", progress=False, say=lines.append)
    assert again.reused == first.chunks and again.embedded == 0
    assert len(lines) == 1 and lines[0].startswith("indexing ")  # no keyword-first pass


def test_zero_rows_of_an_unfinished_index_are_never_reused(repo: Path) -> None:
    target = target_of(repo)
    target.bundle.parent.mkdir(parents=True, exist_ok=True)
    build_bundle(
        [f"code={repo}"],
        target.bundle,
        model="hash",
        progress=False,
        name=target.name,
        ranking=False,
        vectors_pending=True,
    )
    manifest = json.loads((target.bundle / "manifest.json").read_text())
    assert manifest["vectors_pending"] is True
    copy = build_bundle(
        [f"code={repo}"],
        target.bundle.parent / "copy",
        model="hash",
        progress=False,
        ranking=False,
        reuse=target.bundle,
    )
    assert copy.reused == 0 and "still being computed" in copy.reuse_note
    report = index_project(target, model="hash", progress=False, keyword_first=False)
    assert report.reused == 0 and report.embedded == report.chunks
    assert not Bundle.open(report.output).vectors_pending


def test_the_estimate_uses_this_machines_last_rate(repo: Path) -> None:
    remember_speed("hash-384", 1_200, 10.0)  # what an earlier index measured: 120 chunks/s
    assert stored_speed("hash-384") == 120.0
    lines: list[str] = []
    index_project(target_of(repo), model="hash", progress=False, say=lines.append)
    assert "at 120 chunks/s (this machine's last index)" in lines[0]
    assert "under a minute" in lines[0]
    assert "at 120 chunks/s" in lines[1]
