"""Shapes the held-out identifier set (issue 30) showed lookup missing: an enum value a spec
table lists after `Values:`, a command-line option (`--flag`) a guide defines in a list, a
slashed name (`kit/search`) a guide defines. Each resolves to the page that defines it, not to
pages naming it or to another name in another spelling.

Bundles here are built from pages the tests write, with the hash embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.identifiers.extract.mention_scan import PageScan
from atlas_core.identifiers.store.places import DEFINITION

PAGES = {
    # A spec-like table: the field's values are defined in its row.
    "spec/gadgets.md": """# Gadgets

## GadgetSettings

| Field | Type | Required | Description |
|---|---|---|---|
| `paintKind` | `string` | no | How it is painted. Values: `GLOSSY_FINISH`, `MATTE_FINISH` and 2 more. Example: `Gadget`. |
""",
    # Names the values in passing, more often than the spec does.
    "guide/painting.md": """# Painting

Use `GLOSSY_FINISH` for shiny gadgets; `GLOSSY_FINISH` dries slowly, and `GLOSSY_FINISH`
costs more than `MATTE_FINISH`.
""",
    # A tool's options, each defined in a list, and the tool's skills by slashed name.
    "guide/sprocket-tool.md": """# Sprocket tool

```python3 -m tools.sprocket [--hostUrl] [--ownerName]```

* `--hostUrl` is the address of the sprocket host
* `--ownerName` is the owner of new sprockets
* `make_sprocket(ownerName=x)` is slow on large hosts

## Skills

| Skill | What it does |
|---|---|
| `kit/search-sprockets` | Finds sprockets by name |
""",
    # The same names in other spellings, defined: a field table of a model.
    "spec/models.md": """# Models

## Sprocket

| Field | Type | Description |
|---|---|---|
| `hostUrl` | `string` | The host. |
| `owner_name` | `string` | The owner. |
""",
    # Names the skill in passing.
    "guide/skills.md": """# Skills

See `kit/search-sprockets` for how to find one, and `kit/search-sprockets` again later.
""",
}


@pytest.fixture(scope="module")
def shapes_bundle(page_bundle) -> Path:
    return page_bundle("heldout-shapes", PAGES)


def _top_file(bundle: Path, identifier: str) -> str:
    with Engine.open([bundle]) as engine:
        found = engine.lookup(identifier, limit=5)
    assert found, identifier
    return found[0].file


def _definitions(page: str) -> set[str]:
    scan = PageScan(PAGES[page], page)
    return {key for keys, _, _, place in scan.occurrences() if place == DEFINITION for key in keys}


def test_values_listed_in_a_table_row_are_defined_there():
    defined = _definitions("spec/gadgets.md")
    assert {"=GLOSSY_FINISH", "=MATTE_FINISH"} <= defined
    # The example after the list is not one of the values.
    assert "=Gadget" not in defined


@pytest.mark.parametrize("value", ["GLOSSY_FINISH", '"MATTE_FINISH"'])
def test_an_enum_value_resolves_to_the_table_that_lists_it(shapes_bundle, value):
    assert _top_file(shapes_bundle, value) == "spec/gadgets.md"


def test_a_list_item_saying_what_an_option_is_defines_it_flag_and_all():
    defined = _definitions("guide/sprocket-tool.md")
    assert {"=--hostUrl", "=--ownerName"} <= defined
    # An expression is not a name the list defines.
    assert "=make_sprocket" not in defined


@pytest.mark.parametrize("option", ["--hostUrl", "--ownerName"])
def test_a_command_line_option_resolves_to_the_guide_defining_it(shapes_bundle, option):
    # Not to the model whose field has the same name without the dashes.
    assert _top_file(shapes_bundle, option) == "guide/sprocket-tool.md"


def test_a_slashed_name_resolves_to_the_page_defining_it(shapes_bundle):
    assert "$kit/search-sprockets" in _definitions("guide/sprocket-tool.md")
    assert _top_file(shapes_bundle, "kit/search-sprockets") == "guide/sprocket-tool.md"
