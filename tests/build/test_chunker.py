"""The chunker: sections with heading paths, overlap inside a section and only for embedding, size
and token limits, code fences kept whole, exact line numbers and content-hash ids."""

from __future__ import annotations

from dataclasses import replace

from atlas_core.markdown.chunker import chunk_documents, github_slug, scan_headings
from atlas_core.types import Chunk, Document


def words(text: str) -> int:
    """A stand-in tokenizer: one token per whitespace-separated word, plus two specials."""
    return len(text.split()) + 2


def doc(text: str, path: str = "guide/page.md", title: str = "Page", url: str = "") -> Document:
    return Document(path=path, publication="guide", title=title, url=url, text=text)


def chunk(text: str, **kwargs) -> list[Chunk]:
    options = {"count_tokens": words, **kwargs}
    d = doc(text, **{k: options.pop(k) for k in ("path", "title", "url") if k in options})
    return chunk_documents([d], **options)


def lines_of(text: str, c: Chunk) -> str:
    return "\n".join(text.split("\n")[c.line_start - 1 : c.line_end])


GUIDE = """Short intro before any heading.

# Brewing guide

## Water

Use fresh water.

### Temperature

Green tea wants 80 degrees.

## Leaves

Two grams per cup.
"""


def test_h2_sections_with_heading_path_anchor_and_url():
    chunks = chunk(GUIDE, url="https://docs.example.test/brewing")
    assert [c.heading for c in chunks] == [
        "Page",
        "Brewing guide > Water",
        "Brewing guide > Leaves",
    ]
    intro, water, leaves = chunks
    assert intro.text == "Short intro before any heading." and intro.anchor == ""
    assert intro.url == "https://docs.example.test/brewing"
    assert water.anchor == "water"
    assert water.url == "https://docs.example.test/brewing#water"
    assert "### Temperature" in water.text  # an H3 stays inside its H2 section
    assert leaves.text == "## Leaves\n\nTwo grams per cup."
    assert all(c.file == "guide/page.md" and c.publication == "guide" for c in chunks)


def test_line_numbers_are_exact():
    for c in chunk(GUIDE):
        assert lines_of(GUIDE, c) == c.text
    water = chunk(GUIDE)[1]
    assert (water.line_start, water.line_end) == (5, 11)


def test_overlap_leads_the_next_piece_of_a_section_only_in_embed_text():
    steps = [f"Step {n} " + "word " * 30 + f"then stop {n}." for n in range(3)]
    text = "# Big\n\n## Section\n\n" + "\n\n".join(steps) + "\n\n## Next\n\nOther topic.\n"
    chunks = chunk(text, max_tokens=80, overlap=20)
    assert [c.heading for c in chunks] == ["Big > Section"] * 3 + ["Big > Next"]
    first, second, third, following = chunks
    assert first.embed_text == f"Page\nBig > Section\n\n{first.text}"
    assert second.embed_text == f"Page\nBig > Section\n\nword then stop 0.\n\n{second.text}"
    assert third.embed_text == f"Page\nBig > Section\n\nword then stop 1.\n\n{third.text}"
    assert "then stop 0." not in second.text  # overlap is never in the text people see
    # A new section starts clean: the tail of the one before is about something else.
    assert following.embed_text == "Page\nBig > Next\n\n## Next\n\nOther topic."
    assert all(c.token_count == words(c.embed_text) <= 80 for c in chunks)


def test_sections_carry_no_overlap_from_the_section_before():
    first, water, leaves = chunk(GUIDE, overlap=20)
    assert first.embed_text == "Page\n\nShort intro before any heading."
    assert water.embed_text == f"Page\nBrewing guide > Water\n\n{water.text}"
    assert leaves.embed_text == "Page\nBrewing guide > Leaves\n\n## Leaves\n\nTwo grams per cup."


def test_a_section_that_fits_without_overlap_stays_whole():
    # 38 tokens with its header: no room for 100 characters of overlap, and none is needed.
    text = "# Big\n\n## Section\n\n" + "word " * 30 + "\n"
    (only,) = chunk(text, max_tokens=40, overlap=100)
    assert (only.line_start, only.line_end, only.token_count) == (3, 5, 38)


