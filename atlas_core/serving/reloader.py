"""Hot reload: notice a new bundle, open, verify and warm it up in the background, swap it in.

A `BundleReloader` watches the folders that hold the served bundle paths (so both an install's
`current` link flipping and `atlas build` renaming a fresh bundle into place are seen), waits for
the changes to settle, then compares each path's signature (where it resolves to and its manifest).
When one changed it verifies the new bundle in full, opens an engine on it, warms that engine up
(every index the host serves loaded, one request of each kind answered) and only then swaps the
holder's reference. Requests that already took the old engine finish on it. A bundle that fails
any of these steps is not served: the old engine keeps serving and the failure is reported.

Three corner cases have their own handling:

- A bundle that is still being copied (files missing or shorter than listed) is tried again with
  a growing delay for a while, so the copy completing is picked up without another flip.
- A bundle that verifies but cannot answer (a "resealed" one, edited and re-hashed) fails its
  warm-up before the swap, never after.
- When the folder of the bundle being served is deleted, the engine keeps answering from what it
  has loaded, and the reloader says loudly that its files are gone and how to recover.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.errors import AtlasError, BundleError
from atlas_core.serving.holder import EngineHolder

if TYPE_CHECKING:
    from atlas_core.engine import Engine

log = logging.getLogger(__name__)

DEBOUNCE_MS = 300
POLL_MS = 2000
CLOSE_GRACE_S = 30.0  # old engines are closed this long after a swap, when requests are done
# An incomplete bundle (a copy under way) is retried after 0.5 s, 1 s, 2 s, ... at most 30 s apart,
# for 10 minutes; a copy of a multi-gigabyte bundle to a slow disk fits, a dead copy is given up.
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0
RETRY_FOR_S = 600.0

Signature = tuple[str, int, int]
WarmUp = Callable[["Engine"], None]


@dataclass(frozen=True, slots=True)
class ReloadEvent:
    """What one reload attempt did; front ends turn it into messages."""

    kind: str  # "loading" | "loaded" | "failed"
    message: str
    generation: int
    paths: tuple[str, ...]
    ms: float = 0.0


def signature(path: Path) -> Signature | None:
    """Where `path` resolves to and its manifest's mtime and size; None when there is no bundle."""
    try:
        real = path.resolve()
        stat = (real / "manifest.json").stat()
    except OSError:
        return None
    return (str(real), stat.st_mtime_ns, stat.st_size)


class _Incomplete(BundleError):
    """The bundle looks like a copy or download still under way (files missing or short)."""


