"""One page reader: the same size cap and outline cache for the MCP file tools' mirrors and the
engine's sections, and a text search whose matches carry their sections."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.errors import QueryError
from atlas_core.pages import Mirror, MirrorSet, read_lines, read_page, search_lines
from atlas_core.pages import reader as reader_module

PAGE = "# Assets\n\nintro\n\n## Find assets\n\nfindAssets lists them\n"


@pytest.fixture
def mirror_dir(tmp_path: Path) -> Path:
    root = tmp_path / "mirror"
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "assets.md").write_text(PAGE, encoding="utf-8")
    return root


def test_a_page_over_the_cap_is_refused_by_every_reader(
    mirror_dir: Path, hash_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cap lives in one place: lowering it there changes what the mirrors and the engine's
    sections read alike."""
    with Engine.open(hash_bundle) as engine:
        doc = engine.doc_files("")[0]
        page = engine.mirror_path("", doc.file)
        assert engine.section_at("", doc.file, 1).heading  # read whole under the real cap
    monkeypatch.setattr(reader_module, "MAX_PAGE_BYTES", 10)
    path = mirror_dir / "guide" / "assets.md"
    with pytest.raises(QueryError, match="larger than a docs page"):
        read_lines(path, "guide/assets.md")
    assert read_page(path) is None
    mirror = Mirror.open(mirror_dir)
    assert mirror.outline("guide/assets.md") is None
    assert mirror.section_at("guide/assets.md", 7).heading == ""
    with Engine.open(hash_bundle) as engine:
        assert page.stat().st_size > 10
        assert engine.section_at("", doc.file, 1).heading == ""


def test_a_mirror_reads_each_outline_once(mirror_dir: Path) -> None:
    mirror = Mirror.open(mirror_dir)
    first = mirror.outline("guide/assets.md")
    assert first is not None and mirror.outline("guide/assets.md") is first
    assert mirror.section_at("guide/assets.md", 7).heading == "Assets > Find assets"


def test_matching_lines_carry_their_section_and_skip_unserved_files(mirror_dir: Path) -> None:
    shutil.copy(mirror_dir / "guide" / "assets.md", mirror_dir / "guide" / ".hidden.md")
    docs = MirrorSet({"": Mirror.open(mirror_dir)})
    found = search_lines(docs, "findassets", publication="guide", ripgrep="none")
    assert found.engine == "python" and not found.truncated
    (match,) = found.matches
    assert (match.file, match.line, match.heading) == ("guide/assets.md", 7, "Assets > Find assets")
    assert (match.line_start, match.line_end) == (5, 7)
