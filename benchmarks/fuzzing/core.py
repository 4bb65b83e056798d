"""What every fuzz class shares: seeded randomness, verdicts, tallies and small oracles.

A class turns `(seed, index)` into a *recipe* that says how to build one hostile input. Recipes
are cheap to make, so the harness makes them in its own process, and they fully determine the
input, so a failure report names a case that the same command line rebuilds. For the classes
whose cases run in a separate case runner the recipe is plain JSON, and the bytes themselves (an
archive, a damaged bundle, a source folder) are made from it where the case runs; the classes
that drive a server keep their recipes in process, raw message bytes included.
"""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REFUSED = "refused"  # the component said no, the way it should: a one-line error, a tool error
ACCEPTED = "accepted"  # the component took the input, and every invariant held afterwards
FAILURE = "failure"  # a traceback-type exception, a hang, a leak, a write outside its folder

MAX_EXAMPLES = 8
MAX_DETAIL_CHARS = 400
TRACEBACK_MARKS = ("Traceback (most recent call last)", 'File "')


def case_rng(seed: int, cls: str, index: int) -> random.Random:
    """The generator of one case: the same for a (seed, class, index) whatever else runs, so
    `--cases N` runs a prefix of what `--cases M > N` runs and `--classes` changes nothing."""
    return random.Random(f"atlas-fuzz/{seed}/{cls}/{index}")


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: str
    detail: str = ""

    @classmethod
    def refused(cls, detail: str = "") -> Verdict:
        return cls(REFUSED, detail)

    @classmethod
    def accepted(cls, detail: str = "") -> Verdict:
        return cls(ACCEPTED, detail)

    @classmethod
    def failure(cls, detail: str) -> Verdict:
        return cls(FAILURE, detail)

    def as_json(self) -> dict[str, str]:
        return {"outcome": self.outcome, "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        outcome = data.get("outcome")
        if outcome not in (REFUSED, ACCEPTED, FAILURE):
            return cls.failure(f"the case runner answered {data!r}")
        return cls(outcome, str(data.get("detail", "")))


def first_failure(verdicts: Iterable[Verdict]) -> Verdict | None:
    return next((v for v in verdicts if v.outcome == FAILURE), None)


@dataclass(slots=True)
class Tally:
    """The counts of one class, and a few failures to show."""

    tried: int = 0
    refused_cleanly: int = 0
    accepted: int = 0
    failures: int = 0
    failure_examples: list[str] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""
    last: Verdict | None = None

    def add(self, index: int, label: str, verdict: Verdict) -> None:
        self.last = verdict
        self.tried += 1
        if verdict.outcome == REFUSED:
            self.refused_cleanly += 1
        elif verdict.outcome == ACCEPTED:
            self.accepted += 1
        else:
            self.failures += 1
            if len(self.failure_examples) < MAX_EXAMPLES:
                self.failure_examples.append(clip(f"#{index} {label}: {verdict.detail}"))

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tried": self.tried,
            "refused_cleanly": self.refused_cleanly,
            "accepted": self.accepted,
            "failures": self.failures,
            "failure_examples": list(self.failure_examples),
            "seconds": round(self.seconds, 1),
        }
        if self.note:
            data["note"] = self.note
        return data


def clip(text: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """One line of at most `limit` characters, escapes visible."""
    flat = " ".join(ascii(text)[1:-1].split()) if not text.isprintable() else " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe(exc: BaseException) -> str:
    return clip(f"{type(exc).__name__}: {exc}")


def has_traceback(text: str) -> bool:
    return any(mark in text for mark in TRACEBACK_MARKS)


def one_line_error(exc: Any) -> str | None:
    """Why an AtlasError is not a clean refusal (no message, no hint, several lines), or None."""
    line = exc.one_line() if hasattr(exc, "one_line") else str(exc)
    if not getattr(exc, "message", ""):
        return "an error without a message"
    if "\n" in line or "\r" in line:
        return f"a message of several lines: {clip(line)}"
    if has_traceback(line):
        return f"a message carrying a traceback: {clip(line)}"
    return None


def tree(top: Path, *, skip: Path | None = None) -> set[str]:
    """Every path under `top` (files, folders, links, not followed), leaving out `skip`."""
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(top):
        here = Path(dirpath)
        dirnames[:] = [n for n in dirnames if here / n != skip]
        found.update(str((here / n).relative_to(top)) for n in dirnames + filenames)
    return found


def pick_weighted(rng: random.Random, weights: dict[str, float]) -> str:
    names = list(weights)
    return rng.choices(names, weights=[weights[n] for n in names])[0]


class StartError(RuntimeError):
    """A server under test did not start or could not be brought to a usable state."""


MAX_FAILED_STARTS = 3


def drive(workspace: Any, cls: str, recipes: list[dict[str, Any]], tally: Tally, case: Any) -> None:
    """Run `case(index, recipe) -> Verdict` over the recipes. A StartError is a failed case; after
    MAX_FAILED_STARTS of them in a row the class stops, saying why, rather than time out on every
    remaining case."""
    failed_starts = 0
    for index, spec in enumerate(recipes):
        try:
            verdict = case(index, spec)
            failed_starts = 0
        except StartError as exc:
            failed_starts += 1
            verdict = Verdict.failure(f"the server did not start: {clip(str(exc), 200)}")
        tally.add(index, spec["label"], verdict)
        workspace.trace(cls, index, spec["label"], verdict)
        if failed_starts >= MAX_FAILED_STARTS:
            tally.note = (
                f"stopped after {tally.tried} cases: {failed_starts} starts in a row failed"
            )
            return


def children() -> set[int]:
    """This process's child processes (Linux /proc; empty elsewhere)."""
    found: set[int] = set()
    for task in Path("/proc/self/task").glob("*/children"):
        try:
            found.update(int(pid) for pid in task.read_text().split())
        except (OSError, ValueError):
            continue
    return found


def reap(pids: Iterable[int]) -> None:
    """Kill the given child processes if they still run: servers a client failed to stop."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError, PermissionError):
            continue
