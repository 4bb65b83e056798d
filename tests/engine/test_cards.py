"""Page cards: written at build time, added to hybrid search's fused scores, optional and checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from atlas_core.build import build_bundle
from atlas_core.bundle import verify_bundle
from atlas_core.bundle.manifest import file_entry
from atlas_core.engine import Engine
from atlas_core.search import CARDS_FILE, SearchSettings, card_boost
from atlas_core.search.cards import card_texts
from tests.support.bundles import manifest_changed_copy

PAGES = {
    "kettles.md": "# Kettles\n\nA kettle boils water for the whole office kitchen.\n\n"
    "## Descale a kettle\n\nPour vinegar in and wait an hour.\n\n"
    "## Replace the filter\n\nThe filter sits behind the spout.\n",
    "toasters.md": "# Toasters\n\nA toaster browns bread on both sides at once.\n\n"
    "## Empty the crumb tray\n\nSlide the tray out from the bottom.\n\n"
    "## Set the browning level\n\nTurn the dial from one to six.\n",
    "fridges.md": "# Fridges\n\nThe fridge keeps milk and lunches cold through the day.\n\n"
    "## Defrost the freezer\n\nSwitch it off overnight with the door open.\n",
}
QUERY = "how do I get the crumbs out of the bread machine"


@pytest.fixture(scope="module")
def carded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cards")
    docs = root / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    build_bundle([f"local={docs}"], root / "bundle", model="hash", progress=False)
    return root / "bundle"


def _search(bundle: Path, card_weight: float) -> list[tuple[str, str, float]]:
    engine = Engine.open(bundle, settings=SearchSettings(card_weight=card_weight))
    try:
        return [(h.file, h.heading, h.score) for h in engine.search(QUERY, top_k=5)]
    finally:
        engine.close()


def test_a_card_holds_the_title_first_sentence_and_headings_of_its_page_once() -> None:
    cols = {
        "file": ["a.md", "a.md", "b.md", "a.md"],
        "title": ["Alpha", "Alpha", "Beta", "Alpha"],
        "heading": ["Alpha", "Alpha > Set it up", "Beta > Use `it`", "Alpha > Set it up"],
        "text": [
            "Alpha is the first page of this small made up test corpus.",
            "Set it up with one command on the shell.",
            "| table | row |",
            "More text.",
        ],
    }
    assert card_texts(cols) == [
        "Alpha. Alpha is the first page of this small made up test corpus. Set it up",
        "Beta. Use it",
    ]


def test_the_best_card_adds_the_weight_and_cards_past_the_top_ones_nothing() -> None:
    cosines = np.linspace(-0.2, 0.8, 200, dtype=np.float32)  # card 199 is the best
    boost = card_boost(cosines, np.array([199, 175, 10]), 0.1)
    assert boost[0] == pytest.approx(0.1)
    assert 0 < boost[1] < 0.1
    assert boost[2] == 0.0


def test_build_writes_one_card_per_page_and_verify_and_info_know_them(carded: Path) -> None:
    manifest = json.loads((carded / "manifest.json").read_text())
    assert manifest["cards"] == {"format": "atlas-cards-1", "file": CARDS_FILE, "pages": 3}
    assert manifest["files"][CARDS_FILE]["shape"][0] == 3
    assert verify_bundle(carded) == []
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "info", str(carded), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["cards"] == "3 page cards"


def test_cards_change_hybrid_scores_and_a_bundle_without_them_ranks_as_before(
    carded: Path, tmp_path: Path
) -> None:
    plain = _search(carded, 0.0)
    with_cards = _search(carded, 0.1)
    assert plain and with_cards != plain
    # Every hit gains between nothing and the weight from its card.
    plain_scores = {(f, h): s for f, h, s in plain}
    for file, heading, score in with_cards:
        if (file, heading) in plain_scores:
            assert plain_scores[(file, heading)] <= score <= plain_scores[(file, heading)] + 0.1
    old = manifest_changed_copy(carded, tmp_path / "bundle", drop="cards")
    assert verify_bundle(old) == []
    assert _search(old, 0.1) == plain


def test_cards_that_do_not_fit_the_pages_are_named_by_verify_and_ignored(
    carded: Path, tmp_path: Path
) -> None:
    manifest = json.loads((carded / "manifest.json").read_text())
    bad = manifest_changed_copy(
        carded, tmp_path / "bundle", change={"cards": {**manifest["cards"], "pages": 2}}
    )
    problems = verify_bundle(bad)
    assert len(problems) == 1 and problems[0].startswith(CARDS_FILE) and "2" in problems[0]
    # The file itself fits its manifest entry but not the pages: ranked without cards.
    np.save(bad / CARDS_FILE, np.zeros((2, 8), dtype=np.float16), allow_pickle=False)
    manifest = json.loads((bad / "manifest.json").read_text())
    manifest["files"][CARDS_FILE] = file_entry(bad / CARDS_FILE)
    (bad / "manifest.json").write_text(json.dumps(manifest))
    assert _search(bad, 0.1) == _search(carded, 0.0)
