"""`atlas diff OLD NEW` as a subprocess over two Teapot releases (tests/changes/fixtures.py):
readable text grouped by kind, JSON with stable keys, bundles that cannot be compared in full, and
paths that are not bundles."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from atlas_core.changes.facts import PLURALS

KINDS = set(PLURALS.values())
CHANGES = ("added", "removed", "changed")


def atlas_diff(*args: str | Path, data_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ) | ({"ATLAS_DATA_DIR": str(data_dir)} if data_dir else {})
    return subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "diff", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def section(text: str, kind: str) -> list[str]:
    """The lines of one kind's group: its heading with the counts, then one line per change."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{kind}: "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("  ")), None)
    return lines[start:end]


def test_the_text_groups_changes_by_kind_with_counts(teapot_1: Path, teapot_2: Path) -> None:
    out = atlas_diff(teapot_1, teapot_2)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith(f"old: teapot ({teapot_1}, built ")
    assert "same model and format: search results are comparable" in text
    assert section(text, "endpoints") == [
        "endpoints: 1 added, 2 removed",
        "  + GET /kettles/{kettleId}",
        "  - PATCH /pots/{potId}",
        "  - POST /pots/{potId}/pour",  # its only page, the pouring guide, is gone
    ]
    assert section(text, "operations") == [
        "operations: 1 added, 1 removed",
        "  + getKettle",
        "  - changePot",
    ]
    parameters = section(text, "parameters")
    assert parameters[0] == "parameters: 1 added, 5 removed, 3 changed"
    assert "  + GET /kettles/{kettleId} kettleId (path)" in parameters
    assert "  - PATCH /pots/{potId} sizeLitres (body)" in parameters
    assert "  ~ GET /pots limit (query): required: no -> yes" in parameters
    # One spec parameter shared by two operations changed in both; the spec writes the order.
    for endpoint in ("GET /kettles", "GET /pots"):
        line = (
            f"  ~ {endpoint} nameMatchMode (query): default: ANYWHERE -> START; enum: +ALL -EXACT"
        )
        assert line in parameters
    assert section(text, "schemas") == [
        "schemas: 1 added, 1 changed",
        "  + Kettle",
        "  ~ Pot: properties: +colour",
    ]
    assert section(text, "properties") == [
        "properties: 3 added",
        "  + Kettle.id",
        "  + Kettle.litres",
        "  + Pot.colour",
    ]
    assert "  + GET /pots" in section(text, "deprecations")
    pages = section(text, "pages")
    assert "  + guides/brewing.md" in pages and "  - guides/pouring.md" in pages
    assert "  ~ models/kettle-status.md" in pages
    assert "  ~ client/pots-api.md" not in pages  # the same bytes in both releases
    assert text.rstrip().endswith(" changes")


def test_json_has_every_kind_and_change_and_the_details(teapot_1: Path, teapot_2: Path) -> None:
    out = atlas_diff(teapot_1, teapot_2, "--json")
    assert out.returncode == 0, out.stderr
    diff = json.loads(out.stdout)
    assert set(diff) == {
        "old",
        "new",
        "comparable",
        "notes",
        "total",
        "counts",
        "changes",
        "disagreements",
    }
    assert diff["comparable"] == {"pages": True, "api": True, "vectors": True}
    assert diff["notes"] == []
    assert set(diff["counts"]) == set(diff["changes"]) == KINDS
    for kind in KINDS:
        assert set(diff["counts"][kind]) == set(diff["changes"][kind]) == set(CHANGES)
        for change, listed in diff["changes"][kind].items():
            assert diff["counts"][kind][change] == len(listed)
    assert diff["total"] == sum(sum(c.values()) for c in diff["counts"].values())
    assert diff["counts"]["endpoints"] == {"added": 1, "removed": 2, "changed": 0}
    changed = {c["name"]: c for c in diff["changes"]["parameters"]["changed"]}
    assert changed["GET /pots nameMatchMode (query)"] == {
        "name": "GET /pots nameMatchMode (query)",
        "details": ["default: ANYWHERE -> START", "enum: +ALL -EXACT"],
        "file": "teapot-api/pots.md",
    }
    assert diff["old"]["path"] == str(teapot_1) and diff["new"]["model"] == "hash-384"


def test_another_model_still_compares_pages_and_the_api(
    teapot_1_hash_128: Path, teapot_2: Path
) -> None:
    out = atlas_diff(teapot_1_hash_128, teapot_2)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2] == (
        "note: the bundles were built with different models (hash-128, 128 dims vs hash-384, 384 "
        "dims): pages and the API are compared; vectors and search scores are not comparable"
    )
    assert "search results are comparable" not in out.stdout
    assert section(out.stdout, "endpoints")[0] == "endpoints: 1 added, 2 removed"


def test_another_format_compares_pages_only(teapot_1: Path, teapot_2: Path, tmp_path: Path) -> None:
    # A release of a later format, as this Atlas would find it: the manifest and the identifier
    # table both say so (written here: no later format exists yet to build one with).
    future = shutil.copytree(teapot_2, tmp_path / "future")
    for rel, key, value in (("manifest.json", "format_version", "2.0"),
                            ("identifiers/meta.json", "version", 2)):  # fmt: skip
        data = json.loads((future / rel).read_text())
        (future / rel).write_text(json.dumps(data | {key: value}))
    out = atlas_diff(teapot_1, future, "--json")
    assert out.returncode == 0, out.stderr
    diff = json.loads(out.stdout)
    assert diff["comparable"] == {"pages": True, "api": False, "vectors": False}
    assert diff["notes"][0].startswith("the bundles have different format versions (1.4 vs 2.0)")
    assert diff["notes"][1].startswith("the new bundle's identifier table was not read (")
    assert diff["notes"][1].endswith("only pages are compared, not endpoints, parameters, "
                                     "schemas or deprecations")  # fmt: skip
    assert {c["name"] for c in diff["changes"]["pages"]["added"]} >= {"guides/brewing.md"}
    assert diff["total"] == sum(diff["counts"]["pages"].values())


def test_a_path_that_is_not_a_bundle_is_one_line(teapot_1: Path, tmp_path: Path) -> None:
    out = atlas_diff(tmp_path, teapot_1)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines()[0] == (
        f"atlas: error: {tmp_path} is not a bundle: it has no manifest.json"
    )
    assert out.stderr.splitlines()[1].startswith("  hint: pass a bundle folder")
    assert len(out.stderr.splitlines()) == 2

    named = atlas_diff(teapot_1, "no-such-release")
    assert named.returncode == 2 and "Traceback" not in named.stderr
    assert named.stderr.splitlines()[0] == (
        "atlas: error: no-such-release is not a bundle: no such folder, and no installed "
        "release is named so"
    )

    nothing_installed = atlas_diff("previous", teapot_1, data_dir=tmp_path / "data")
    assert nothing_installed.returncode == 2
    assert nothing_installed.stderr.splitlines() == [
        "atlas: error: `previous`: no bundle is installed or configured",
        "  hint: pass bundle folders instead, or install one with `atlas download`",
    ]
