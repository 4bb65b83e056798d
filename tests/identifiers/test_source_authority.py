"""Source authority: each page knows who publishes it, and lookup ranks the vendor's own page of a
subject above a third party's (a community client's generated docs), saying which it shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from atlas_core.bundle import Bundle, bundle_problems
from atlas_core.engine import Engine
from atlas_core.errors import SourceError
from atlas_core.sources import load_sources, publisher_section
from atlas_core.sources.publisher import page_publishers, publisher_of_address
from atlas_core.types import Candidate
from atlas_ls.cli.commands.build import info_dict
from atlas_ls.lsp.hover import links_line
from tests.support.bundles import bundle_factory

CLIENT_URL = "https://github.com/somebody/gadget-client/blob/main/docs/GadgetsApi.md"
CLIENT_PAGE = f"""---
source_url: {CLIENT_URL}
---
# GadgetsApi

## paint_gadget

`paint_gadget(gadget_id, shade)`: paints one gadget.

| Name | Type | Description |
|---|---|---|
| gadget_id | str | The gadget. |
| shade | str | The new shade. |

## buff_gadget

`buff_gadget(gadget_id)`: a helper only this client has.
"""
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Collibra Gadget API", "version": "2.0"},
    "paths": {
        "/gadgets/{gadgetId}/shade": {
            "put": {
                "operationId": "paintGadget",
                "summary": "Paint a gadget.",
                "parameters": [
                    {
                        "name": "gadgetId",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "responses": {"200": {"description": "painted"}},
            }
        }
    },
}


@pytest.fixture(scope="module")
def gadgets() -> Path:
    return bundle_factory().build_pages(
        {"client/gadgets-api.md": CLIENT_PAGE}, name="gadgets", spec=SPEC
    )


def _without_publishers(bundle: Path, dest: Path) -> Path:
    """A copy of `bundle` as a build before format 1.4 wrote it: no publishers anywhere."""
    copy = bundle_factory().copy(bundle, dest)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest.pop("publishers")
    manifest["format_version"] = "1.3"
    for source in manifest["sources"]:
        source.pop("publisher", None)
        source.pop("publishers", None)
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return copy


def test_each_page_knows_its_publisher(gadgets: Path) -> None:
    bundle = Bundle.open(gadgets)
    assert bundle.publisher("client/gadgets-api.md") == "third-party"
    assert bundle.publisher("spec/untagged.md") == "vendor-spec"
    assert bundle.manifest["publishers"]["folders"] == {
        "client/": "third-party",
        "spec/": "vendor-spec",
    }
    local, spec = bundle.manifest["sources"]
    assert (local["publisher"], spec["publisher"]) == ("third-party", "vendor-spec")
    assert "third-party" in info_dict(bundle)["publishers"]


def test_the_vendors_definition_leads_over_a_clients_page_of_the_same_name(gadgets: Path) -> None:
    found = Engine.open(gadgets).lookup("paint_gadget")
    assert (found[0].file, found[0].publisher) == ("spec/untagged.md", "vendor-spec")
    assert "client/gadgets-api.md" in [c.file for c in found]
    client = next(c for c in found if c.file == "client/gadgets-api.md")
    assert client.publisher == "third-party"


def test_a_clients_page_still_wins_where_the_vendor_does_not_define_the_name(
    gadgets: Path,
) -> None:
    found = Engine.open(gadgets).lookup("buff_gadget")
    assert found[0].file == "client/gadgets-api.md"
    assert found[0].publisher == "third-party"


def test_a_bundle_without_publishers_opens_and_ranks_as_before(
    gadgets: Path, tmp_path: Path
) -> None:
    old = Bundle.open(_without_publishers(gadgets, tmp_path / "old"))
    assert not old.has_publishers and old.publisher("client/gadgets-api.md") == ""
    assert info_dict(old)["publishers"] == {}
    found = Engine.open(old.path).lookup("paint_gadget")
    # The name as written on the client's page, as lookup always ranked it.
    assert found[0].file == "client/gadgets-api.md" and found[0].publisher == ""


def test_verify_refuses_an_unknown_publisher_kind_naming_the_manifest(
    gadgets: Path, tmp_path: Path
) -> None:
    copy = bundle_factory().copy(gadgets, tmp_path / "odd")
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["publishers"]["folders"]["client/"] = "fan-club"
    (copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    problems = [p for p in bundle_problems(copy) if "publisher" in str(p)]
    assert len(problems) == 1
    assert problems[0].file == "manifest.json" and "'fan-club'" in str(problems[0])
    # A reader serves it, the unknown kind as no kind.
    assert Bundle.open(copy).publisher("client/gadgets-api.md") == ""


def test_hover_links_say_which_publisher_they_show() -> None:
    cand = Candidate("paint_gadget", "operation", "", 1, "", 1.0, "", publisher="third-party")
    assert "from a third-party client's docs" in links_line(cast(Any, None), cand)
    vendor = Candidate("paintGadget", "operation", "", 1, "", 1.0, "", publisher="vendor-spec")
    assert "from the vendor's API spec" in links_line(cast(Any, None), vendor)


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://developer.collibra.com/api/references", "vendor-portal"),
        ("https://productresources.collibra.com/docs/collibra", "vendor-portal"),
        ("https://github.com/collibra/chip/blob/main/README.md", "vendor-portal"),
        ("https://github.com/somebody/gadget-client", "third-party"),
        ("https://notcollibra.com/x", "third-party"),
        ("", ""),
    ],
)
def test_publisher_of_an_address(url: str, kind: str) -> None:
    assert publisher_of_address(url) == kind


def test_a_source_option_names_the_publisher_and_an_unknown_one_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nour own notes\n")
    assert page_publishers("local", [("notes.md", "")], {}) == {"notes.md": "team"}
    sources = load_sources([f"local:third-party={tmp_path}"])
    assert sources.publishers == {"notes.md": "third-party"}
    assert sources.descriptions[0]["publisher"] == "third-party"
    with pytest.raises(SourceError, match="unknown publisher 'fans'"):
        load_sources([f"local:fans={tmp_path}"])


def test_the_section_names_a_uniform_folder_once_and_mixed_pages_one_by_one() -> None:
    section = publisher_section(
        {"a/x.md": "team", "a/y.md": "team", "b/x.md": "team", "b/y.md": "third-party"}
    )
    assert section == {
        "folders": {"a/": "team"},
        "files": {"b/x.md": "team", "b/y.md": "third-party"},
    }
