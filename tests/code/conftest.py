"""Fixtures of the code-chunking tests: client code in every language the chunker reads, as
files under tests/code/snippets/."""

from __future__ import annotations

from pathlib import Path

SNIPPETS = Path(__file__).parent / "snippets"


def snippet(name: str) -> str:
    return (SNIPPETS / name).read_text(encoding="utf-8")
