"""`--workers N`: the supervisor loads the bundle once, before it forks, and each worker serves
that engine (shared copy-on-write) instead of loading a private copy."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from atlas_ls.mcp import context
from atlas_ls.mcp.context import AppContext, preload_for_workers, release_preloaded
from atlas_ls.mcp.options import ServerOptions


def test_a_forked_worker_serves_the_engine_its_supervisor_loaded(hash_bundle: Path) -> None:
    options = ServerOptions(bundles=(str(hash_bundle),), transport="http", stateless=True)
    before = set(threading.enumerate())
    preload_for_workers(options)
    try:
        inherited = context._inherited
        assert inherited is not None and inherited.ok
        # Nothing of the load may still run when the supervisor forks: a fork keeps one thread.
        assert set(threading.enumerate()) - before == set()
        engine = inherited.engine
        assert engine is not None and engine._parts[0].dense().ready  # vectors already float32
        reads, writes = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: adopts the engine and answers a hybrid search with it
            ok = False
            try:
                app = AppContext(options=options)
                app.load()
                ok = app.holder.engine is engine and bool(engine.search("asset", mode="hybrid"))
            finally:
                os.write(writes, b"1" if ok else b"0")
                os._exit(0)
        os.close(writes)
        answer = os.read(reads, 1)
        os.waitpid(pid, 0)
        assert answer == b"1"
    finally:
        release_preloaded()
    assert context._inherited is None
    # A worker started after the release (one replacing a dead worker) loads for itself.
    app = AppContext(options=options)
    try:
        app.load()
        assert app.holder.engine is not None and app.holder.engine is not engine
        assert app.loader.paths == (str(hash_bundle),)
    finally:
        app.close()


def test_a_bundle_that_cannot_load_is_left_to_the_workers(tmp_path: Path) -> None:
    options = ServerOptions(bundles=(str(tmp_path / "missing"),), transport="http")
    preload_for_workers(options)
    assert context._inherited is None
    app = AppContext(options=options)
    try:
        app.load()
        assert app.holder.engine is None
        assert app.load_error is not None and "missing" in app.load_error.message
    finally:
        app.close()
