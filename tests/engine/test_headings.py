"""Heading vectors: written at build time, lifting a chunk's vector score toward its head's,
optional and checked."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from atlas_core.build import build_bundle
from atlas_core.bundle import verify_bundle
from atlas_core.bundle.manifest import file_entry
from atlas_core.engine import Engine
from atlas_core.search import HEADINGS_FILE, SearchSettings, heading_lift
from atlas_core.search.headings import head_texts
from tests.support.bundles import manifest_changed_copy

PAGES = {
    "kettles.md": "# Kettles\n\nA kettle boils water for the whole office kitchen.\n\n"
    "## Descale a kettle\n\nPour vinegar in and wait an hour before you rinse it twice.\n\n"
    "## Replace the filter\n\nThe filter sits behind the spout, under a small flap.\n",
    "toasters.md": "# Toasters\n\nA toaster browns bread on both sides at once.\n\n"
    "## Empty the crumb tray\n\nSlide it out from the bottom and shake it over the bin.\n\n"
    "## Set the browning level\n\nTurn the dial from one to six.\n",
    "fridges.md": "# Fridges\n\nThe fridge keeps milk and lunches cold through the day.\n\n"
    "## Defrost the freezer\n\nSwitch it off overnight with the door open.\n",
}
QUERY = "empty crumb tray"


@pytest.fixture(scope="module")
def headed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("headings")
    docs = root / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    build_bundle([f"local={docs}"], root / "bundle", model="hash", progress=False)
    return root / "bundle"


def _search(bundle: Path, weight: float, mode: str = "vector") -> list[tuple[str, str, float]]:
    engine = Engine.open(bundle, settings=SearchSettings(heading_weight=weight))
    try:
        return [(h.file, h.heading, h.score) for h in engine.search(QUERY, mode=mode, top_k=5)]
    finally:
        engine.close()


def test_a_head_is_the_title_and_heading_lines_before_the_text() -> None:
    texts = ["Toasters > Empty the crumb tray\n\nSlide it out.", "Loose text\nmore\n\nand on", ""]
    assert head_texts(texts) == ["Toasters > Empty the crumb tray", "Loose text\nmore", ""]


def test_the_lift_raises_a_score_toward_a_better_head_and_never_lowers_one() -> None:
    scores = np.array([0.2, 0.6, 0.4], dtype=np.float32)
    heads = np.array([0.8, 0.1, 0.4], dtype=np.float32)
    lifted = heading_lift(scores, heads, 0.5)
    assert lifted.tolist() == pytest.approx([0.5, 0.6, 0.4])


def test_build_writes_one_heading_vector_per_chunk_and_verify_and_info_know_them(
    headed: Path,
) -> None:
    manifest = json.loads((headed / "manifest.json").read_text())
    chunks = manifest["counts"]["chunks"]
    assert manifest["headings"] == {
        "format": "atlas-headings-1",
        "file": HEADINGS_FILE,
        "chunks": chunks,
    }
    assert manifest["files"][HEADINGS_FILE]["shape"] == manifest["files"]["vectors.npy"]["shape"]
    assert verify_bundle(headed) == []
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "info", str(headed), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["headings"] == f"{chunks} heading vectors"


def test_heading_vectors_lift_the_section_a_question_names_and_an_old_bundle_ranks_as_before(
    headed: Path, tmp_path: Path
) -> None:
    plain = _search(headed, 0.0)
    lifted = _search(headed, 0.3)
    assert plain and lifted != plain
    assert lifted[0][1].endswith("Empty the crumb tray")
    plain_scores = {(f, h): s for f, h, s in plain}
    for file, heading, score in lifted:  # vector scores only ever rise
        if (file, heading) in plain_scores:
            assert score >= plain_scores[(file, heading)] - 1e-6
    old = manifest_changed_copy(headed, tmp_path / "bundle", drop="headings")
    assert verify_bundle(old) == []
    assert _search(old, 0.3) == plain
    assert _search(old, 0.3, "hybrid") == _search(headed, 0.0, "hybrid")


def test_heading_vectors_that_do_not_fit_are_named_by_verify_and_ignored(
    headed: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manifest = json.loads((headed / "manifest.json").read_text())
    bad = manifest_changed_copy(
        headed, tmp_path / "bundle", change={"headings": {**manifest["headings"], "chunks": 2}}
    )
    problems = verify_bundle(bad)
    assert len(problems) == 1 and problems[0].startswith(HEADINGS_FILE) and "2" in problems[0]
    # The file itself fits its manifest entry but not the chunk table: ranked without it.
    np.save(bad / HEADINGS_FILE, np.zeros((2, 8), dtype=np.float16), allow_pickle=False)
    manifest = json.loads((bad / "manifest.json").read_text())
    manifest["files"][HEADINGS_FILE] = file_entry(bad / HEADINGS_FILE)
    (bad / "manifest.json").write_text(json.dumps(manifest))
    with caplog.at_level(logging.WARNING):
        assert _search(bad, 0.3) == _search(headed, 0.0)
    assert "ranking without them" in caplog.text
    section = {**json.loads((headed / "manifest.json").read_text())["headings"]}
    unknown = manifest_changed_copy(
        headed,
        tmp_path / "other" / "bundle",
        change={"headings": {**section, "format": "atlas-h-9"}},
    )
    assert [p.split(":")[0] for p in verify_bundle(unknown)] == [HEADINGS_FILE]
