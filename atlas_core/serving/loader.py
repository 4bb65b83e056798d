"""Opening the engine in the background and installing it in the server's one holder.

Both servers load through a `BundleLoader`. The language server starts its first load before the
protocol library is even imported, so the identifier index is usually open by the time the client
sends ``initialized``; the MCP server starts it while the client initializes. Every later load (a
changed ``atlas.bundle`` setting, the ``atlas.reload`` command) goes through `request`, which swaps
the holder's engine in one step; requests that already hold the old engine finish on it. A load
that fails leaves whatever was serving in place. Hot reload (`reloader`) opens and warms new
engines the same way.

Each load warms the engine up (`Engine.warm_up`) on the loading thread before it is served, in the
modes the host serves: the language server only identifier lookups and symbols (it must never
load the embedding model), the MCP server everything.
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
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.config import Settings
from atlas_core.errors import AtlasError, BundleError
from atlas_core.serving.holder import EngineHolder

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_core.serving.reloader import BundleReloader, ReloadEvent

logger = logging.getLogger(__name__)

DEFAULT_KEY = ("<default>",)
OLD_ENGINE_GRACE_S = 30.0  # in-flight requests may still read the engine a swap replaced
DEMO_BUILD_TIMEOUT_S = 900
# What answers without the embedding model; a host that serves searches asks for more.
IDENTIFIER_MODES = ("lookup", "symbols")


@dataclass(frozen=True, slots=True)
class LoadResult:
    seq: int
    key: tuple[str, ...]
    engine: Engine | None
    paths: tuple[str, ...]
    error: str  # "" on success
    ms: float
    superseded: bool = False  # a newer request replaced this one before it finished
    unconfigured: bool = False  # failed only because no bundle is configured anywhere
    cause: AtlasError | None = None  # why it failed, when Atlas knew (message and hint apart)

    @property
    def ok(self) -> bool:
        return self.engine is not None and not self.superseded


def open_engine(paths: Sequence[str | Path], prefer: str | None = None) -> Engine:
    from atlas_core.engine import Engine

    return Engine.open([str(p) for p in paths], prefer)


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
        holder: EngineHolder[Engine],
        *,
        warm_up: Sequence[str] = IDENTIFIER_MODES,
        opener: Callable[[Sequence[str | Path]], Engine] | None = None,
        allow_demo: bool = True,
        settings: Settings | None = None,
    ) -> None:
        """`warm_up`: the `Engine.warm_up` modes each new engine answers once before it is served
        (see `atlas_core.engine.WARM_MODES`); the default never loads the embedding model.
        `settings`: the host's, for the configured bundles and the embedding backend."""
        self.holder = holder
        self.warm_up_modes = tuple(warm_up)
        self.settings = settings or Settings()
        prefer = self.settings.embed_backend
        self._opener = opener or (lambda paths: open_engine(paths, prefer))
        self._allow_demo = allow_demo
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="atlas-load")
        self._lock = threading.Lock()
        self._seq = 0
        self._key: tuple[str, ...] | None = None
        self.pending: Future[LoadResult] | None = None
        self.last: LoadResult | None = None
        self.paths: tuple[str, ...] = ()  # the bundles the current engine was opened from
        # Project bundles (`atlas index`) served beside whatever docs bundles are resolved.
        self.projects: tuple[str, ...] = ()
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

    def load_here(self, explicit: Sequence[str], *, allow_demo: bool = False) -> LoadResult:
        """Load as `request` does, but on the calling thread, leaving no thread behind: for a
        supervisor that loads the bundle once and then forks workers that share it."""
        key = tuple(str(p) for p in explicit) or DEFAULT_KEY
        with self._lock:
            self._seq += 1
            seq = self._seq
            self._key = key
        self.last = self._load(seq, key, tuple(explicit), allow_demo)
        return self.last

    def adopt(self, result: LoadResult) -> None:
        """Serve the engine of a successful `load_here` made by the process this one was forked
        from, as if this loader had loaded it (the loader's next loads and reloads replace it)."""
        if result.engine is None:
            raise ValueError("only a successful load can be adopted")
        with self._lock:
            self._seq += 1
            self._key = result.key
            self.holder.swap(result.engine)
            self.paths = result.paths
            self.last = replace(result, seq=self._seq)

    def _resolve(self, explicit: tuple[str, ...], allow_demo: bool) -> list[str]:
        docs = self._resolve_docs(explicit, allow_demo)
        return docs + [p for p in self.projects if p not in docs]

    def _resolve_docs(self, explicit: tuple[str, ...], allow_demo: bool) -> list[str]:
        from atlas_core.serving.locator import resolve_bundle_paths

        try:
            return [
                str(p)
                for p in resolve_bundle_paths(
                    list(explicit) or None, self.settings, allow_demo=False
                )
            ]
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
            return replace(result, unconfigured=True, cause=exc.error)
        except AtlasError as exc:
            return replace(self._failed(seq, key, paths, exc.one_line(), t0), cause=exc)
        except Exception as exc:  # a broken bundle can raise anything; the server must live on
            logger.exception("opening bundle %s failed", ", ".join(paths) or "(default)")
            return self._failed(seq, key, paths, f"{type(exc).__name__}: {exc}", t0)
        self._warm(engine, paths)
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

    def _warm(self, engine: Engine, paths: tuple[str, ...]) -> None:
        """Load what the host serves now, on this thread, instead of in the first request.

        A failure here does not fail the load: with nothing else to serve, a bundle that answers
        some requests beats none, and the requests that need the broken part report it
        themselves (a hot reload, which has a previous engine to keep, refuses such a bundle).
        """
        try:
            engine.warm_up(self.warm_up_modes)
        except AtlasError as exc:
            logger.warning("warming up bundle %s failed: %s", ", ".join(paths), exc.one_line())
        except Exception:  # reported at ERROR by the first request that meets it
            logger.warning("warming up bundle %s failed", ", ".join(paths), exc_info=True)

    def reloader(
        self, paths: Sequence[str | Path], on_event: Callable[[ReloadEvent], None]
    ) -> BundleReloader:
        """A hot reloader of `paths` into this loader's holder (not started): it opens new
        engines as this loader does and warms them up in the same modes before the swap."""
        from atlas_core.serving.reloader import BundleReloader

        return BundleReloader(
            self.holder,
            [Path(p) for p in paths],
            self._opener,
            on_event=on_event,
            warm_up=self.warm_up_modes,
        )

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


def _close(engine: Engine) -> None:
    try:
        engine.close()
    except Exception:  # closing frees memory maps; a failure there must not reach a request
        logger.debug("closing an old engine failed", exc_info=True)
