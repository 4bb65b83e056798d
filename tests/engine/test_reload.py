"""Hot reload at the engine level: a flipped install link is picked up, a bad bundle is not."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from atlas_core.distribution.install import flip_current
from atlas_core.engine import Engine
from atlas_core.serving.holder import EngineHolder
from atlas_core.serving.reloader import BundleReloader, ReloadEvent
from tests.reload_support import build_release


def _wait(predicate, timeout: float = 15.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture()
def install(tmp_path: Path) -> dict[str, Path]:
    return {
        "root": tmp_path,
        "v1": build_release(tmp_path, "v1"),
        "v2": build_release(tmp_path, "v2"),
    }


def test_watcher_swaps_on_link_flip_and_keeps_serving_a_bad_one(install: dict[str, Path]) -> None:
    root = install["root"]
    flip_current(root, install["v1"])
    current = root / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    events: list[ReloadEvent] = []
    reloader = BundleReloader(
        holder, [current], Engine.open, on_event=events.append, debounce_ms=50
    )
    reloader.start()
    try:
        assert "v1" in holder.engine.search("assets", mode="keyword")[0].title  # type: ignore[union-attr]
        flip_current(root, install["v2"])
        assert _wait(lambda: holder.generation == 2), events
        assert "v2" in holder.engine.search("assets", mode="keyword")[0].title  # type: ignore[union-attr]
        assert [e.kind for e in events] == ["loading", "loaded"]

        broken = root / "releases" / "v3"
        shutil.copytree(install["v1"], broken)
        (broken / "chunks.parquet").write_bytes(b"not parquet")
        flip_current(root, broken)
        assert _wait(lambda: any(e.kind == "failed" for e in events)), events
        assert holder.generation == 2
        assert "keeps serving" in (holder.last_error or "")
        assert "v2" in holder.engine.search("assets", mode="keyword")[0].title  # type: ignore[union-attr]
    finally:
        reloader.stop()


def test_a_flip_before_the_watcher_starts_is_still_loaded(install: dict[str, Path]) -> None:
    """The servers open the bundle, then start the reloader: a flip in between must not be taken
    as already served (CI once caught the language server on v1 for good this way)."""
    root = install["root"]
    flip_current(root, install["v1"])
    current = root / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    flip_current(root, install["v2"])
    reloader = BundleReloader(holder, [current], Engine.open, debounce_ms=50)
    assert reloader.check() is not None
    assert "v2" in holder.engine.search("assets", mode="keyword")[0].title  # type: ignore[union-attr]
    assert reloader.check() is None  # and once loaded, the same link is not loaded again


def test_in_flight_requests_finish_on_one_bundle(install: dict[str, Path]) -> None:
    root = install["root"]
    flip_current(root, install["v1"])
    current = root / "current"
    holder: EngineHolder[Engine] = EngineHolder(Engine.open(current))
    reloader = BundleReloader(holder, [current], Engine.open, verify=False)
    failures: list[BaseException] = []
    mixed: list[set[str]] = []
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            engine = holder.engine  # one reference per request, as the servers do
            try:
                hits = engine.search("assets domains", mode="keyword", top_k=6)  # type: ignore[union-attr]
            except BaseException as exc:
                failures.append(exc)
                return
            versions = {h.title.split()[1] for h in hits}
            if len(versions) != 1:
                mixed.append(versions)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    try:
        for target in ("v2", "v1", "v2"):
            time.sleep(0.2)
            flip_current(root, install[target])
            event = reloader.check()
            assert event is not None and event.kind == "loaded"
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert failures == [] and mixed == []
    assert holder.generation == 4
