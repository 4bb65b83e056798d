"""Versions and entry points read from metadata folders, without importlib.metadata."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from atlas_core import metadata


def test_it_agrees_with_importlib_metadata_on_this_environment() -> None:
    for group in ("console_scripts", "pytest11", "atlas.commands"):
        ours = sorted((e.name, e.value) for e in metadata.entry_points(group))
        theirs = sorted((e.name, e.value) for e in importlib.metadata.entry_points(group=group))
        assert ours == theirs, group
    installed = list(importlib.metadata.distributions())
    assert len(installed) > 20
    for dist in installed:
        assert metadata.version(dist.metadata["Name"]) == dist.version
    assert metadata.version("no-such-distribution") is None


def _dist_info(site: Path, folder: str, entry_points: str = "") -> None:
    (site / folder).mkdir(parents=True)
    (site / folder / "METADATA").write_text("Metadata-Version: 2.1\nName: x\n", encoding="utf-8")
    if entry_points:
        (site / folder / "entry_points.txt").write_text(entry_points, encoding="utf-8")


def test_a_plugin_is_found_loaded_and_the_first_copy_on_the_path_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "kettle_plugin.py").parent.mkdir(parents=True)
    (first / "kettle_plugin.py").write_text("class Recognizer:\n    name = 'kettle'\n")
    _dist_info(
        first,
        "Kettle_Plugin-2.0.dist-info",
        "# a comment\n[atlas.recognizers]\nkettle = kettle_plugin:Recognizer [extra]\n\n"
        "[console_scripts]\nkettle = kettle_plugin:main\n",
    )
    _dist_info(second, "kettle_plugin-1.0.dist-info", "[atlas.recognizers]\nold = gone:x\n")
    (second / "legacy.egg-info").mkdir()
    (second / "legacy.egg-info" / "PKG-INFO").write_text("Name: legacy\nVersion: 3.1\n\nbody\n")
    monkeypatch.setattr(sys, "path", [str(first), str(tmp_path / "missing"), str(second)])
    (found,) = metadata.entry_points("atlas.recognizers")
    assert (found.name, found.value, found.dist.version) == (
        "kettle",
        "kettle_plugin:Recognizer [extra]",
        "2.0",
    )
    assert found.load().name == "kettle"
    assert metadata.version("kettle-plugin") == "2.0"  # names compare normalised
    assert metadata.version("legacy") == "3.1"


def test_a_zip_archive_on_the_path_is_left_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(
            "zipped-1.5.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\nVersion: 1.5\n"
        )
        zf.writestr("zipped-1.5.dist-info/entry_points.txt", "[atlas.recognizers]\nz = zmod:f\n")
    monkeypatch.setattr(sys, "path", [str(archive), *sys.path])
    assert metadata.distributions() is None
    assert metadata.version("zipped") == "1.5"
    assert [(e.name, e.value) for e in metadata.entry_points("atlas.recognizers")] == [
        ("z", "zmod:f")
    ]


def test_importing_atlas_and_its_plugins_does_not_import_importlib_metadata() -> None:
    code = (
        "import sys, atlas_core\n"
        "from atlas_core.recognize.registry import RecognizerSet\n"
        "RecognizerSet.default()\n"
        "print(atlas_core.__version__ != '0.0.0+unknown', "
        "[m for m in ('importlib.metadata', 'email', 'zipfile') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "[]"]
