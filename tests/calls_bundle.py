"""The bundle the call-context tests resolve against: one small OpenAPI spec,
``tests/fixtures/calls/calls-api.yaml`` (GET and POST of one path, a bulk path with POST and
DELETE, a path parameter, request schemas) and a Python-client page for GET /assets
(``tests/fixtures/calls/docs``), built once per test session with the hash embedder."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.fixture_builds import build_fixture_bundle

ROOT = Path(__file__).resolve().parent.parent
CALLS_SPEC = ROOT / "tests" / "fixtures" / "calls" / "calls-api.yaml"
# A page in the shape of a generated Python client's docs: the same GET /assets, snake_case names.
CALLS_DOCS = ROOT / "tests" / "fixtures" / "calls" / "docs"


@functools.cache
def build_calls_bundle(base: Path) -> Path:
    return build_fixture_bundle([f"openapi={CALLS_SPEC}", f"local={CALLS_DOCS}"], name="calls")
