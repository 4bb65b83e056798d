"""An honest miss over MCP (issue 12, item 6): `lookup_identifier` for a name the bundle never
writes is an empty result with a hint, not a confident unrelated answer; a name the docs write
only in a heading and a code span still resolves, through the mention index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp_client import McpClient, stdio_client_for, structured

PAGES = {
    "ops/server.md": "# Operations\n\n## Server Modes\n\nA server runs in one of three modes.\n\n"
    "## Running gadgetReindex\n\nStart `gadgetReindex` after an upgrade.\n",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    from atlas_core.build import build_bundle

    base = tmp_path_factory.mktemp("miss")
    for rel, text in PAGES.items():
        (base / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "docs" / rel).write_text(text, encoding="utf-8")
    bundle = base / "bundle"
    build_bundle([f"local={base / 'docs'}"], bundle, model="hash", progress=False)
    with stdio_client_for(["atlas-mcp", "--bundle", str(Path(bundle))]) as c:
        yield c


def test_an_unknown_name_is_an_empty_result_with_a_hint(client: McpClient) -> None:
    result = client.call("lookup_identifier", {"identifier": "serverModeMatcher"})
    assert not result.is_error
    data = structured(result)
    assert data["count"] == 0 and data["candidates"] == []
    assert "search_docs" in data["note"]
    assert "Server Modes" not in result.content[0].text


def test_a_name_only_a_heading_and_a_span_write_resolves(client: McpClient) -> None:
    data = structured(client.call("lookup_identifier", {"identifier": "gadgetReindex"}))
    best = data["candidates"][0]
    assert (best["file"], best["kind"], best["match"]) == ("ops/server.md", "mention", "exact")
