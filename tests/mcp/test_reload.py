"""Hot reload in the MCP server: a bundle `atlas install` puts in place is served without a restart,
100+ tool calls in flight across the swap all succeed and each answer comes wholly from one bundle,
and a bundle that fails verification is reported in a log notification while the old one keeps
serving."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path
from typing import Any

from atlas_core.distribution.install import flip_current
from atlas_core.distribution.local import install_path
from tests.mcp_client import stdio_client_for, structured, wait_for
from tests.reload_support import build_release


def _versions(data: dict[str, Any]) -> set[str]:
    return {hit["title"].split()[1] for hit in data["hits"]}


def test_swap_under_load_and_failed_bundle(tmp_path: Path) -> None:
    root = tmp_path / "install"
    # v2 is a build elsewhere that `atlas install` copies in: releases/ holds only what is served.
    v1, v2 = build_release(root, "v1"), build_release(tmp_path / "build", "v2")
    flip_current(root, v1)
    args = {"query": "release details", "mode": "keyword", "top_k": 6}
    with stdio_client_for(["atlas-mcp", "--bundle", str(root / "current")]) as client:
        assert _versions(structured(client.call("search_docs", args))) == {"v1"}

        async def burst(session: Any) -> list[Any]:
            calls = [session.call_tool("search_docs", args) for _ in range(20)]
            return await asyncio.gather(*calls, return_exceptions=True)

        install_path(v2, root)  # verify, snapshot v1, flip `current`
        answers: list[Any] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            batch = client.run(burst)
            answers += batch
            # Until the new bundle answers one: its log line can arrive while a burst sent
            # before the swap is still being answered by the old one.
            answered = [a for a in batch if not isinstance(a, BaseException) and not a.is_error]
            if len(answers) >= 100 and any(_versions(structured(a)) == {"v2"} for a in answered):
                break
        assert len(answers) >= 100
        assert not [a for a in answers if isinstance(a, BaseException) or a.is_error]
        versions = [_versions(structured(a)) for a in answers]
        assert all(len(v) == 1 for v in versions)  # never a mix of two bundles
        assert set().union(*versions) == {"v1", "v2"}  # calls were in flight across the swap

        info = structured(client.call("get_bundle_info"))
        assert info["generation"] == 2 and info["last_reload_at"]
        assert _versions(structured(client.call("search_docs", args))) == {"v2"}

        broken = root / "releases" / "v3"
        shutil.copytree(v1, broken)
        (broken / "vectors.npy").write_bytes(b"\x93NUMPY garbage")
        flip_current(root, broken)
        failure = wait_for(lambda: [log for log in client.logs if "not loaded" in str(log.data)])
        assert failure[0].level == "error"
        assert _versions(structured(client.call("search_docs", args))) == {"v2"}
        info = structured(client.call("get_bundle_info"))
        assert "keeps serving" in (info["last_reload_error"] or "")
