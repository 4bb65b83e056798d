"""Run a class's cases in a child process that a hang, a bomb or a crash cannot take down the harness.

The parent (`Worker`) starts ``python -m benchmarks.fuzzing.worker CLASS`` and speaks one JSON
object per line: first the setup, then one recipe per case; the child answers each with a verdict.
The child runs under an address-space and a file-size limit, so a bomb that gets through ends in a
MemoryError or EFBIG (a failure) instead of filling the machine. A case that does not answer in
time, or kills the child, is a failure; the child is then replaced for the next case.

The child's stdout is the protocol alone: library prints go to its stderr, which is kept in a log.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, TextIO

from benchmarks.fuzzing.core import Verdict, clip

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 4 * 1024**3  # address space of a case runner
FILE_SIZE_LIMIT = 2 * 1024**3  # largest file a case runner may write
START_TIMEOUT_S = 180.0


class Worker:
    """The parent's handle on one class's case runner (started on first use, restarted after a
    case that hangs or kills it)."""

    def __init__(self, cls: str, setup: dict[str, Any], log: Path) -> None:
        self.cls = cls
        self.setup = setup
        self.log = log
        self.proc: subprocess.Popen[str] | None = None
        self.answers: queue.Queue[str | None] = queue.Queue()
        self.starts = 0

    def run(self, recipe: dict[str, Any], timeout: float) -> Verdict:
        if self.proc is None:
            problem = self._start()
            if problem:
                return Verdict.failure(problem)
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(recipe) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            return self._lost(f"the case runner stopped reading ({exc})")
        answer = self._answer(timeout)
        if answer is None:
            return self._lost(f"no answer within {timeout:g} s: a hang")
        return answer

    def _start(self) -> str | None:
        self.starts += 1
        with self.log.open("a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "benchmarks.fuzzing.worker", self.cls],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                encoding="utf-8",
            )
        self.answers = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc, self.answers), daemon=True).start()
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(self.setup) + "\n")
        self.proc.stdin.flush()
        ready = self._answer(START_TIMEOUT_S)
        if ready is None or ready.detail != "ready":
            self._stop()
            return f"the case runner did not start (see {self.log})"
        return None

    @staticmethod
    def _pump(proc: subprocess.Popen[str], answers: queue.Queue[str | None]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            answers.put(line)
        answers.put(None)

    def _answer(self, timeout: float) -> Verdict | None:
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            assert self.proc is not None
            code = self.proc.wait()
            how = f"signal {-code}" if code < 0 else f"exit code {code}"
            self.proc = None
            return Verdict.failure(f"the case runner died ({how}; see {self.log})")
        return Verdict.from_json(json.loads(line))

    def _lost(self, why: str) -> Verdict:
        self._stop()
        return Verdict.failure(why)

    def _stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._stop()


# --- the child ----------------------------------------------------------------------------------


def _limit_resources() -> None:
    import resource

    for kind, value in (
        (resource.RLIMIT_AS, MEMORY_LIMIT),
        (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT),
    ):
        # Not enforced on every platform; the per-case timeout still holds there.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (value, value))
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit raises EFBIG


def _protocol_stream() -> TextIO:
    """This process's stdout for the protocol, with fd 1 sent to stderr for everyone else."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def main(cls: str) -> int:
    out = _protocol_stream()
    _limit_resources()

    def say(verdict: Verdict) -> None:
        out.write(json.dumps(verdict.as_json()) + "\n")
        out.flush()

    setup = json.loads(sys.stdin.readline())
    module = importlib.import_module(f"benchmarks.fuzzing.{cls}")
    target = module.Target(setup)
    say(Verdict.accepted("ready"))
    try:
        for line in sys.stdin:
            recipe = json.loads(line)
            try:
                verdict = target.run(recipe)
            except Exception as exc:  # the oracle's own bug still reports, with its traceback
                traceback.print_exc()
                verdict = Verdict.failure(clip(f"harness error {type(exc).__name__}: {exc}"))
            say(verdict)
    finally:
        close = getattr(target, "close", None)
        if close is not None:
            close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
