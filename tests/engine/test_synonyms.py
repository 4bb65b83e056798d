"""The synonym table mined from the corpus (keyword/synonyms.json): mining, the bundle round trip,
`atlas verify` on a damaged or mismatched table, and bundles built without one."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from atlas_core.bundle import Bundle, BundleWriter, verify_bundle
from atlas_core.embed import load_embedder
from atlas_core.engine import Engine
from atlas_core.errors import BundleError
from atlas_core.search.keyword import KeywordIndex, write_keyword_index
from atlas_core.search.synonyms import MIN_NPMI, SYNONYMS_FILE, Pair, corpus_pairs, mine
from atlas_core.types import Chunk, Document
from tests.reload_support import reseal

# A made-up widget API: three operations take `sendNotification`, each describing it in its own
# words, all of them with "notify"; the other parameters are described with other words.
PARAMETERS = [
    ("sendNotification", "Whether to notify the watchers by e-mail after the import."),
    ("sendNotification", "Notify the owners by e-mail once the job ends."),
    ("sendNotification", "When true, notify subscribers that widgets were saved."),
    ("pageSize", "How many widgets one page of results holds."),
    ("pageSize", "The largest number of widgets returned at once."),
    ("offset", "The first widget to return, counted from zero."),
    ("offset", "Skip this many widgets before the first result."),
    ("widgetName", "The name of the widget, matched exactly."),
    ("widgetName", "Only widgets whose name starts with this text."),
    ("domainId", "The domain that holds the widgets to return."),
]
PAGES = {
    "api/widgets.md": "\n".join(
        [
            "# Widgets",
            "",
            "## Import widgets",
            "",
            "`POST /widgets/import` · operationId `importWidgets`",
            "",
            "| Name | In | Type | Required | Description |",
            "| --- | --- | --- | --- | --- |",
            *(f"| `{name}` | query | `string` | no | {text} |" for name, text in PARAMETERS),
            "",
        ]
    ),
    # Says what sendNotification does without the word the question uses.
    "guides/quiet-imports.md": (
        "# Quiet imports\n\nSet sendNotification to false so that a bulk import stays silent.\n"
    ),
    "guides/domains.md": "# Domains\n\nA domain holds widgets of one team.\n",
}


def _chunks() -> list[Chunk]:
    chunks = []
    for i, (path, text) in enumerate(sorted(PAGES.items())):
        title = text.splitlines()[0].lstrip("# ")
        heading = title + (" > Import widgets" if "## Import widgets" in text else "")
        chunks.append(
            Chunk(
                chunk_id=f"c{i}",
                file=path,
                publication=path.split("/")[0],
                title=title,
                heading=heading,
                anchor="",
                url="",
                line_start=1,
                line_end=text.count("\n") + 1,
                text=text,
                embed_text=text,
            )
        )
    return chunks


def _build(output: Path, *, synonyms: bool) -> Path:
    chunks = _chunks()
    documents = [
        Document(path=c.file, publication=c.publication, title=c.title, url="", text=PAGES[c.file])
        for c in chunks
    ]
    embedder = load_embedder("hash")
    vectors = embedder.embed_documents([c.embed_text for c in chunks], progress=False)
    with BundleWriter(output) as writer:
        writer.write_mirror(documents)
        writer.write_chunks(chunks)
        writer.write_vectors(vectors)
        writer.set_section(
            "keyword", write_keyword_index(chunks, writer.staging, synonyms=synonyms)
        )
        return writer.commit(
            model=embedder.stage(writer.staging / "model"),
            sources=[{"kind": "local", "path": "tests/engine/test_synonyms.py"}],
            counts={"documents": len(documents)},
        )


@pytest.fixture(scope="module")
def with_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle with a synonym table. Read-only: tests that damage it take a copy."""
    return _build(tmp_path_factory.mktemp("synonyms") / "bundle", synonyms=True)


def test_mining_associates_a_description_word_with_the_parameter() -> None:
    table = mine(corpus_pairs(_chunks()))
    # "notify" describes sendNotification in three rows and nothing else; "widgets" is in most
    # rows, whatever they name, and "largest" in one row only: neither enters the table
    assert list(table) == ["notify"]
    notify = dict(table["notify"])
    assert set(notify) == {"sendnotification", "send", "notification"}
    assert all(MIN_NPMI <= score <= 1 for score in notify.values())


def test_mining_skips_inflections_rare_pairs_and_repeated_evidence() -> None:
    pair = Pair("table", frozenset({"lists", "widgets"}), frozenset({"listwidgets", "widget"}))
    table = mine([pair] * 3 + [Pair("table", frozenset({"other"}), frozenset({"thing"}))])
    # widget is an inflection of the word itself: the tokenizer's variants find it already
    assert dict(table["widgets"]).keys() == {"listwidgets"}
    assert mine([pair] * 2 + [Pair("table", frozenset({"other"}), frozenset({"thing"}))]) == {}
    # the same rows on a second page are the same evidence, counted once
    copied = [replace(c, file="copy/" + c.file) for c in _chunks()]
    assert len(corpus_pairs(_chunks() + copied)) == len(corpus_pairs(_chunks()))


