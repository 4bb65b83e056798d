"""N processes serving one port: a supervisor forks workers that inherit the bound socket.

The parent binds the port and imports what every worker runs (the SDK, uvicorn, the engine),
then forks; those pages stay shared copy-on-write, and each worker maps the same bundle files, so
the bundle's pages are the page cache's, not copies. Each worker loads the bundle and watches it
for hot reload on its own, so a new `atlas download` reaches every worker. The kernel hands each
new connection to one of the workers blocked in accept().

The supervisor forks no threads and runs no event loop (forking either is unsafe); it waits for
signals: a worker that dies is replaced (its in-flight requests fail, the others' do not), and
SIGTERM or SIGINT is passed on to every worker, which finishes its requests and exits; one still
running after `STOP_GRACE_S` is killed.
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

log = logging.getLogger(__name__)

STOP_GRACE_S = 10.0
QUICK_DEATH_S = 1.0  # a worker that dies sooner than this after starting is restarted after a pause
_SIGNALS = {signal.SIGCHLD, signal.SIGTERM, signal.SIGINT}
_PR_SET_PDEATHSIG = 1


def preload() -> None:
    """Import, in the parent, what every worker would otherwise import (and own) by itself."""
    import uvicorn  # noqa: F401
    from starlette.applications import Starlette  # noqa: F401

    import atlas_core.engine
    import atlas_core.serving.reloader  # noqa: F401


def supervise(count: int, serve: Callable[[], None]) -> None:
    """Run ``serve`` in ``count`` forked workers until SIGTERM/SIGINT; replace any that dies."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    # Objects made so far are never collected (nor touched by a collection): their pages stay
    # shared with the workers, which keep them frozen.
    gc.freeze()
    workers: dict[int, float] = {}  # pid -> when it started
    try:
        for _ in range(count):
            pid = _fork(serve)
            workers[pid] = time.monotonic()
        _watch(workers, count, serve)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)


def _watch(workers: dict[int, float], count: int, serve: Callable[[], None]) -> None:
    stop_by: float | None = None
    while workers:
        timeout = 1.0 if stop_by is None else max(0.05, stop_by - time.monotonic())
        received = signal.sigtimedwait(_SIGNALS, timeout)
        if received is not None and received.si_signo != signal.SIGCHLD and stop_by is None:
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
            new = _fork(serve)
            workers[new] = time.monotonic()
        if stop_by is not None and time.monotonic() >= stop_by and workers:
            log.warning("killing %d workers still running after %g s", len(workers), STOP_GRACE_S)
            _signal_all(workers, signal.SIGKILL)
            stop_by = time.monotonic() + STOP_GRACE_S


def _fork(serve: Callable[[], None]) -> int:
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        _die_with_parent()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
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
