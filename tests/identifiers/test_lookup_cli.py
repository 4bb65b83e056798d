"""`atlas lookup` as a subprocess over the Teapot bundle: a parameter or property says whose it
is, and a name the bundle never writes is an honest miss with a search hint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.parameter_fixtures import build_teapot_bundle


@pytest.fixture(scope="module")
def teapot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_teapot_bundle(tmp_path_factory.getbasetemp())


def lookup(bundle: Path, name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas_core", "lookup", name, "--bundle", str(bundle)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_parameter_names_the_operation_that_takes_it(teapot: Path) -> None:
    out = lookup(teapot, "nameMatchMode")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith(" 1. nameMatchMode  [query parameter of GET /")
    assert "[parameter," not in out.stdout


def test_a_name_never_written_is_not_documented(teapot: Path) -> None:
    out = lookup(teapot, "acmeGlossarySync")
    assert out.returncode == 0 and out.stdout == ""
    assert out.stderr.splitlines() == [
        "'acmeGlossarySync': not documented in this bundle",
        "hint: try `atlas search acmeGlossarySync`",
    ]
