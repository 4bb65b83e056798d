"""The docs as evidence in the API model: a crawled reference page's embedded spec (newer than
the spec file) defines operations, tutorials show names and endpoints in use, a docs notice says
an API no spec describes is removed; `atlas diff`/`atlas info` list where the sources disagree.

The bundle: the spec of `tests/apicheck_bundle.py` (version 2.0) plus the small mirror
``tests/fixtures/api_evidence`` (an embedded spec of version 2.1, a tutorial, a removal notice)."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.changes import diff_bundles, diff_text, source_disagreements
from atlas_core.engine import Engine
from atlas_core.identifiers import TABLE_DIR
from tests.apicheck_bundle import APICHECK_SPEC, build_apicheck_bundle
from tests.fixture_builds import build_fixture_bundle

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "api_evidence"
BASE = "https://acme.collibra.com/rest/2.0"


@functools.cache
def _evidence_bundle() -> Path:
    return build_fixture_bundle([f"mirror={DOCS}", f"openapi={APICHECK_SPEC}"], name="api-evidence")


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine.open(_evidence_bundle()) as opened:
        yield opened


def _py(line: str) -> str:
    return f"import requests\n{line}\n"


def test_a_parameter_only_the_newer_embedded_spec_has_is_known_and_named_from_its_page(
    engine: Engine,
) -> None:
    code = _py(f'requests.get("{BASE}/assets", params={{"typePublicIds": "x", "nme": "y"}})')
    [found] = engine.check_code(code, "python")
    assert found.check == "unknown-param" and "'nme'" in found.message
    # The finding follows the page's definition, and says so.
    assert "api/assets-reference.md" in found.rule
    assert found.href == "https://docs.example.test/api/references/assets"
    op = engine.api_operation("GET", f"{BASE}/assets")
    assert op is not None and "newer than api.yaml" in op.source


def test_an_operation_only_an_embedded_spec_defines_is_checked_from_it(engine: Engine) -> None:
    code = _py(f'requests.post("{BASE}/widgets", json={{"label": "a", "colour": "red"}})')
    [found] = engine.check_code(code, "python")
    assert found.check == "unknown-param" and "did you mean 'color'" in found.message
    assert "api/assets-reference.md" in found.rule


def test_a_query_key_a_tutorial_url_shows_is_never_unknown(engine: Engine) -> None:
    code = _py(f'requests.get("{BASE}/assets", params={{"countLimit": 0, "limit": 10}})')
    assert engine.check_code(code, "python") == []
    op = engine.api_operation("GET", f"{BASE}/assets")
    assert op is not None
    [shown] = [p for p in op.params if p.name == "countLimit"]
    assert "tutorials/paging.md" in shown.description


def test_a_key_a_docs_code_block_shows_is_never_unknown(engine: Engine) -> None:
    code = _py(f'requests.get("{BASE}/assets", params={{"shownHere": 1}})')
    assert engine.check_code(code, "python") == []


def test_an_endpoint_a_tutorial_curl_shows_is_not_unknown(engine: Engine) -> None:
    code = _py(f'requests.post("{BASE}/lookups", json={{"keywords": "x"}})')
    assert engine.check_code(code, "python") == []
    # ... while a real typo of a documented endpoint still is.
    code = _py(f'requests.get("{BASE}/asets")')
    assert [f.check for f in engine.check_code(code, "python")] == ["unknown-endpoint"]


def test_a_removed_api_no_spec_describes_gets_information_naming_the_page(engine: Engine) -> None:
    code = _py('requests.get("https://acme.collibra.com/rest/1.0/user/current")')
    [found] = engine.check_code(code, "python")
    assert found.severity == "information"
    assert "misc/legacy-api.md" in found.message + found.rule
    assert found.href == "https://docs.example.test/misc/legacy"
    # Other APIs no spec describes, and no notice names: nothing.
    for url in ("/rest/latest/assets", "/rest/oauth/v2/token", "/graphql/knowledgeGraph/v1"):
        code = _py(f'requests.get("https://acme.collibra.com{url}")')
        assert engine.check_code(code, "python") == []


def test_diff_and_info_list_where_the_page_and_the_spec_file_disagree(tmp_path: Path) -> None:
    found = source_disagreements(_evidence_bundle())
    [row] = [d for d in found if d["name"] == "typePublicIds"]
    assert row["operation"] == "GET /assets"
    assert (row["page_says"], row["file_says"]) == ("query parameter", "absent")
    assert row["file"] == "api.yaml" and row["follows"] == "api/assets-reference.md"
    diff = diff_bundles(build_apicheck_bundle(tmp_path), _evidence_bundle())
    assert "GET /assets typePublicIds: api/assets-reference.md says query parameter" in diff_text(
        diff
    )
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "info", str(_evidence_bundle()), "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert any(d["name"] == "typePublicIds" for d in json.loads(out)["disagreements"])


def test_a_bundle_without_the_evidence_file_checks_as_before(tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(_evidence_bundle(), old)
    # As a bundle built before the file existed: neither the file nor the manifest names it.
    rel = f"{TABLE_DIR}/api_evidence.json"
    (old / rel).unlink()
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    del manifest["files"][rel]
    manifest["identifiers"]["files"].remove(rel)
    del manifest["identifiers"]["api_evidence"]
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with Engine.open(old) as opened:
        code = _py(f'requests.get("{BASE}/assets", params={{"countLimit": 0}})')
        [found] = opened.check_code(code, "python")
        assert found.check == "unknown-param" and "api.yaml" in found.rule
    assert source_disagreements(old) == []
