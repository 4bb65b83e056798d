"""The bundle the API-check tests judge calls against: one small OpenAPI spec,
``tests/fixtures/apicheck/api.yaml`` (an enum query parameter, a request schema with required and
deprecated properties, a bulk path, a deprecated operation the docs say will be removed and one
they do not, a literal segment beside a parameter one), built once per test session with the hash
embedder."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.fixture_builds import build_fixture_bundle

APICHECK_SPEC = Path(__file__).resolve().parent / "fixtures" / "apicheck" / "api.yaml"


@functools.cache
def build_apicheck_bundle(base: Path) -> Path:
    return build_fixture_bundle([f"openapi={APICHECK_SPEC}"], name="apicheck")
