"""search_docs over a bundle whose vectors were changed in place after the build: the answer
comes from the keyword list, with a note naming the file (the engine side is
tests/engine/test_damage_at_query.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp_client import McpClient, stdio_client_for


@pytest.fixture(scope="module")
def client(hash_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpClient]:
    bundle = tmp_path_factory.mktemp("damaged") / "bundle"
    shutil.copytree(hash_bundle, bundle)
    vectors = bundle / "vectors.npy"
    data = bytearray(vectors.read_bytes())
    data[128:] = bytes(len(data) - 128)  # same size, header intact: zero vectors
    vectors.write_bytes(bytes(data))
    with stdio_client_for(["atlas-mcp", "--bundle", str(bundle)]) as c:
        yield c


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_search_answers_from_the_intact_list_with_a_note(client: McpClient, mode: str) -> None:
    result = client.call("search_docs", {"query": "create asset", "mode": mode, "top_k": 3})
    assert not result.is_error
    answer = result.structured_content
    assert answer["count"] > 0
    assert "vectors.npy" in answer["note"] and "vector search is off" in answer["note"]
    assert "vectors.npy" in result.content[0].text