class BundleReloader:
    """Watches bundle paths and keeps `holder` on the newest good engine.

    `warm_up` is what must work before a new engine is served: a callable taking the engine, or
    the modes to pass to its ``warm_up(modes)`` (see `atlas_core.engine.WARM_MODES`). Each host
    names the modes it serves: the language server only identifier lookups and symbols (it must
    never load the embedding model), the MCP server everything.
    """

    def __init__(
        self,
        holder: EngineHolder[Engine],
        paths: Sequence[Path],
        open_engine: Callable[[list[Path]], Engine],
        *,
        on_event: Callable[[ReloadEvent], None] | None = None,
        debounce_ms: int = DEBOUNCE_MS,
        verify: bool = True,
        warm_up: Sequence[str] | WarmUp | None = None,
        retry_for_s: float = RETRY_FOR_S,
    ) -> None:
        self.holder = holder
        self.paths = [Path(p) for p in paths]
        self.open_engine = open_engine
        self.on_event = on_event or (lambda event: None)
        self.debounce_ms = debounce_ms
        self.verify = verify
        self.warm_up = _warm_up_of(warm_up)
        self.retry_for_s = retry_for_s
        self.last_reload: str | None = None  # ISO time of the last successful swap
        self._signatures = _served_signatures(self.paths, holder.engine)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reload_lock = threading.Lock()
        self._retry: threading.Timer | None = None
        self._retry_delay = RETRY_FIRST_S
        self._retry_until = 0.0
        self._gone: list[str] = []  # served folders found deleted, reported once

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._watch, name="atlas-reload", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        # Without the lock: a reload in progress may hold it for a whole verification. A retry
        # scheduled after this point sees the stop flag and does nothing.
        self._cancel_retry()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # -- work -----------------------------------------------------------------------------------

    def check(self) -> ReloadEvent | None:
        """Reload when any path's signature changed; None when nothing did."""
        with self._reload_lock:
            current = [signature(p) for p in self.paths]
            if current == self._signatures:
                return self._check_served()
            self._cancel_retry()  # whatever was being waited for, the paths changed again
            return self._reload(current)

    def _reload(self, current: list[Signature | None], *, retry: bool = False) -> ReloadEvent:
        names = tuple(str(p) for p in self.paths)
        started = time.perf_counter()
        generation = self.holder.generation
        if not retry:
            self._emit(ReloadEvent("loading", "loading a new bundle", generation, names))
        # Remember what was tried, so one bad install is reported once and not on every event,
        # and a later install (another signature) is still picked up.
        self._signatures = current
        missing = [str(p) for p, sig in zip(self.paths, current, strict=True) if sig is None]
        if missing:
            return self._failed(self._missing_message(missing), generation, names, started)
        resolved = [Path(sig[0]) for sig in current if sig is not None]
        engine = None
        try:
            if self.verify:
                self._verify(resolved)
            engine = self.open_engine(resolved)
            if self.warm_up is not None:
                self.warm_up(engine)
        except _Incomplete as exc:
            _close(engine)
            return self._incomplete(exc, current, generation, names, started, retry=retry)
        except AtlasError as exc:
            _close(engine)
            return self._failed(_not_loaded(exc.one_line()), generation, names, started)
        except Exception as exc:  # a damaged bundle can still hit a bug: never swap it in
            log.exception("loading the bundle at %s failed", ", ".join(map(str, resolved)))
            _close(engine)
            reason = f"{type(exc).__name__}: {exc}"
            return self._failed(_not_loaded(reason), generation, names, started)
        self._cancel_retry()
        self._gone = []
        old = self.holder.swap(engine)
        self.last_reload = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if old is not None:
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
        from atlas_core.bundle import UNLISTED, bundle_problems

        for path in paths:
            problems = bundle_problems(path)
            if problems:
                # Files missing or short are what a copy under way looks like; a stray file
                # beside them may be the copier's temporary one (rsync's .name.XXXXXX).
                waiting = any(p.incomplete for p in problems)
                blocking = any(not p.incomplete and p.message != UNLISTED for p in problems)
                kind = _Incomplete if waiting and not blocking else BundleError
                raise kind(
                    f"{path} failed verification: " + "; ".join(str(p) for p in problems[:3]),
                    hint="download or build it again",
                    path=str(path),
                )

    def _failed(
        self, message: str, generation: int, names: tuple[str, ...], started: float
    ) -> ReloadEvent:
        self.holder.last_error = message
        event = ReloadEvent("failed", message, generation, names, _ms(started))
        log.warning("%s", message)
        self._emit(event)
        return event

    def _missing_message(self, missing: list[str]) -> str:
        """No bundle at a watched path. When the folder being served went with it, say that its
        files are gone; otherwise the install is probably still under way."""
        gone = _missing_bundles(self.holder.engine)
        if gone:
            self._gone = gone
            return self._gone_message(gone)
        return _not_loaded(
            f"no bundle at {', '.join(missing)} (hint: the install may still be in progress)"
        )

    def _check_served(self) -> ReloadEvent | None:
        """The paths are unchanged, but the folder being served may have been deleted anyway
        (the path points at a newer bundle that was refused, say). Reported once."""
        gone = _missing_bundles(self.holder.engine)
        if not gone or gone == self._gone:
            return None
        self._gone = gone
        generation = self.holder.generation
        names = tuple(str(p) for p in self.paths)
        return self._failed(self._gone_message(gone), generation, names, time.perf_counter())

    def _gone_message(self, gone: list[str]) -> str:
        return (
            f"the bundle being served ({', '.join(gone)}) was deleted: answers still come from "
            "what was already loaded, but they point into files that are gone, and nothing else "
            f"can be read from it. Install a bundle at {', '.join(map(str, self.paths))} again "
            "(`atlas download`, or `atlas restore` from a backup) and it is loaded automatically, "
            "or restart the server on an existing bundle"
        )

    # -- a bundle still being copied --------------------------------------------------------------

    def _incomplete(
        self,
        exc: BundleError,
        current: list[Signature | None],
        generation: int,
        names: tuple[str, ...],
        started: float,
        *,
        retry: bool,
    ) -> ReloadEvent:
        now = time.monotonic()
        if not retry:
            self._retry_delay, self._retry_until = RETRY_FIRST_S, now + self.retry_for_s
        else:
            self._retry_delay = min(self._retry_delay * 2, RETRY_MAX_S)
        if now + self._retry_delay > self._retry_until:
            message = _not_loaded(
                f"{exc.message}; still incomplete after {self.retry_for_s:.0f} s of waiting "
                "(hint: copy or download it again, then flip to it)"
            )
            return self._failed(message, generation, names, started)
        self._retry = threading.Timer(self._retry_delay, self._retry_now, args=(current,))
        self._retry.daemon = True
        self._retry.start()
        if retry:  # reported once, when first seen; the outcome is reported when it comes
            log.debug("bundle still incomplete; next try in %.1f s", self._retry_delay)
            return ReloadEvent("failed", exc.message, generation, names, _ms(started))
        message = _not_loaded(
            f"{exc.message}; it looks like a copy or download still under way, so it is tried "
            f"again for up to {self.retry_for_s / 60:.0f} minutes"
        )
        return self._failed(message, generation, names, started)

    def _retry_now(self, expected: list[Signature | None]) -> None:
        with self._reload_lock:
            if self._stop.is_set() or self._signatures != expected:
                return  # stopped, or the paths changed and that change was handled
            current = [signature(p) for p in self.paths]
            if current != expected:
                self._reload(current)  # changed while waiting: a new attempt of its own
            else:
                self._reload(current, retry=True)

    def _cancel_retry(self) -> None:
        retry, self._retry = self._retry, None
        if retry is not None:
            retry.cancel()

    # -- watching ---------------------------------------------------------------------------------

    def _emit(self, event: ReloadEvent) -> None:
        try:
            self.on_event(event)
        except Exception:  # a front end's reporting must never break reloading
            log.exception("reload event handler failed")

    def _watch(self) -> None:
        import watchfiles

        while not self._stop.is_set():
            # Not recursive: the parent shows a link flip or a rename of the bundle, the bundle
            # folder shows a manifest rewritten in place; a recursive watch of the parent could
            # be huge. A link resolves when the watch starts, so the watch starts over whenever
            # the folders to watch change (a flip, a deleted bundle).
            folders = _watch_folders(self.paths)
            if not folders:  # nothing there yet (no install so far): poll until it appears
                if not self._stop.wait(1.0):
                    self.check()
                continue
            log.info("watching %s for new bundles", ", ".join(folders))
            self.check()  # what changed before the watch was set up
            try:
                for _changes in watchfiles.watch(
                    *folders,
                    stop_event=self._stop,
                    debounce=self.debounce_ms,
                    step=50,
                    recursive=False,
                    raise_interrupt=False,
                    ignore_permission_denied=True,
                    # Also wake up now and then: a change made while the watch was being set up,
                    # or on a filesystem without events, is still found by comparing signatures.
                    rust_timeout=POLL_MS,
                    yield_on_timeout=True,
                ):
                    self.check()
                    if _watch_folders(self.paths) != folders:
                        break
            except Exception:  # a watched folder deleted under the watch, say: watch again
                log.warning("bundle watcher restarting", exc_info=True)
                self._stop.wait(1.0)


