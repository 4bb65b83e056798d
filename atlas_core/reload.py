"""Hot reload: notice a new bundle, open and verify it in the background, swap it in one step.

A `BundleReloader` watches the folders that hold the served bundle paths (so both an install's
`current` link flipping and `atlas build` renaming a fresh bundle into place are seen), waits for
the changes to settle, then compares each path's signature (where it resolves to and its manifest).
When one changed it opens the new engine, verifies the bundle in full, and swaps the holder's
reference. Requests that already took the old engine finish on it. A bundle that fails
verification is not loaded: the old engine keeps serving and the failure is reported.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas_core.errors import AtlasError
from atlas_core.holder import EngineHolder

log = logging.getLogger(__name__)

DEBOUNCE_MS = 300
POLL_MS = 2000
CLOSE_GRACE_S = 30.0  # old engines are closed this long after a swap, when requests are done


@dataclass(frozen=True, slots=True)
class ReloadEvent:
    """What one reload attempt did; front ends turn it into messages."""

    kind: str  # "loading" | "loaded" | "failed"
    message: str
    generation: int
    paths: tuple[str, ...]
    ms: float = 0.0


def signature(path: Path) -> tuple[str, int, int] | None:
    """Where `path` resolves to and its manifest's mtime and size; None when there is no bundle."""
    try:
        real = path.resolve()
        stat = (real / "manifest.json").stat()
    except OSError:
        return None
    return (str(real), stat.st_mtime_ns, stat.st_size)


class BundleReloader:
    """Watches bundle paths and keeps `holder` on the newest good engine."""

    def __init__(
        self,
        holder: EngineHolder[Any],
        paths: Sequence[Path],
        open_engine: Callable[[list[Path]], Any],
        *,
        on_event: Callable[[ReloadEvent], None] | None = None,
        debounce_ms: int = DEBOUNCE_MS,
        verify: bool = True,
    ) -> None:
        self.holder = holder
        self.paths = [Path(p) for p in paths]
        self.open_engine = open_engine
        self.on_event = on_event or (lambda event: None)
        self.debounce_ms = debounce_ms
        self.verify = verify
        self.last_reload: str | None = None  # ISO time of the last successful swap
        self._signatures = [signature(p) for p in self.paths]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reload_lock = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._watch, name="atlas-reload", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # -- work -----------------------------------------------------------------------------------

    def check(self) -> ReloadEvent | None:
        """Reload when any path's signature changed; None when nothing did."""
        with self._reload_lock:
            current = [signature(p) for p in self.paths]
            if current == self._signatures:
                return None
            return self._reload(current)

    def _reload(self, current: list[tuple[str, int, int] | None]) -> ReloadEvent:
        names = tuple(str(p) for p in self.paths)
        started = time.perf_counter()
        generation = self.holder.generation
        self._emit(ReloadEvent("loading", "loading a new bundle", generation, names))
        try:
            missing = [str(p) for p, sig in zip(self.paths, current, strict=True) if sig is None]
            if missing:
                raise AtlasError(
                    f"no bundle at {', '.join(missing)}",
                    hint="the install may still be in progress; the previous bundle keeps serving",
                )
            resolved = [Path(sig[0]) for sig in current if sig is not None]
            if self.verify:
                self._verify(resolved)
            engine = self.open_engine(resolved)
        except AtlasError as exc:
            # Remember the broken signature so one bad install is reported once, not on every
            # event, and a later fixed install is still picked up.
            self._signatures = current
            message = f"new bundle not loaded: {exc.one_line()}; the previous bundle keeps serving"
            self.holder.last_error = message
            event = ReloadEvent("failed", message, generation, names, _ms(started))
            log.warning("%s", message)
            self._emit(event)
            return event
        old = self.holder.swap(engine)
        self._signatures = current
        self.last_reload = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if old is not None and hasattr(old, "close"):
            timer = threading.Timer(CLOSE_GRACE_S, old.close)
            timer.daemon = True
            timer.start()
        event = ReloadEvent(
            "loaded",
            f"loaded bundle {', '.join(str(p) for p in resolved)}",
            self.holder.generation,
            names,
            _ms(started),
        )
        log.info("%s in %.0f ms", event.message, event.ms)
        self._emit(event)
        return event

    def _verify(self, paths: list[Path]) -> None:
        from atlas_core.bundle import verify_bundle
        from atlas_core.errors import BundleError

        for path in paths:
            problems = verify_bundle(path)
            if problems:
                raise BundleError(
                    f"{path} failed verification: " + "; ".join(str(p) for p in problems[:3]),
                    hint="download or build it again",
                )

    def _emit(self, event: ReloadEvent) -> None:
        try:
            self.on_event(event)
        except Exception:  # a front end's reporting must never break reloading
            log.exception("reload event handler failed")

    def _watch(self) -> None:
        import watchfiles

        # Not recursive: the parent shows a link flip or a rename of the bundle, the bundle folder
        # shows a manifest rewritten in place; a recursive watch of the parent could be huge.
        folders = sorted({str(f) for p in self.paths for f in _watch_folders(p)})
        if not folders:  # nothing there yet (no install so far): poll until it appears
            while not self._stop.wait(1.0):
                self.check()
            return
        log.info("watching %s for new bundles", ", ".join(folders))
        try:
            for _changes in watchfiles.watch(
                *folders,
                stop_event=self._stop,
                debounce=self.debounce_ms,
                step=50,
                recursive=False,
                raise_interrupt=False,
                ignore_permission_denied=True,
                # Also wake up now and then: a change made while the watch was being set up, or
                # on a filesystem without events, is still found by comparing signatures.
                rust_timeout=POLL_MS,
                yield_on_timeout=True,
            ):
                self.check()
        except Exception:
            log.exception("bundle watcher stopped")


def _watch_folders(path: Path) -> list[Path]:
    path = path.absolute()
    return [f for f in (path.parent, path) if f.is_dir()]


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
