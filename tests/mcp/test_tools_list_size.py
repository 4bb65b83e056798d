"""The agent's first bill: `tools/list` is the same whatever bundle the server serves, so the
8,000-character budget measured on the demo holds for the full Collibra docs too (issue 31 found
8,274 there once; `benchmarks/agent_surface.py --bundle DIR` measures any bundle)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.agent_surface import RawServer

# Two real servers over stdio: .ci/run runs it, the quick command does not.
pytestmark = pytest.mark.stress

TOOLS_LIST_LIMIT = 8_000


def tools_list_chars(bundle: Path) -> tuple[int, str]:
    """The `tools/list` result as compact JSON, as the benchmark counts it."""
    server = RawServer(bundle)
    try:
        listed = server.request("tools/list", {})
    finally:
        server.close()
    text = json.dumps(listed, separators=(",", ":"), ensure_ascii=False)
    return len(text), text


def test_tools_list_does_not_grow_with_the_bundle(hash_bundle: Path) -> None:
    from atlas_core.demo import ensure_demo_bundle

    demo = ensure_demo_bundle(progress=False, model="hash")
    # The fixture corpus has an OpenAPI spec, several publications and identifiers, as the
    # real docs do; the demo has its sample pages.
    size, listed = tools_list_chars(hash_bundle)
    assert (size, listed) == tools_list_chars(demo)
    assert 0 < size <= TOOLS_LIST_LIMIT
    assert all(name in listed for name in ("search_docs", "check_code", "lookup_identifier"))
