"""The pages under tests/fixtures/identifiers as a local source would load them."""

from __future__ import annotations

from pathlib import Path

from atlas_core.types import Document

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "identifiers"


def fixture_documents() -> list[Document]:
    docs = []
    # An empty list would make every lookup test fail as "nothing found", far from the cause.
    assert FIXTURES.is_dir(), f"the identifier fixture pages are missing: {FIXTURES}"
    for path in sorted(FIXTURES.rglob("*.md")):
        rel = path.relative_to(FIXTURES).as_posix()
        text = path.read_text(encoding="utf-8")
        docs.append(
            Document(
                path=rel,
                publication=rel.split("/")[0],
                title=text.split("\n")[0].lstrip("# "),
                url=f"https://docs.example.test/{rel[:-3]}",
                text=text,
                source="local",
            )
        )
    return docs