def _warm_up_of(warm_up: Sequence[str] | WarmUp | None) -> WarmUp | None:
    if warm_up is None or callable(warm_up):
        return warm_up
    modes = tuple(warm_up)
    return lambda engine: engine.warm_up(modes)


def _served_signatures(paths: Sequence[Path], engine: Engine | None) -> list[Signature | None]:
    """The paths' signatures as of the engine being served. A path that already resolves
    elsewhere (flipped between the engine's opening and this reloader's start) gets no signature,
    so the first check loads what it points at now instead of taking it as already served."""
    current = [signature(p) for p in paths]
    if engine is None:
        return current
    served = set(engine.bundle_folders())
    return [sig if sig is not None and sig[0] in served else None for sig in current]


def _not_loaded(reason: str) -> str:
    return f"new bundle not loaded: {reason}; the previous bundle keeps serving"


def _missing_bundles(engine: Engine | None) -> list[str]:
    return engine.missing_bundles() if engine is not None else []


def _close(engine: Engine | None) -> None:
    if engine is None:
        return
    try:
        engine.close()
    except Exception:  # it was never served: nothing but memory maps to free
        log.debug("closing an engine that was not served failed", exc_info=True)


def _watch_folders(paths: Sequence[Path]) -> list[str]:
    """Each path's parent and the folder it resolves to, those that exist."""
    found = set()
    for path in paths:
        path = path.absolute()
        found.update(str(f) for f in (path.parent, path.resolve()) if f.is_dir())
    return sorted(found)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
