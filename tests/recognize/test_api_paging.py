"""A pagination page's parameters apply to every operation paged by offset and limit: the docs
show `countLimit` on one call as the example of all of them, so no paged call is flagged for it,
while an operation that is not paged still is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas_core.engine import Engine
from tests.fixture_builds import build_fixture_bundle

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "api_paging"
BASE = "https://acme.collibra.com/rest/2.0"


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    sources = [f"mirror={HERE}", f"openapi={HERE / 'api.yaml'}"]
    with Engine.open(build_fixture_bundle(sources, name="api-paging")) as opened:
        yield opened


def _checks(engine: Engine, path: str) -> list[str]:
    code = f'import requests\nrequests.get("{BASE}{path}", params={{"countLimit": 0}})\n'
    return [f.check for f in engine.check_code(code, "python")]


def test_the_paging_parameter_is_known_on_every_paged_operation(engine: Engine) -> None:
    assert _checks(engine, "/assets") == []  # the call the page shows
    assert _checks(engine, "/attributes") == []  # paged the same way


def test_an_operation_that_is_not_paged_still_flags_it(engine: Engine) -> None:
    assert _checks(engine, "/tags") == ["unknown-param"]


def test_a_paging_style_a_page_is_named_for_is_a_parameter_of_paged_operations(
    engine: Engine,
) -> None:
    # the page's example shows only offset and limit; its name says the style's parameter
    def checks(path: str) -> list[str]:
        code = f'import requests\nrequests.get("{BASE}{path}", params={{"marker": m}})\n'
        return [f.check for f in engine.check_code(code, "python")]

    assert checks("/attributes") == []
    assert checks("/tags") == ["unknown-param"]
