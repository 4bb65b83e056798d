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
        [sys.executable, "-m", "atlas_ls.cli", "lookup", name, "--bundle", str(bundle)],
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


def test_an_endpoint_is_answered_once_with_its_other_pages(teapot: Path) -> None:
    from atlas_core.engine import Engine

    with Engine.open(teapot) as engine:
        # The spec's page and the client's page both document GET /pots: lookup finds both ...
        assert [c.file for c in engine.lookup("GET /pots", 5) if c.name == "GET /pots"] == [
            "teapot-api/pots.md",
            "client/pots-api.md",
        ]
        # ... and the answer names it once, the other page under `also`.
        resolved = engine.resolve("GET /pots", 5)
        assert [c.name for c in resolved].count("GET /pots") == 1
        assert [p.file for p in resolved[0].also] == ["client/pots-api.md"]
        # Workspace symbols list the operation once, whatever its spelling on each page.
        operations = [s for s in engine.symbols("findPots", 20) if s.kind == "operation"]
        assert [s.name.replace("_", "").lower() for s in operations].count("findpots") == 1
    out = lookup(teapot, "GET /pots")
    assert out.stdout.count("GET /pots  [endpoint") == 1
    assert "    also documented in: client/pots-api.md:" in out.stdout