def test_title_is_not_repeated_when_the_path_starts_with_it():
    (c,) = chunk("# Page\n\n## Part\n\nBody text.\n", title="Page")
    assert c.embed_text == "Page > Part\n\n## Part\n\nBody text."


def test_h1_per_operation_pages_split_at_h1():
    text = "# GET /brews\n\nList brews.\n\n# POST /brews\n\nStart one.\n\n# DELETE /brews/{id}\n\nStop.\n"
    chunks = chunk(text)
    assert [c.heading for c in chunks] == ["GET /brews", "POST /brews", "DELETE /brews/{id}"]
    assert chunks[2].anchor == "delete-brewsid"


def test_only_h3_pages_split_at_h3():
    text = "# Kettle\n\nIntro.\n\n### One\n\nFirst.\n\n### Two\n\nSecond.\n"
    chunks = chunk(text)
    assert [c.heading for c in chunks] == ["Kettle", "Kettle > One", "Kettle > Two"]


def test_heading_only_sections_are_folded_into_the_path():
    chunks = chunk("# Title\n\n## Part\n\nBody.\n")
    assert [c.heading for c in chunks] == ["Title > Part"]


def test_headings_inside_fences_are_not_headings_and_setext_headings_are():
    text = (
        "# Guide\n\n## Shell\n\n```bash\n# a comment, not a heading\n## neither\n```\n\n"
        "Setext part\n-----------\n\nBody.\n\nTop\n===\n\nMore.\n"
    )
    headings = [(h.level, h.text) for h in scan_headings(text.split("\n"))]
    assert headings == [(1, "Guide"), (2, "Shell"), (2, "Setext part"), (1, "Top")]
    chunks = chunk(text)
    assert [c.heading for c in chunks] == ["Guide > Shell", "Guide > Setext part", "Top"]
    assert chunks[0].is_code and not chunks[1].is_code
    assert chunks[1].line_start == 10  # the setext heading's text line


def test_thematic_break_after_blank_line_is_not_a_heading():
    text = "# Page\n\nText.\n\n---\n\nMore text.\n"
    assert [h.text for h in scan_headings(text.split("\n"))] == ["Page"]


def test_token_limit_splits_on_paragraphs_and_carries_subheadings():
    paragraphs = [f"Paragraph {n} " + "word " * 30 for n in range(6)]
    text = "# Big\n\n## Section\n\n" + "\n\n".join(paragraphs[:3])
    text += "\n\n### Details\n\n" + "\n\n".join(paragraphs[3:]) + "\n"
    chunks = chunk(text, max_tokens=80, overlap=0)
    assert len(chunks) >= 4
    assert all(c.token_count <= 80 for c in chunks)
    for c in chunks:
        assert lines_of(text, c) == c.text  # whole paragraphs: exact slices
    assert chunks[0].heading == "Big > Section"
    assert chunks[-1].heading == "Big > Section > Details"
    assert chunks[-1].anchor == "details"
    joined = " ".join(c.text for c in chunks)
    for n in range(6):
        assert joined.count(f"Paragraph {n} ") == 1


def test_long_paragraph_splits_on_sentences():
    sentences = [f"Sentence number {n} says something about tea leaves." for n in range(40)]
    text = "## Part\n\n" + " ".join(sentences) + "\n"
    chunks = chunk(text, max_tokens=60, overlap=0)
    assert len(chunks) > 3
    assert all(c.token_count <= 60 for c in chunks)
    for c in chunks:
        assert c.text.rstrip().endswith(".")  # cut at sentence ends
        assert c.line_start == 1 or c.line_start == 3
    assert " ".join(c.text.replace("## Part\n\n", "") for c in chunks) == " ".join(sentences)


def test_max_chars_splits_too():
    text = "## Part\n\n" + "\n\n".join("x" * 90 for _ in range(10)) + "\n"
    chunks = chunk(text, max_chars=300, max_tokens=10_000)
    assert len(chunks) >= 4
    assert all(len(c.text) <= 300 for c in chunks)


