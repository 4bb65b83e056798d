"""Opening the engine in the background and installing it in the server's one holder.

`main()` starts the first load before the protocol library is even imported, so the identifier
index is usually open by the time the client sends ``initialized``. Every later load (a changed
``atlas.bundle`` setting, the ``atlas.reload`` command, a hot reload) goes through `request`, which
swaps the holder's engine in one step; requests that already hold the old engine finish on it.
A load that fails leaves whatever was serving in place.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from atlas_core.errors import AtlasError, BundleError
from atlas_core.serving.holder import EngineHolder

logger = logging.getLogger(__name__)

DEFAULT_KEY = ("<default>",)
OLD_ENGINE_GRACE_S = 30.0  # in-flight requests may still read the engine a swap replaced
DEMO_BUILD_TIMEOUT_S = 900


@dataclass(frozen=True, slots=True)
class LoadResult:
    seq: int
    key: tuple[str, ...]
    engine: Any | None
    paths: tuple[str, ...]
    error: str  # "" on success
    ms: float
    superseded: bool = False  # a newer request replaced this one before it finished
    unconfigured: bool = False  # failed only because no bundle is configured anywhere

    @property
    def ok(self) -> bool:
        return self.engine is not None and not self.superseded


def open_engine(paths: Sequence[str]) -> Any:
    from atlas_core.engine import Engine

    engine = Engine.open([str(p) for p in paths])
    warm_up(engine)
    return engine


def warm_up(engine: Any) -> None:
    """Build the identifier indexes now, on the loading thread, instead of in the first hover.

    The engine builds its lookup tables lazily; one exact lookup of a name the table holds builds
    them (a miss would also load the fuzzy matcher and the keyword fallback, which hover never
    needs). The deprecation list is read for the diagnostics of the first opened document.
    """
    try:
        first = engine.symbols("", limit=1)
        if first:
            engine.lookup(first[0].name, limit=1)
        engine.deprecations()
    except Exception:  # a warm-up must never fail a load
        logger.debug("warming up the engine failed", exc_info=True)


def build_demo_in_subprocess() -> str:
    """Build (or find) the embedded demo bundle in another process.

    Building embeds text with the model; doing it here would load onnxruntime into the language
    server, which only ever needs the identifier table.
    """
    code = (
        "from atlas_core.demo import ensure_demo_bundle; print(ensure_demo_bundle(progress=False))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=DEMO_BUILD_TIMEOUT_S,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise BundleError(
            f"no bundle configured and the demo bundle could not be built: {tail}",
            hint="set atlas.bundle, pass --bundle DIR, or run `atlas download`",
        )
    return proc.stdout.strip().splitlines()[-1]


class BundleLoader:
    """Opens engines on one background thread and swaps them into `holder`."""

    def __init__(
        self,
        holder: EngineHolder[Any],
        *,
        opener: Callable[[Sequence[str]], Any] = open_engine,
        allow_demo: bool = True,
    ) -> None:
        self.holder = holder
        self._opener = opener
        self._allow_demo = allow_demo
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atlas-load")
        self._lock = threading.Lock()
        self._seq = 0
        self._key: tuple[str, ...] | None = None
        self.pending: Future[LoadResult] | None = None
        self.last: LoadResult | None = None
        self.paths: tuple[str, ...] = ()  # the bundles the current engine was opened from
        self.listeners: list[Callable[[LoadResult], None]] = []
        self.on_demo_build: Callable[[], None] | None = None

    @property
    def seq(self) -> int:
        return self._seq

    def loading(self) -> bool:
        return self.pending is not None and not self.pending.done()

    def request(
        self, explicit: Sequence[str], *, force: bool = False, allow_demo: bool = False
    ) -> Future[LoadResult] | None:
        """Open `explicit` bundle paths (empty: the default resolution) unless already current.

        With `allow_demo`, an empty resolution falls back to the embedded demo bundle, built in a
        subprocess on first use; the server asks for that only once the client has said which
        bundle it wants, so a configured bundle never waits behind a demo build.
        """
        key = tuple(str(p) for p in explicit) or DEFAULT_KEY
        with self._lock:
            if not force and key == self._key:
                return self.pending
            self._seq += 1
            seq = self._seq
            self._key = key
            future = self._executor.submit(self._load, seq, key, tuple(explicit), allow_demo)
            self.pending = future
        future.add_done_callback(self._notify)
        return future

    def _resolve(self, explicit: tuple[str, ...], allow_demo: bool) -> list[str]:
        from atlas_core.serving.locator import resolve_bundle_paths

        try:
            return [str(p) for p in resolve_bundle_paths(list(explicit) or None, allow_demo=False)]
        except BundleError as exc:
            if explicit:
                raise
            if not (allow_demo and self._allow_demo):
                raise _Unconfigured(exc) from None
        if self.on_demo_build is not None:
            self.on_demo_build()
        return [build_demo_in_subprocess()]

    def _load(
        self, seq: int, key: tuple[str, ...], explicit: tuple[str, ...], allow_demo: bool
    ) -> LoadResult:
        t0 = time.perf_counter()
        paths: tuple[str, ...] = ()
        try:
            paths = tuple(self._resolve(explicit, allow_demo))
            engine = self._opener(paths)
        except _Unconfigured as exc:
            result = self._failed(seq, key, paths, exc.error.one_line(), t0)
            return replace(result, unconfigured=True)
        except AtlasError as exc:
            return self._failed(seq, key, paths, exc.one_line(), t0)
        except Exception as exc:  # a broken bundle can raise anything; the server must live on
            logger.exception("opening bundle %s failed", ", ".join(paths) or "(default)")
            return self._failed(seq, key, paths, f"{type(exc).__name__}: {exc}", t0)
        ms = (time.perf_counter() - t0) * 1000
        old = None
        with self._lock:
            if seq != self._seq:
                superseded = True
            else:
                superseded = False
                old = self.holder.swap(engine)
                self.paths = paths
        if superseded:
            _close(engine)
            return LoadResult(seq, key, None, paths, "", ms, superseded=True)
        if old is not None and old is not engine:
            timer = threading.Timer(OLD_ENGINE_GRACE_S, _close, args=(old,))
            timer.daemon = True
            timer.start()
        logger.info("opened bundle %s in %.0f ms", ", ".join(paths), ms)
        return LoadResult(seq, key, engine, paths, "", ms)

    def _failed(
        self, seq: int, key: tuple[str, ...], paths: tuple[str, ...], error: str, t0: float
    ) -> LoadResult:
        logger.warning("cannot open bundle: %s", error)
        with self._lock:
            if seq == self._seq:
                self.holder.last_error = error
        return LoadResult(seq, key, None, paths, error, (time.perf_counter() - t0) * 1000)

    def _notify(self, future: Future[LoadResult]) -> None:
        try:
            result = future.result()
        except Exception:  # _load catches everything; this is a guard against a bug there
            logger.exception("bundle load crashed")
            return
        self.last = result
        for listener in list(self.listeners):
            try:
                listener(result)
            except Exception:
                logger.exception("bundle load listener failed")

    def wait(self, timeout: float | None = None) -> LoadResult | None:
        future = self.pending
        if future is None:
            return None
        return future.result(timeout=timeout)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class _Unconfigured(Exception):
    def __init__(self, error: AtlasError) -> None:
        super().__init__(error.message)
        self.error = error


def _close(engine: Any) -> None:
    close = getattr(engine, "close", None)
    if callable(close):
        try:
            close()
        except Exception:
            logger.debug("closing an old engine failed", exc_info=True)
