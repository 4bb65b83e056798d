"""Served by the MCP server, the embedded demo says what it is: `get_bundle_info` and
`get_release_info` carry ``demo: true`` and open their text with a sentence an agent cannot miss
(tests/mcp/test_bundles.py checks that real bundles carry neither)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp_client import McpClient, stdio_client_for, structured


@pytest.fixture(scope="module")
def client(demo_bundle: Path) -> Iterator[McpClient]:
    with stdio_client_for(["atlas-mcp", "--bundle", str(demo_bundle)]) as c:
        yield c


@pytest.mark.parametrize("tool", ["get_bundle_info", "get_release_info"])
def test_info_tools_say_the_docs_are_the_demo(client: McpClient, tool: str) -> None:
    result = client.call(tool)
    assert structured(result)["demo"] is True
    first = result.content[0].text.splitlines()[0]
    assert first.startswith("[note: this server serves the embedded demo docs"), first
    assert "not Collibra's documentation" in first and "atlas download" in first
