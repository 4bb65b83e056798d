"""The bundle the call-context tests resolve against: one small OpenAPI spec,
``tests/fixtures/calls/calls-api.yaml`` (GET and POST of one path, a bulk path with POST and
DELETE, a path parameter, request schemas) and a Python-client page for GET /assets
(``tests/fixtures/calls/docs``), built once per test session with the hash embedder."""

from __future__ import annotations

import functools
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALLS_SPEC = ROOT / "tests" / "fixtures" / "calls" / "calls-api.yaml"
# A page in the shape of a generated Python client's docs: the same GET /assets, snake_case names.
CALLS_DOCS = ROOT / "tests" / "fixtures" / "calls" / "docs"


@functools.cache
def build_calls_bundle(base: Path) -> Path:
    from atlas_core.build import build_bundle

    out = base / "calls-fixture-bundle"
    if (out / "manifest.json").is_file():
        return out
    home = base / "calls-build-home"
    saved = {k: os.environ.get(k) for k in ("ATLAS_CONFIG", "ATLAS_DATA_DIR", "ATLAS_CACHE_DIR")}
    os.environ.update(
        ATLAS_CONFIG=str(home / "atlas.toml"),
        ATLAS_DATA_DIR=str(home / "data"),
        ATLAS_CACHE_DIR=str(home / "cache"),
    )
    try:
        build_bundle(
            [f"openapi={CALLS_SPEC}", f"local={CALLS_DOCS}"],
            out,
            model="hash",
            progress=False,
            name="calls",
        )
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return out
