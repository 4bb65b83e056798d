"""Two releases of the Teapot docs (tests/parameter_fixtures.py) that differ the way API releases
do, built with the hash embedder, and the first release built again with another model.

Release 2 removes `PATCH /pots/{potId}`, adds `GET /kettles/{kettleId}` and a `Kettle` schema,
deprecates `GET /pots`, makes `limit` required, gives `nameMatchMode` the values START END
ANYWHERE ALL with the default START, adds the property `Pot.colour`, and on the written pages
removes the pouring guide, adds a brewing guide and rewrites the kettle-status page.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

from tests.fixture_builds import build_fixture_bundle
from tests.parameter_fixtures import PAGES, SPEC, build_teapot_bundle, write_pages, write_spec


def release_2_spec() -> dict[str, Any]:
    spec = copy.deepcopy(SPEC)  # the deep copy keeps nameMatchMode one dict in both operations
    paths, schemas = spec["paths"], spec["components"]["schemas"]
    del paths["/pots/{potId}"]
    find_pots = paths["/pots"]["get"]
    find_pots["deprecated"] = True
    match_mode = find_pots["parameters"][0]["schema"]
    match_mode["enum"] = ["START", "END", "ANYWHERE", "ALL"]
    match_mode["default"] = "START"
    spec["components"]["parameters"]["Limit"]["required"] = True
    paths["/kettles/{kettleId}"] = {
        "get": {
            "tags": ["Kettles"],
            "operationId": "getKettle",
            "summary": "Get a kettle",
            "parameters": [
                {"name": "kettleId", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "responses": {"200": {"description": "The kettle"}},
        }
    }
    schemas["Kettle"] = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "litres": {"type": "number"}},
    }
    schemas["Pot"]["properties"]["colour"] = {"type": "string", "enum": ["RED", "BLUE"]}
    return spec


def release_2_pages() -> dict[str, str]:
    pages = dict(PAGES)
    del pages["guides/pouring.md"]
    pages["guides/brewing.md"] = "# Brewing tea\n\n## Warm the pot\n\nRinse it with hot water.\n"
    pages["models/kettle-status.md"] = PAGES["models/kettle-status.md"] + "\nIt is FULL or EMPTY.\n"
    return pages


def release_1(base: Path) -> Path:
    return build_teapot_bundle(base)


@functools.cache
def release_2(base: Path) -> Path:
    src = base / "teapot-release-2-src"
    spec = src / "spec" / "teapot-api.json"
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(json.dumps(release_2_spec(), indent=1), encoding="utf-8")
    for name, text in release_2_pages().items():
        page = src / "docs" / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(text, encoding="utf-8")
    return build_fixture_bundle([f"local={src / 'docs'}", f"openapi={spec}"], name="teapot")


@functools.cache
def release_1_other_model(base: Path) -> Path:
    """Release 1's sources built with a 128-dimension hash model instead of the default 384."""
    src = base / "teapot-hash-128-src"
    model = src / "model"
    model.mkdir(parents=True, exist_ok=True)
    config = {"format": 1, "name": "hash-128", "kind": "hash", "pooling": "mean"}
    config |= {"normalize": True, "max_length": 256, "dims": 128}
    (model / "atlas_model.json").write_text(json.dumps(config), encoding="utf-8")
    spec = write_spec(src / "spec")
    docs = write_pages(src / "docs")
    return build_fixture_bundle(
        [f"local={docs}", f"openapi={spec}"], name="teapot", model=str(model)
    )
