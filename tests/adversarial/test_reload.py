"""Hot-reload corner cases (issue 10, item 9), against the real servers and the reloader itself.

(a) A "resealed" bundle (damaged, then re-hashed so its SHA-256s match) flipped in: the old bundle
    answers every request, none fails, and the failure is reported. Before, it was swapped in and
    almost every search failed until the next flip.
(b) A flip to a folder that is still being copied is refused; once the copy completes the bundle is
    loaded without another flip. Before, it was never loaded.
(c) The folder of the bundle being served is deleted: the server says so (and keeps answering from
    what it had loaded). Before, it reported that an install was "in progress" and hits pointed
    into files that were gone.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lsprotocol import types

from atlas_core.distribution.install import flip_current
from atlas_core.engine import WARM_MODES, Engine
from atlas_core.errors import BundleError
from atlas_core.serving.holder import EngineHolder
from atlas_core.serving.reloader import BundleReloader, ReloadEvent
from tests.lsp_support import server_env, start_client, stop_client, wait_until
from tests.mcp_client import stdio_client_for, structured
from tests.reload_support import build_release, reseal

QUERY = {"query": "release details", "mode": "keyword", "top_k": 6}


def _wait(predicate: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {predicate}")


@pytest.fixture
def install(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "install"
    releases = {"root": root, "v1": build_release(root, "v1"), "v2": build_release(root, "v2")}
    flip_current(root, releases["v1"])
    return releases


def resealed_keyword_damage(source: Path, target: Path) -> Path:
    """A copy of `source` whose keyword index names chunk rows past the table, re-hashed: it
    passes a check of hashes and breaks every keyword search."""
    shutil.copytree(source, target)
    path = target / "keyword" / "indices.npy"
    indices = np.load(path)
    np.save(path, np.full_like(indices, 10_000), allow_pickle=False)
    reseal(target, "keyword/indices.npy")
    return target


def resealed_identifier_damage(source: Path, target: Path) -> Path:
    """A copy whose sorted search keys point at rows the table does not have, re-hashed."""
    shutil.copytree(source, target)
    path = target / "identifiers" / "rows_search.npy"
    rows = np.load(path)
    np.save(path, np.full_like(rows, 1_000_000), allow_pickle=False)
    reseal(target, "identifiers/rows_search.npy")
    return target


def copy_all_but(source: Path, target: Path, held_back: tuple[str, ...]) -> None:
    """A copy under way: everything but `held_back`, which a later step copies."""
    shutil.copytree(source, target, ignore=lambda d, names: [n for n in names if n in held_back])


def _versions(data: dict[str, Any]) -> set[str]:
    return {hit["title"].split()[1] for hit in data["hits"]}


def _logs(client: Any, text: str) -> list[Any]:
    return [log for log in client.logs if text in str(log.data)]


# --- the reloader on its own -----------------------------------------------------------------


def test_warm_up_refuses_a_bundle_that_opens_but_cannot_answer(install: dict[str, Path]) -> None:
    """Without verify (so only the warm-up stands between the bundle and the users)."""
    root, current = install["root"], install["root"] / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    events: list[ReloadEvent] = []
    reloader = BundleReloader(
        holder, [current], Engine.open, on_event=events.append, verify=False, warm_up=WARM_MODES
    )
    broken = resealed_keyword_damage(install["v2"], root / "releases" / "v3")
    flip_current(root, broken)
    event = reloader.check()
    assert event is not None and event.kind == "failed", events
    assert "keyword/indices.npy" in event.message and "keeps serving" in event.message
    assert holder.generation == 1
    assert "v1" in holder.engine.search("release details", mode="keyword")[0].title  # type: ignore[union-attr]

    flip_current(root, install["v2"])
    assert reloader.check().kind == "loaded"  # type: ignore[union-attr]


def test_warm_up_loads_what_its_modes_serve_and_no_more(hash_bundle: Path) -> None:
    with Engine.open(hash_bundle) as engine:
        engine.warm_up(("lookup", "symbols"))
        assert engine.info().backend == ""  # the language server's modes: no embedding model
        part = engine._parts[0]
        assert part._dense is None  # nor the vectors: their float32 copy would cost memory
        engine.warm_up(WARM_MODES)
        assert engine.info().backend == "hash"
        assert part._dense is not None and part._dense.ready
        with pytest.raises(ValueError, match="unknown warm-up modes"):
            engine.warm_up(("lookup", "everything"))


def test_a_half_copied_bundle_is_loaded_once_the_copy_completes(install: dict[str, Path]) -> None:
    root, current = install["root"], install["root"] / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    events: list[ReloadEvent] = []
    reloader = BundleReloader(holder, [current], Engine.open, on_event=events.append)
    try:
        copying = root / "releases" / "v3"
        copy_all_but(install["v2"], copying, ("vectors.npy", "chunks.parquet"))
        flip_current(root, copying)
        event = reloader.check()
        assert event is not None and event.kind == "failed"
        assert "tried again" in event.message and "vectors.npy" in event.message
        for name in ("vectors.npy", "chunks.parquet"):
            shutil.copy2(install["v2"] / name, copying / name)
        # No flip, no file event: the retry found it (its event comes just after the swap).
        _wait(lambda: holder.generation == 2 and len(events) >= 3)
        assert [e.kind for e in events] == ["loading", "failed", "loaded"]
        assert "v2" in holder.engine.search("release details", mode="keyword")[0].title  # type: ignore[union-attr]
    finally:
        reloader.stop()


def test_a_copy_that_never_completes_is_given_up(install: dict[str, Path]) -> None:
    root, current = install["root"], install["root"] / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    events: list[ReloadEvent] = []
    reloader = BundleReloader(
        holder, [current], Engine.open, on_event=events.append, retry_for_s=2.0
    )
    try:
        copy_all_but(install["v2"], root / "releases" / "v3", ("vectors.npy",))
        flip_current(root, root / "releases" / "v3")
        reloader.check()
        _wait(lambda: len([e for e in events if e.kind == "failed"]) == 2, timeout=15)
        assert "still incomplete after 2 s" in events[-1].message
        assert holder.generation == 1 and "keeps serving" in (holder.last_error or "")
    finally:
        reloader.stop()


def test_a_deleted_bundle_is_reported_and_what_was_loaded_still_answers(
    install: dict[str, Path],
) -> None:
    root, current = install["root"], install["root"] / "current"
    engine = Engine.open(current)
    holder: EngineHolder[Engine] = EngineHolder(engine)
    events: list[ReloadEvent] = []
    reloader = BundleReloader(holder, [current], Engine.open, on_event=events.append)
    assert engine.search("release details", mode="keyword")  # loads the keyword index
    shutil.rmtree(install["v1"])
    event = reloader.check()
    assert event is not None and event.kind == "failed"
    assert "was deleted" in event.message and "atlas download" in event.message
    assert holder.last_error == event.message
    assert engine.info().extra["missing"] == [str(install["v1"])]
    assert engine.search("release details", mode="keyword")  # from what was loaded
    with pytest.raises(BundleError, match="was deleted after it was opened"):
        engine.lookup("Release v1 topic 1")  # the identifier table was never loaded

    flip_current(root, install["v2"])  # a new install is picked up as ever
    assert reloader.check().kind == "loaded"  # type: ignore[union-attr]


# --- the MCP server ----------------------------------------------------------------------------


def test_mcp_keeps_serving_through_a_resealed_bundle(install: dict[str, Path]) -> None:
    root = install["root"]
    with stdio_client_for(["atlas-mcp", "--bundle", str(root / "current")]) as client:
        assert _versions(structured(client.call("search_docs", QUERY))) == {"v1"}
        broken = resealed_keyword_damage(install["v2"], root / "releases" / "v3")

        async def burst(session: Any) -> list[Any]:
            calls = [session.call_tool("search_docs", QUERY) for _ in range(10)]
            return await asyncio.gather(*calls, return_exceptions=True)

        answers: list[Any] = []
        flip_current(root, broken)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _logs(client, "not loaded"):
            answers += client.run(burst)
        answers += client.run(burst)  # and after the verdict
        failed = [a for a in answers if isinstance(a, BaseException) or a.is_error]
        assert answers and failed == []
        assert all(_versions(structured(a)) == {"v1"} for a in answers)
        report = _logs(client, "not loaded")
        assert report and report[0].level == "error" and "keyword/indices.npy" in report[0].data
        info = structured(client.call("get_bundle_info"))
        assert info["generation"] == 1 and "keeps serving" in info["last_reload_error"]


def test_mcp_loads_a_half_copied_bundle_once_the_copy_completes(install: dict[str, Path]) -> None:
    root = install["root"]
    with stdio_client_for(["atlas-mcp", "--bundle", str(root / "current")]) as client:
        assert _versions(structured(client.call("search_docs", QUERY))) == {"v1"}
        copying = root / "releases" / "v3"
        copy_all_but(install["v2"], copying, ("vectors.npy", "chunks.parquet", "keyword"))
        flip_current(root, copying)
        _wait(lambda: _logs(client, "tried again"))
        assert _versions(structured(client.call("search_docs", QUERY))) == {"v1"}
        for name in ("vectors.npy", "chunks.parquet"):
            shutil.copy2(install["v2"] / name, copying / name)
        shutil.copytree(install["v2"] / "keyword", copying / "keyword")
        _wait(lambda: _logs(client, "loaded bundle"))
        assert _versions(structured(client.call("search_docs", QUERY))) == {"v2"}
        assert structured(client.call("get_bundle_info"))["generation"] == 2


def test_mcp_reports_a_deleted_bundle(install: dict[str, Path]) -> None:
    root = install["root"]
    with stdio_client_for(["atlas-mcp", "--bundle", str(root / "current")]) as client:
        assert _versions(structured(client.call("search_docs", QUERY))) == {"v1"}
        shutil.rmtree(install["v1"])
        report = _wait(lambda: _logs(client, "was deleted"))
        assert report[0].level == "error" and "atlas download" in report[0].data
        info = structured(client.call("get_bundle_info"))
        assert "was deleted" in info["last_reload_error"]
        answer = client.call("search_docs", QUERY)  # still answers from memory
        assert not answer.is_error and _versions(structured(answer)) == {"v1"}

        flip_current(root, install["v2"])  # and a new install heals it
        _wait(lambda: _logs(client, "loaded bundle"))
        assert _versions(structured(client.call("search_docs", QUERY))) == {"v2"}


# --- the language server -----------------------------------------------------------------------


def _lsp_versions(symbols: Any) -> set[str]:
    return {s.name.split()[1] for s in symbols or [] if s.name.startswith("Release ")}


@pytest.mark.asyncio(loop_scope="function")
async def test_lsp_keeps_serving_through_a_resealed_bundle_and_reports_a_deleted_one(
    install: dict[str, Path], tmp_path: Path
) -> None:
    root = install["root"]
    client = await start_client(
        "visual-studio-code", ["--bundle", str(root / "current")], server_env(tmp_path / "home"),
        root=tmp_path,
    )  # fmt: skip

    async def symbols() -> Any:
        return await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="Release"))

    try:
        for _ in range(100):
            if _lsp_versions(await symbols()) == {"v1"}:
                break
            await asyncio.sleep(0.1)
        broken = resealed_identifier_damage(install["v2"], root / "releases" / "v3")
        flip_current(root, broken)
        answers: list[Any] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while loop.time() < deadline and not [
            m for m in client.messages if "not loaded" in m.message
        ]:
            answers += await asyncio.gather(*(symbols() for _ in range(10)), return_exceptions=True)
        answers += await asyncio.gather(*(symbols() for _ in range(10)), return_exceptions=True)
        assert answers and not [a for a in answers if isinstance(a, BaseException)]
        assert all(_lsp_versions(a) == {"v1"} for a in answers)
        shown = [m for m in client.messages if "not loaded" in m.message]
        assert shown and shown[0].type == types.MessageType.Error
        assert "identifiers/rows_search.npy" in shown[0].message

        shutil.rmtree(install["v1"])
        deleted = await wait_until(
            lambda: [m for m in client.messages if "was deleted" in m.message], timeout=30
        )
        assert deleted[0].type == types.MessageType.Error
        assert _lsp_versions(await symbols()) == {"v1"}  # loaded before: still answers

        # A good install is picked up, warmed up on identifiers alone: no embedding model.
        flip_current(root, install["v2"])
        await wait_until(lambda: [m for m in client.log_messages if "loaded bundle" in m.message])
        assert _lsp_versions(await symbols()) == {"v2"}
        info = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="atlas.debugInfo")
        )
        assert info["modules"]["onnxruntime"] is False and info["last_error"] is None
        maps = Path(f"/proc/{info['pid']}/maps")
        if maps.exists():
            assert "onnxruntime" not in maps.read_text()
    finally:
        await stop_client(client)


def test_no_reload_thread_outlives_its_reloader(install: dict[str, Path]) -> None:
    """stop() ends the watcher and any pending retry (a server shutting down leaves nothing)."""
    root, current = install["root"], install["root"] / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    before = {t.ident for t in threading.enumerate()}
    reloader = BundleReloader(holder, [current], Engine.open, debounce_ms=50)
    reloader.start()
    copy_all_but(install["v2"], root / "releases" / "v3", ("vectors.npy",))
    flip_current(root, root / "releases" / "v3")
    _wait(lambda: holder.last_error and "tried again" in holder.last_error)
    reloader.stop()
    _wait(lambda: {t.ident for t in threading.enumerate()} <= before, timeout=10)
