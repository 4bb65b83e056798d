"""Fixtures of the MCP tests. A module that needs other server arguments defines its own
`client`, which takes precedence over this one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_client import McpClient, stdio_client_for


@pytest.fixture(scope="module")
def client(hash_bundle: Path) -> Iterator[McpClient]:
    """`atlas-mcp` over the fixture bundle on stdio, driven by the MCP SDK client."""
    with stdio_client_for(["atlas-mcp", "--bundle", str(hash_bundle)]) as c:
        yield c


@pytest.fixture(scope="module")
def tools(client: McpClient) -> dict[str, Any]:
    """The server's tools by name, as listed to the client."""
    return {t.name: t for t in client.run(lambda s: s.list_tools()).tools}
