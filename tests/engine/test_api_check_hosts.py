"""A document whose Collibra calls write the base path after a base the code does not show
(``f"{COLLIBRA}/rest/2.0/assets"``) shows that its unshown bases are hosts: a call there that
writes only a resource after one (``f"{SNOW}/assets"``, another service of the same script) is
not judged as Collibra's. Before, the file's sign of Collibra made every such call Collibra's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from tests.apicheck_bundle import build_apicheck_bundle


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def _checks(engine: Engine, code: str) -> list[tuple[int, str]]:
    return [(f.line, f.check) for f in engine.check_code(code, "python")]


TWO_SERVICES = """import os, requests

COLLIBRA = os.environ["COLLIBRA_URL"]
SNOW = os.environ["SNOW_URL"]
requests.get(f"{COLLIBRA}/rest/2.0/assets", params={"limit": 1})
requests.get(f"{SNOW}/assets", params={"sysparm_limit": 5})
"""


def test_a_resource_behind_a_host_of_another_service_is_not_judged(engine: Engine) -> None:
    assert _checks(engine, TWO_SERVICES) == []
    # Its own mistakes behind the base path are still found ...
    wrong = TWO_SERVICES.replace('"limit": 1', '"page": 1')
    assert _checks(engine, wrong) == [(4, "unknown-param")]
    # ... and where no call writes the base path, a base it does not show is still judged in a
    # file that names Collibra.
    alone = TWO_SERVICES.replace("/rest/2.0/assets", "/assets")
    assert (5, "unknown-param") in _checks(engine, alone)
