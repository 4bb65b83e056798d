"""Vendor twins: a third party's page on a named schema brings the vendor's section on the same
schema just above it in hybrid and vector search; keyword search and bundles that do not say who
publishes their pages rank as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from atlas_core.search import SearchSettings, with_twins
from atlas_core.search.twins import vendor_twins
from tests.support.bundles import bundle_factory

CLIENT_PAGE = """---
source_url: https://github.com/somebody/gadget-client/blob/main/docs/GadgetPaintRequest.md
---
# GadgetPaintRequest

The body a python client sends to repaint one gadget.

## Properties

| Name | Type | Description |
|---|---|---|
| shade | str | The new shade, as a colour name. |
| coats | int | How many coats of paint. |
"""
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Collibra Gadget API", "version": "2.0"},
    "paths": {
        "/gadgets/{gadgetId}/shade": {
            "put": {
                "operationId": "paintGadget",
                "summary": "Paint a gadget.",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/GadgetPaintRequest"}
                        }
                    }
                },
                "responses": {"200": {"description": "painted"}},
            }
        }
    },
    "components": {
        "schemas": {
            "GadgetPaintRequest": {
                "type": "object",
                "description": "Repaints a gadget.",
                "properties": {"shade": {"type": "string"}, "coats": {"type": "integer"}},
            },
            "GadgetPolishRequest": {
                "type": "object",
                "description": "Buffs a gadget.",
                "properties": {"wax": {"type": "string"}},
            },
        }
    },
}
QUERY = "what does the python client send to repaint a gadget, its shade and coats"
CLIENT = "client/gadget-paint-request.md"
VENDOR = ("spec/schemas.md", "Schemas of the Collibra Gadget API > GadgetPaintRequest")


@pytest.fixture(scope="module")
def gadgets() -> Path:
    return bundle_factory().build_pages({CLIENT: CLIENT_PAGE}, name="twins", spec=SPEC)


def _search(bundle: Path, mode: str, twin_depth: int = 5) -> list[tuple[str, str]]:
    engine = Engine.open(bundle, settings=SearchSettings(twin_depth=twin_depth))
    try:
        return [(h.file, h.heading) for h in engine.search(QUERY, mode=mode, top_k=5)]
    finally:
        engine.close()


def test_a_twin_is_the_vendors_section_named_like_a_third_partys_page() -> None:
    titles = ["ChangeUserRequest", "ChangeUserRequest", "API", "Overview", "Users", "Users"]
    headings = [
        "ChangeUserRequest",
        "ChangeUserRequest > Properties",
        "API",
        "Overview",
        "Schemas > changeUserRequest",  # case aside, the same name
        "Schemas > API",  # capitals only: an acronym, not a schema's name
    ]
    third_party = [True, True, True, True, False, False]
    assert vendor_twins(titles, headings, third_party) == {0: 4, 1: 4}
    # a third party's own sections are never a twin, nor a bundle without vendor names
    assert vendor_twins(titles[:4], headings[:4], third_party[:4]) == {}


def test_with_twins_lifts_the_twin_above_its_page_within_the_depth_only() -> None:
    def section(row: int) -> tuple[int, int]:
        return row // 100, row // 10  # (page, section): rows 140 and 141 are one section

    found = [(1, 0.9), (2, 0.8), (3, 0.7), (141, 0.2)]
    lifted = with_twins(found, {2: 140}, section, depth=5)
    assert [row for row, _ in lifted] == [1, 141, 2, 3]  # its section's row further down moves
    assert 0.8 < lifted[1][1] < 0.8 + 1e-12
    assert [row for row, _ in with_twins(found, {2: 250}, section, depth=5)] == [1, 250, 2, 3, 141]
    assert with_twins(found, {3: 250}, section, depth=2) == found  # past the depth
    assert with_twins(found, {2: 5}, section, depth=5) == found  # its section ranks higher
    assert with_twins(found, {2: 250}, section, depth=0) == found
    # one twin per vendor page: a second section of a page already shown stays where it was
    both = with_twins(found, {1: 250, 2: 260}, section, depth=5)
    assert [row for row, _ in both] == [250, 1, 2, 3, 141]


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_the_vendors_section_comes_just_above_the_clients_page(gadgets: Path, mode: str) -> None:
    before = _search(gadgets, mode, twin_depth=0)
    assert before[0][0] == CLIENT and before.index(VENDOR) > 0
    after = _search(gadgets, mode)
    assert after[:2] == [VENDOR, before[0]]
    assert sorted(after) == sorted(before)  # the same hits, one moved


def test_keyword_search_and_a_bundle_without_publishers_rank_as_before(
    gadgets: Path, tmp_path: Path
) -> None:
    assert _search(gadgets, "keyword") == _search(gadgets, "keyword", twin_depth=0)
    old = bundle_factory().copy(gadgets, tmp_path / "old")
    manifest = json.loads((old / "manifest.json").read_text())
    manifest.pop("publishers")
    manifest["format_version"] = "1.3"
    for source in manifest["sources"]:
        source.pop("publisher", None)
        source.pop("publishers", None)
    (old / "manifest.json").write_text(json.dumps(manifest, indent=2))
    assert _search(old, "hybrid") == _search(gadgets, "hybrid", twin_depth=0)
