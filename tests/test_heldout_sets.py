"""The held-out question set: its pages are the drawn ones, its file is the writers' files joined,
and every question carries its source page's frozen split."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from atlas_core.evaluate import load_golden
from tests.conftest import SHARED

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "benchmarks" / "questions"
DOCS = SHARED / "collibra-docs" / "markdown"


def test_questions_are_the_writers_files_joined_with_their_pages_splits() -> None:
    joined = "".join((QUESTIONS / f"written_{w}.jsonl").read_text(encoding="utf-8") for w in "ABC")
    assert (QUESTIONS / "questions.jsonl").read_text(encoding="utf-8") == joined
    pages = {p["page"]: p for p in json.loads((QUESTIONS / "pages.json").read_text())["pages"]}
    rows = [json.loads(line) for line in joined.splitlines() if line.strip()]
    assert len(rows) >= 300 and len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        page = pages[row["source_page"]]
        assert row["split"] == page["split"], row["id"]
        assert row["source_page"] in row["expected_files"], row["id"]
    cases = load_golden(QUESTIONS / "questions.jsonl")
    assert {c.split for c in cases} == {"train", "dev", "test"}


@pytest.mark.skipif(not DOCS.is_dir(), reason="no ../shared docs here")
def test_the_pages_are_the_drawn_sample() -> None:
    spec = importlib.util.spec_from_file_location("sample_pages", QUESTIONS / "sample_pages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sample_pages"] = module
    spec.loader.exec_module(module)
    assert module.draw(DOCS) == json.loads((QUESTIONS / "pages.json").read_text())
