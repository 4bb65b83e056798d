"""N processes serving one port: a supervisor forks workers that inherit the bound socket.

The parent binds the port, imports what every worker runs (the SDK, uvicorn, the engine) and
loads and warms up the bundle (`context.preload_for_workers`: tables, float32 vectors, embedding
model), then forks; those pages stay shared copy-on-write, and each worker maps the same bundle
files, so the bundle's pages are the page cache's, not copies. Each worker watches the bundle for
hot reload on its own, so a new `atlas download` reaches every worker (what a worker loads after
the fork, a reloaded bundle or the bundle of a worker that replaced a dead one, is its own). The kernel hands each new connection
to one of the workers blocked in accept().

The supervisor starts no threads and runs no event loop (forking after either is unsafe); it looks
for ended workers a few times a second: a worker that dies is replaced (its in-flight requests
fail, the others' do not), and SIGTERM or SIGINT is passed on to every worker, which finishes its
requests and exits; one still running after `STOP_GRACE_S` is killed.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

_Handlers = dict[signal.Signals, Any]

log = logging.getLogger(__name__)

STOP_GRACE_S = 10.0
QUICK_DEATH_S = 1.0  # a worker that dies sooner than this after starting is restarted after a pause
POLL_S = 0.2  # how often the supervisor looks for workers that ended
_STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}
_PR_SET_PDEATHSIG = 1


def preload() -> None:
    """Import, in the parent, what every worker would otherwise import (and own) by itself."""
    import uvicorn  # noqa: F401
    from starlette.applications import Starlette  # noqa: F401

    import atlas_core.engine  # noqa: F401
    from atlas_core.serving import BundleReloader  # noqa: F401


def supervise(
    count: int, serve: Callable[[], None], *, started: Callable[[], None] | None = None
) -> None:
    """Run ``serve`` in ``count`` forked workers until SIGTERM/SIGINT; replace any that dies.
    ``started`` runs in the supervisor once the first ``count`` workers are forked."""
    stop: list[int] = []

    def on_stop(signum: int, frame: object) -> None:
        stop.append(signum)

    handlers = {signum: signal.signal(signum, on_stop) for signum in _STOP_SIGNALS}
    # Objects made so far are never collected (nor touched by a collection): their pages stay
    # shared with the workers, which keep them frozen.
    gc.freeze()
    workers: dict[int, float] = {}  # pid -> when it started
    try:
        for _ in range(count):
            workers[_fork(serve, handlers)] = time.monotonic()
        if started is not None:
            started()
        _watch(workers, serve, handlers, stop)
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _watch(
    workers: dict[int, float], serve: Callable[[], None], handlers: _Handlers, stop: list[int]
) -> None:
    stop_by: float | None = None
    while workers:
        if stop and stop_by is None:
            log.info("stopping %d workers", len(workers))
            stop_by = time.monotonic() + STOP_GRACE_S
            _signal_all(workers, signal.SIGTERM)
        for pid, status in _reap():
            started = workers.pop(pid, None)
            if started is None or stop_by is not None:
                continue
            log.error("worker %d %s; starting another", pid, _describe(status))
            if time.monotonic() - started < QUICK_DEATH_S:
                time.sleep(QUICK_DEATH_S)  # a worker that cannot start must not spin the CPU
            workers[_fork(serve, handlers)] = time.monotonic()
        if stop_by is not None and time.monotonic() >= stop_by and workers:
            log.warning("killing %d workers still running after %g s", len(workers), STOP_GRACE_S)
            _signal_all(workers, signal.SIGKILL)
            stop_by = time.monotonic() + STOP_GRACE_S
        if workers:
            time.sleep(POLL_S)


def _fork(serve: Callable[[], None], handlers: _Handlers) -> int:
    """Fork a worker running ``serve``. Stop signals are held across the fork so that none reaches
    the worker before it has its own handlers back."""
    sys.stderr.flush()
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        raise
    if pid:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        return pid
    code = 0
    try:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        _die_with_parent()
        serve()
    except KeyboardInterrupt:
        pass
    except BaseException:
        log.exception("worker %d failed", os.getpid())
        code = 1
    finally:
        sys.stderr.flush()
        os._exit(code)


def _die_with_parent() -> None:
    """A worker whose supervisor is killed outright ends too, rather than holding the port."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        log.debug("prctl(PR_SET_PDEATHSIG) is unavailable", exc_info=True)
    if os.getppid() == 1:  # the supervisor died before prctl took effect
        os._exit(0)


def _reap() -> list[tuple[int, int]]:
    ended = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        ended.append((pid, status))
    return ended


def _signal_all(workers: dict[int, float], signum: int) -> None:
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"
