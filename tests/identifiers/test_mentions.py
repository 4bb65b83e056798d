"""The mention index (issue 12, items 1, 3 and 6): built from pages, stored as plain arrays, read
back, checked by `atlas verify`, optional for older bundles, and ranked with the identifier table.

Bundles here are built from pages the tests write (`conftest.PAGES`), with the hash embedder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.identifiers.store.mentions import MentionBuilder, MentionIndex
from atlas_core.identifiers.store.places import CODE, DEFINITION, HEADING, SPAN, TABLE
from atlas_core.recognize import scan_calls
from tests.identifiers.mention_pages import PAGES
from tests.reload_support import reseal

ATLAS = [sys.executable, "-m", "atlas_ls.cli"]


def atlas(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ATLAS, *map(str, args)], capture_output=True, text=True, timeout=120)


# --- build -> arrays -> reader ------------------------------------------------------------------


def test_round_trip_keeps_place_count_section_and_line(tmp_path):
    builder = MentionBuilder()
    for rel, text in PAGES.items():
        builder.add_page(rel, f"https://docs.test/{rel}", text, "", generated=False)
    builder.write(tmp_path)
    index = MentionIndex.open(tmp_path / "mentions")
    assert index is not None
    try:
        by_file = {m.file: m for m in index.rows("=gizmoMatchMode")}
        assert set(by_file) == {"guide/widget-parameters.md", "guide/tutorial.md"}
        defined = by_file["guide/widget-parameters.md"]
        assert defined.places == DEFINITION and defined.count == 1
        assert (defined.line, defined.anchor) == (7, "query-parameters")
        assert defined.url == "https://docs.test/guide/widget-parameters.md"
        passing = by_file["guide/tutorial.md"]
        assert passing.places == SPAN and passing.count == passing.section_count == 3
        # The compact key gathers every spelling; a table cell that is not the first is TABLE.
        assert {m.file for m in index.rows("~gizmomatchmode")} == set(by_file)
        anywhere = {m.file: m.places for m in index.rows("=ANYWHERE")}
        assert anywhere == {"guide/widget-parameters.md": TABLE, "guide/tutorial.md": SPAN}
        sync = {m.file: m for m in index.rows("=sprocketSync")}
        assert sync["guide/sprocket-sync.md"].places == HEADING | SPAN
        # Command lines without their prompt, and URL paths without scheme, host and base.
        (jar,) = index.rows("$./gradlew sprocketJar")
        assert (jar.file, jar.places, jar.line) == ("guide/tutorial.md", CODE, 9)
        (path,) = index.rows("/acme/api/v9/widgets/{}")
        assert path.count == 2
        assert index.rows("=nothingLikeThis") == []
    finally:
        index.close()


def test_a_sentence_heading_is_about_its_code_not_its_plain_words(tmp_path):
    page = (
        "# Lookup keys\n\n"
        "## Where to get each id for a widget\n\nText.\n\n"
        "## How the `token` and widgetKey fields relate\n\nText.\n\n"
        "## Widget id\n\nText.\n"
    )
    builder = MentionBuilder()
    builder.add_page("keys.md", "", page, "", generated=False)
    builder.write(tmp_path)
    index = MentionIndex.open(tmp_path / "mentions")
    assert index is not None
    try:
        # "id" in a sentence-like heading is not its subject; the short "Widget id" is.
        (ident,) = index.rows("=id")
        assert (ident.places, ident.line) == (HEADING, 11)
        # A long heading is still about what it writes as code: a span, a code-shaped word.
        assert [m.places for m in index.rows("=token")] == [HEADING]
        assert [m.places for m in index.rows("=widgetKey")] == [HEADING]
        assert index.rows("=relate") == [] and index.rows("=each") == []
        # A short title or heading names its subject with every word.
        assert [m.line for m in index.rows("=Lookup")] == [1]
    finally:
        index.close()


def test_bases_are_learned_from_the_pages_and_the_specs_paths():
    builder = MentionBuilder()
    builder.add_page("a.md", "", PAGES["guide/tutorial.md"], "", generated=False)
    assert builder.bases(["/widgets/{widgetId}"]) == ["/acme/api/v9"]
    assert builder.bases(["/sprockets"]) == []  # no endpoint is written under a base


def test_the_build_writes_the_index_into_the_bundle(widget_bundle):
    manifest = json.loads((widget_bundle / "manifest.json").read_text())
    assert manifest["format_version"] == "1.4"
    section = manifest["mentions"]
    assert section["format"] == "atlas-mentions" and section["rows"] > 0
    assert set(section["files"]) <= set(manifest["files"])
    meta = json.loads((widget_bundle / "mentions" / "meta.json").read_text())
    assert meta["bases"] == ["/acme/api/v9"]
    assert not list(widget_bundle.rglob("*.pkl"))


# --- ranking ----------------------------------------------------------------------------------


def _top(bundle: Path, identifier: str):
    with Engine.open([bundle]) as engine:
        found = engine.lookup(identifier, limit=5)
    assert found, identifier
    return found[0], found


def test_a_definition_outranks_a_mention_made_more_often(widget_bundle):
    top, found = _top(widget_bundle, "gizmoMatchMode")
    # The spec's own page defines it too; a written parameter table ranks with it, and the
    # tutorial that names it three times in passing comes after both.
    files = [c.file for c in found]
    assert top.file != "guide/tutorial.md"
    assert files.index("guide/widget-parameters.md") < files.index("guide/tutorial.md")
    assert top.confidence > found[files.index("guide/tutorial.md")].confidence


def test_the_page_about_a_name_outranks_a_page_naming_it_in_passing(widget_bundle):
    top, found = _top(widget_bundle, '"sprocketSync"')
    assert (top.file, top.kind, top.match) == ("guide/sprocket-sync.md", "mention", "exact")
    assert top.anchor == "the-sprocketsync-job"
    assert "guide/tutorial.md" in [c.file for c in found[1:]]


def test_a_name_written_anywhere_yields_a_candidate(widget_bundle):
    top, _ = _top(widget_bundle, "$ ./gradlew sprocketJar")
    assert (top.file, top.match) == ("guide/tutorial.md", "exact")
    top, _ = _top(widget_bundle, "pageToken=abc")
    assert top.file == "guide/widget-parameters.md"


@pytest.mark.parametrize(
    "spelling",
    ["/acme/api/v9/widgets/7", "https://h.example/acme/api/v9/widgets/{widgetId}", "/widgets/8"],
)
def test_paths_meet_across_base_paths_learned_from_the_corpus(widget_bundle, spelling):
    top, _ = _top(widget_bundle, spelling)
    assert (top.kind, top.method, top.path) == ("endpoint", "GET", "/widgets/{widgetId}")


def test_a_path_the_docs_write_under_a_base_resolves_without_it(widget_bundle):
    top, _ = _top(widget_bundle, "/gadgets/archive")
    assert (top.file, top.kind, top.match) == ("guide/tutorial.md", "mention", "normalized")


# --- honest misses ----------------------------------------------------------------------------


def test_an_unknown_name_is_not_matched_to_loose_words(widget_bundle):
    # "Server Modes" is a heading here; a name that shares a word with it is still a miss.
    with Engine.open([widget_bundle]) as engine:
        assert engine.lookup("serverModeSwitch", limit=5) == []
        assert engine.lookup("how do modes work", limit=5) == []


def test_cli_says_not_documented_with_a_search_hint(widget_bundle):
    out = atlas("lookup", "serverModeSwitch", "--bundle", widget_bundle)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert lines == [
        "'serverModeSwitch': not documented in this bundle",
        "hint: try `atlas search serverModeSwitch`",
    ]
    found = atlas("lookup", "sprocketSync", "--bundle", widget_bundle)
    assert found.returncode == 0 and "guide/sprocket-sync.md" in found.stdout


def test_a_name_only_a_team_bundle_writes_resolves_there(hash_bundle, page_bundle):
    team = page_bundle(
        "team",
        {
            "team/sync.md": "# Glossary sync\n\n## Running acmeGlossarySync\n\n"
            "Start `acmeGlossarySync` after the nightly full sync.\n"
        },
    )
    with Engine.open([hash_bundle, team]) as engine:
        found = engine.lookup("acmeGlossarySync", limit=5)
    assert found and all(c.bundle.startswith("team") for c in found)
    assert (found[0].file, found[0].line) == ("team/sync.md", 3)


# --- older bundles and damaged indexes --------------------------------------------------------


def _without_mentions(bundle: Path, target: Path) -> Path:
    """`bundle` as a format 1.0 writer left it: no mentions/ and no manifest section."""
    shutil.copytree(bundle, target)
    shutil.rmtree(target / "mentions")
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["format_version"] = "1.0"
    del manifest["mentions"]
    manifest["files"] = {
        k: v for k, v in manifest["files"].items() if not k.startswith("mentions/")
    }
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return target


def test_a_bundle_without_mentions_serves_from_the_table(widget_bundle, tmp_path):
    old = _without_mentions(widget_bundle, tmp_path / "old")
    assert atlas("verify", old).returncode == 0
    with Engine.open([old]) as engine:
        top = engine.lookup("getWidget", limit=3)[0]
        assert (top.kind, top.path) == ("operation", "/widgets/{widgetId}")
        assert engine.lookup("sprocketSync", limit=3) == []  # only the mention index knew it
    doctor = atlas("doctor", "--bundle", old, "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    mention = checks[f"mentions {old}"]
    assert mention["status"] == "MISS"
    assert mention["fix"].startswith("rebuild it: atlas build --source local=")


@pytest.mark.parametrize(
    "rel", ["mentions/row_file.npy", "mentions/keys.txt", "mentions/key_starts.npy"]
)
def test_verify_refuses_a_truncated_mention_file_naming_it(widget_bundle, tmp_path, rel):
    damaged = shutil.copytree(widget_bundle, tmp_path / "b")
    data = (damaged / rel).read_bytes()
    (damaged / rel).write_bytes(data[: len(data) // 2])
    out = atlas("verify", damaged)
    assert out.returncode != 0
    assert rel in out.stdout + out.stderr


def _corrupted(bundle: Path, target: Path, rel: str, edit) -> Path:
    damaged = shutil.copytree(bundle, target)
    edit(damaged / rel)
    reseal(damaged, rel)
    return damaged


def _swap_first_keys(path: Path) -> None:
    keys = path.read_text(encoding="utf-8").split("\n")
    keys[0], keys[1] = keys[1], keys[0]
    path.write_text("\n".join(keys), encoding="utf-8")


def _page_out_of_range(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-4:] = (10_000).to_bytes(4, "little")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("rel", "edit", "says"),
    [
        ("mentions/keys.txt", _swap_first_keys, "not sorted"),
        ("mentions/row_file.npy", _page_out_of_range, "pages of files.txt"),
    ],
)
def test_verify_refuses_a_resealed_corrupt_mention_file_naming_it(
    widget_bundle, tmp_path, rel, edit, says
):
    damaged = _corrupted(widget_bundle, tmp_path / "b", rel, edit)
    out = atlas("verify", damaged)
    assert out.returncode != 0
    problem = next(line for line in out.stdout.splitlines() if rel in line)
    assert says in problem


def test_a_lookup_on_a_corrupt_row_fails_naming_the_file(widget_bundle, tmp_path):
    from atlas_core.errors import BundleError

    damaged = _corrupted(widget_bundle, tmp_path / "b", "mentions/row_file.npy", _page_out_of_range)
    index = MentionIndex.open(damaged / "mentions")
    assert index is not None
    keys = (damaged / "mentions" / "keys.txt").read_text(encoding="utf-8").split("\n")
    with pytest.raises(BundleError, match=r"row_file\.npy"):
        index.rows(keys[-1])
    index.close()


@pytest.mark.parametrize("bad", ["a" * 10_000, "\x00\x01\x02", "\ud800abc", "$ ", "/" * 3000])
def test_bad_input_is_an_empty_answer(widget_bundle, bad):
    with Engine.open([widget_bundle]) as engine:
        try:
            found = engine.lookup(bad, limit=5)
        except Exception as exc:  # only the engine's own refusal of an empty query is allowed
            assert type(exc).__name__ == "QueryError", exc
            return
    assert isinstance(found, list)


def _resolved(bundle: Path, method: str, url: str) -> tuple[str, str, str] | None:
    site = next(
        s.site
        for s in scan_calls(f'import requests\nrequests.{method}("{url}")\n', "python")
        if s.site.role == "endpoint"
    )
    with Engine.open(bundle) as engine:
        target = engine.resolve_call(site)
    return None if target is None else (target.method, target.path, target.operation.file)


def test_an_endpoint_only_a_page_shows_in_use_resolves_to_that_page(widget_bundle):
    """No spec defines POST /gadgets/archive; the tutorial's curl shows it in use, so a call of it
    is that page's endpoint. A path with a part the code computes, or one no page names, stays
    unresolved, and a path the spec defines still resolves to the spec."""
    host = "https://h.example/acme/api/v9"
    assert _resolved(widget_bundle, "post", f"{host}/gadgets/archive") == (
        "POST",
        "/acme/api/v9/gadgets/archive",
        "guide/tutorial.md",
    )
    assert _resolved(widget_bundle, "post", f"{host}/gadgets/unarchive") is None
    spec = _resolved(widget_bundle, "get", "https://h.example/widgets/42")
    assert spec is not None and spec[:2] == ("GET", "/widgets/{widgetId}")
