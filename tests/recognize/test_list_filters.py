"""A list-of-ids query name (`typeIds`) where an older spec lists only the single id (`typeId`) is
working code on newer API versions: never flagged, never rewritten to the singular. A real typo
beside it still is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from tests.fixture_builds import build_fixture_bundle

SPEC = Path(__file__).resolve().parent.parent / "fixtures" / "apicheck" / "list_filters.yaml"
BASE = "https://acme.collibra.com/rest/2.0"


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine.open(build_fixture_bundle([f"openapi={SPEC}"], name="list-filters")) as opened:
        yield opened


def test_list_forms_of_id_filters_are_not_flagged(engine: Engine) -> None:
    code = (
        "import requests\n"
        f'requests.get("{BASE}/assets", params={{"typeIds": [a, b], "statusIds": [s], "limit": 5}})\n'
    )
    assert engine.check_code(code, "python") == []


def test_a_typo_beside_them_still_is(engine: Engine) -> None:
    code = f'import requests\nrequests.get("{BASE}/assets", params={{"typeIds": [a], "limt": 5}})\n'
    [found] = engine.check_code(code, "python")
    assert found.check == "unknown-param" and "'limt'" in found.message


def test_a_misspelled_required_key_is_one_finding(tmp_path_factory: pytest.TempPathFactory) -> None:
    from tests.apicheck_bundle import build_apicheck_bundle

    base = "https://acme.collibra.com/rest/2.0"
    code = f'import requests\nrequests.post("{base}/assets", json={{"nmae": n, "domainId": d}})\n'
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as engine:
        found = engine.check_code(code, "python")
    # 'nmae' is reported once, with 'name' offered; 'name' is not also "missing".
    assert [f.check for f in found if "name" in f.message] == ["unknown-param"]
