"""The tests' bundle factory (tests/support/bundles.py): one build per distinct recipe, a new one
when any input changes, and copies a test may change without touching the shared bundle."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.bundles import BundleFactory

PAGES = {"guide/a.md": "# Alpha\n\n## One\n\nThe first page.\n"}
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Alpha API", "version": "1"},
    "paths": {"/alphas": {"get": {"responses": {"200": {"description": "The alphas"}}}}},
}


def test_one_recipe_is_built_once_and_any_changed_input_builds_again(tmp_path: Path) -> None:
    factory = BundleFactory(tmp_path / "bundles", tmp_path / "home")
    first = factory.build_pages(PAGES, name="alpha")
    assert factory.build_pages(dict(PAGES), name="alpha") == first
    assert factory.builds == 1
    assert json.loads((first / "manifest.json").read_text())["name"] == "alpha"

    changed = factory.build_pages({"guide/a.md": PAGES["guide/a.md"] + "More.\n"}, name="alpha")
    renamed = factory.build_pages(PAGES, name="beta")
    with_spec = factory.build_pages(PAGES, name="alpha", spec=SPEC)
    assert len({first, changed, renamed, with_spec}) == 4
    assert factory.builds == 4


def test_a_source_folder_is_known_by_its_bytes(tmp_path: Path) -> None:
    factory = BundleFactory(tmp_path / "bundles", tmp_path / "home")
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    page = docs / "guide" / "a.md"
    page.write_text(PAGES["guide/a.md"], encoding="utf-8")
    first = factory.build([f"local={docs}"], name="docs")
    assert factory.build([f"local={docs}"], name="docs") == first
    page.write_text("# Alpha\n\nRewritten.\n", encoding="utf-8")
    assert factory.build([f"local={docs}"], name="docs") != first
    assert factory.builds == 2


def test_a_copy_changes_without_touching_the_shared_bundle(tmp_path: Path) -> None:
    factory = BundleFactory(tmp_path / "bundles", tmp_path / "home")
    shared = factory.build_pages(PAGES, name="alpha")
    before = (shared / "manifest.json").read_bytes()
    copy = factory.copy(shared, tmp_path / "mine" / "bundle")
    (copy / "manifest.json").write_text("{}", encoding="utf-8")
    assert (shared / "manifest.json").read_bytes() == before
    assert factory.build_pages(PAGES, name="alpha") == shared