def test_code_fence_kept_whole_when_it_fits():
    fence = "```python\n" + "\n".join(f"value_{n} = {n}" for n in range(12)) + "\n```"
    text = "## Code\n\n" + "Intro words here. " * 10 + "\n\n" + fence + "\n\nAfter the code.\n"
    chunks = chunk(text, max_tokens=70, overlap=0)
    holders = [c for c in chunks if "value_0" in c.text]
    assert len(holders) == 1 and fence in holders[0].text
    assert holders[0].is_code
    assert not any(c.is_code for c in chunks if c is not holders[0])


def test_giant_fence_splits_on_lines_as_last_resort():
    body = [f"line_{n} = compute({n})" for n in range(200)]
    text = "## Dump\n\n```python\n" + "\n".join(body) + "\n```\n"
    chunks = chunk(text, max_tokens=60, overlap=0)
    assert len(chunks) > 3
    assert all(c.is_code for c in chunks)
    assert all(c.token_count <= 60 for c in chunks)
    for c in chunks:
        assert lines_of(text, c) == c.text  # whole lines, never a line cut in half
    seen = [line for c in chunks for line in c.text.split("\n") if line.startswith("line_")]
    assert seen == body


def test_is_code_for_mostly_code_and_plain_prose():
    assert chunk("## A\n\nJust prose.\n")[0].is_code is False
    assert chunk("## A\n\n~~~\ncode\n~~~\n")[0].is_code is True


def test_cluster_tags_are_sibling_stems_capped():
    siblings = [doc("# T\n\nx\n", path=f"api/page-{n:02d}.md") for n in range(20)]
    lone = doc("# T\n\nx\n", path="other/solo.md")
    nested = doc("# T\n\nx\n", path="api/deep/inner.md")
    chunks = {c.file: c for c in chunk_documents([*siblings, lone, nested], count_tokens=words)}
    tags = chunks["api/page-10.md"].cluster_tags
    assert len(tags) == 12
    assert "page-10" not in tags and "page-09" in tags and "page-11" in tags
    assert all(t.startswith("page-") for t in tags)  # nested folders are not siblings
    assert chunks["other/solo.md"].cluster_tags == ()
    assert chunks["api/deep/inner.md"].cluster_tags == ()
    first = chunk_documents(siblings[:3], count_tokens=words)
    assert first[0].cluster_tags == ("page-01", "page-02")


def test_ids_are_stable_when_unrelated_text_changes():
    before = {c.heading: c.chunk_id for c in chunk(GUIDE)}
    edited = GUIDE.replace("Two grams per cup.", "Three grams per cup.")
    after = {c.heading: c.chunk_id for c in chunk(edited)}
    assert after["Brewing guide > Water"] == before["Brewing guide > Water"]
    assert after["Page"] == before["Page"]
    assert after["Brewing guide > Leaves"] != before["Brewing guide > Leaves"]
    moved = "\n\n\n" + GUIDE  # lines shift, text does not: ids stay
    assert {c.heading: c.chunk_id for c in chunk(moved)} == before
    assert all(len(i) == 20 and int(i, 16) >= 0 for i in before.values())


def test_ids_unique_for_repeated_sections():
    text = "## Same\n\nSame text.\n\n## Same\n\nSame text.\n"
    chunks = chunk(text)
    assert len(chunks) == 2
    assert chunks[0].chunk_id != chunks[1].chunk_id
    assert [c.anchor for c in chunks] == ["same", "same-1"]


def test_chunk_ids_differ_by_file():
    a = doc("## A\n\ntext\n", path="x/a.md")
    b = replace(a, path="x/b.md")
    ca, cb = chunk_documents([a, b], count_tokens=words)
    assert ca.chunk_id != cb.chunk_id


def test_github_slugs():
    assert github_slug("Find `assets` (beta)!") == "find-assets-beta"
    assert github_slug("GET /assets/{assetId}") == "get-assetsassetid"
    assert github_slug("[Link](x.md) and **bold**") == "link-and-bold"
    assert github_slug("snake_case name") == "snake_case-name"


def test_empty_documents_give_no_chunks():
    assert chunk("") == []
    assert chunk("\n\n   \n") == []
