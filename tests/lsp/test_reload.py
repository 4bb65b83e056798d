"""Hot reload in the language server: a flipped install is served without a restart, 100 requests
in flight across the swap all succeed and each comes wholly from one bundle, and a bundle that fails
verification is reported while the old one keeps serving."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from atlas_core.distribution.install import flip_current
from tests.lsp_support import server_env, start_client, stop_client, wait_until
from tests.reload_support import build_release

pytestmark = pytest.mark.asyncio(loop_scope="function")


def _versions(symbols: list[types.SymbolInformation | types.WorkspaceSymbol] | None) -> set[str]:
    return {s.name.split()[1] for s in symbols or [] if s.name.startswith("Release ")}


async def _symbols(client, query: str = "Release"):  # type: ignore[no-untyped-def]
    return await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))


async def test_swap_under_load_and_failed_bundle(tmp_path: Path) -> None:
    root = tmp_path / "install"
    v1, v2 = build_release(root, "v1"), build_release(root, "v2")
    flip_current(root, v1)
    client = await start_client(
        "visual-studio-code", ["--bundle", str(root / "current")], server_env(tmp_path / "home"),
        root=tmp_path,
    )  # fmt: skip
    try:
        for _ in range(100):
            if _versions(await _symbols(client)) == {"v1"}:
                break
            await asyncio.sleep(0.1)
        assert _versions(await _symbols(client)) == {"v1"}

        # Keep requests in flight, 20 at a time, from before the flip until the new bundle
        # answers. (Its "loaded bundle" log can arrive with a batch sent before the swap, all
        # answered by the old bundle: the loop waits for an answer from the new one.)
        flip_current(root, v2)
        answers: list[object] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while loop.time() < deadline:
            batch = await asyncio.gather(
                *(_symbols(client) for _ in range(20)), return_exceptions=True
            )
            answers += batch
            from_v2 = any(
                not isinstance(a, BaseException) and "v2" in _versions(a)  # type: ignore[arg-type]
                for a in batch
            )
            if from_v2 and len(answers) >= 100:
                break
        assert len(answers) >= 100
        assert not [a for a in answers if isinstance(a, BaseException)]
        assert all(len(_versions(a)) == 1 for a in answers)  # type: ignore[arg-type]
        seen = set().union(*(_versions(a) for a in answers))  # type: ignore[arg-type]
        assert seen == {"v1", "v2"}, seen  # requests were in flight on both sides of the swap
        assert _versions(await _symbols(client)) == {"v2"}

        broken = root / "releases" / "v3"
        shutil.copytree(v1, broken)
        (broken / "vectors.npy").write_bytes(b"\x93NUMPY garbage")
        flip_current(root, broken)
        shown = await wait_until(
            lambda: [m for m in client.messages if "not loaded" in m.message], timeout=20
        )
        assert shown[0].type == types.MessageType.Error
        assert "previous bundle keeps serving" in shown[0].message
        assert _versions(await _symbols(client)) == {"v2"}
    finally:
        await stop_client(client)


def _progress_kinds(client) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    return {
        str(token): [type(report).__name__ for report in reports]
        for token, reports in client.progress_reports.items()
    }


async def test_a_hot_reload_ends_the_progress_it_began(tmp_path: Path) -> None:
    # The reload's "loading" event carries the generation being replaced and its "loaded" event
    # the new one; the server began $/progress under the first and looked for the second to end
    # it, so the editor showed "Loading the Collibra docs bundle…" forever.
    root = tmp_path / "install"
    v1, v2 = build_release(root, "v1"), build_release(root, "v2")
    flip_current(root, v1)
    client = await start_client(
        "visual-studio-code", ["--bundle", str(root / "current")], server_env(tmp_path / "home"),
        root=tmp_path,
    )  # fmt: skip
    try:
        # The server starts watching for new bundles when it tells the client the first is in.
        await wait_until(lambda: any("Atlas: loaded" in m.message for m in client.log_messages))
        assert _versions(await _symbols(client)) == {"v1"}
        before = set(_progress_kinds(client))
        flip_current(root, v2)
        await wait_until(lambda: any("loaded bundle" in m.message for m in client.log_messages))
        assert _versions(await _symbols(client)) == {"v2"}
        reload_tokens = await wait_until(lambda: set(_progress_kinds(client)) - before)
        await wait_until(
            lambda: all(
                _progress_kinds(client)[token][-1:] == ["WorkDoneProgressEnd"]
                for token in reload_tokens
            ),
            timeout=10,
        )
        for token in reload_tokens:
            kinds = _progress_kinds(client)[token]
            assert kinds == ["WorkDoneProgressBegin", "WorkDoneProgressEnd"], (token, kinds)
    finally:
        await stop_client(client)