def test_bundle_round_trip_and_search_through_the_table(with_table: Path) -> None:
    manifest = json.loads((with_table / "manifest.json").read_text())
    section = manifest["keyword"]
    assert SYNONYMS_FILE in section["files"] and SYNONYMS_FILE in manifest["files"]
    stored = json.loads((with_table / SYNONYMS_FILE).read_text())
    assert stored["format"] == "atlas-synonyms" and stored["version"] == 1
    assert section["synonyms"]["words"] == len(stored["synonyms"])
    assert verify_bundle(with_table) == []

    index = KeywordIndex.open(Bundle.open(with_table))
    weights = dict(index.weighted_terms("notify"))
    assert weights["notify"] == 1.0
    assert 0 < weights["sendnotification"] <= section["synonyms"]["weight"]
    with Engine.open(with_table) as engine:
        files = [hit.file for hit in engine.search("notify", mode="keyword", top_k=5)]
    # the guide never says "notify"; only the mined association finds it
    assert "guides/quiet-imports.md" in files


def test_a_bundle_without_the_table_searches_as_before(tmp_path: Path) -> None:
    plain = _build(tmp_path / "plain", synonyms=False)
    manifest = json.loads((plain / "manifest.json").read_text())
    assert "synonyms" not in manifest["keyword"]
    assert not (plain / SYNONYMS_FILE).exists()
    assert verify_bundle(plain) == []
    index = KeywordIndex.open(Bundle.open(plain))
    assert index.synonyms is None
    assert dict(index.weighted_terms("notify")) == {"notify": 1.0}
    with Engine.open(plain) as engine:
        files = [hit.file for hit in engine.search("notify", mode="keyword", top_k=5)]
    assert files == ["api/widgets.md"]


def _edit_table(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        path = root / SYNONYMS_FILE
        document = json.loads(path.read_text())
        change(document)
        path.write_text(json.dumps(document))
        reseal(root, SYNONYMS_FILE)

    return corrupt


def _write(raw: bytes) -> Callable[[Path], None]:
    def corrupt(root: Path) -> None:
        (root / SYNONYMS_FILE).write_bytes(raw)
        reseal(root, SYNONYMS_FILE)

    return corrupt


def _add_word(document: dict[str, Any]) -> None:
    document["synonyms"]["extra"] = [["notify", 0.5]]


def _weight(value: object) -> Callable[[dict[str, Any]], None]:
    return lambda document: document["synonyms"]["notify"][0].__setitem__(1, value)


# Each damaged table is re-hashed into the manifest, so only the checks of its content see it.
# name: (damage, a phrase of the message, whether opening the index refuses it too)
CASES: dict[str, tuple[Callable[[Path], None], str, bool]] = {
    "not JSON": (_write(b'{"format": "atlas-synonyms", '), "not valid JSON", True),
    "not an object": (_write(b"[]"), "not a JSON object", True),
    "newer version": (_edit_table(lambda d: d.update(version=2)), "version 2", True),
    "another tokenizer": (
        _edit_table(lambda d: d.update(tokenizer="atlas-tokens-0")),
        "tokenizer",
        True,
    ),
    "a word more than the manifest says": (_edit_table(_add_word), "manifest.json", True),
    "weight out of range": (_edit_table(_weight(7)), "weight in (0, 1]", True),
    "weight not a number": (_edit_table(_weight("high")), "weight in (0, 1]", True),
    "a term the index lacks": (
        _edit_table(lambda d: d["synonyms"]["notify"][0].__setitem__(0, "nosuchterm")),
        "vocab.txt",
        False,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_verify_and_search_refuse_a_damaged_table(
    with_table: Path, tmp_path: Path, case: str
) -> None:
    damage, phrase, refused = CASES[case]
    root = Path(shutil.copytree(with_table, tmp_path / "copy"))
    damage(root)
    problems = [p for p in verify_bundle(root) if p.startswith(SYNONYMS_FILE)]
    assert problems and phrase in problems[0], verify_bundle(root)
    if refused:
        with Engine.open(root) as engine, pytest.raises(BundleError) as err:
            engine.search("notify", mode="keyword")
        assert SYNONYMS_FILE in err.value.message and err.value.hint


def test_atlas_verify_names_the_table_and_exits_1(with_table: Path, tmp_path: Path) -> None:
    root = Path(shutil.copytree(with_table, tmp_path / "copy"))
    _edit_table(lambda d: d.update(version=2))(root)
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "verify", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stdout.splitlines()[0].startswith(f"{SYNONYMS_FILE}: "), out.stdout
    assert "Traceback" not in out.stderr


def test_a_section_naming_a_table_the_bundle_does_not_list_is_refused(
    with_table: Path, tmp_path: Path
) -> None:
    root = Path(shutil.copytree(with_table, tmp_path / "copy"))
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["keyword"]["files"].remove(SYNONYMS_FILE)
    del manifest["files"][SYNONYMS_FILE]
    (root / "manifest.json").write_text(json.dumps(manifest))
    (root / SYNONYMS_FILE).unlink()
    assert any(p.startswith(f"{SYNONYMS_FILE}: ") for p in verify_bundle(root))
    with Engine.open(root) as engine, pytest.raises(BundleError) as err:
        engine.search("notify", mode="keyword")
    assert SYNONYMS_FILE in err.value.message
