"""Progress for long work (build, crawl, embedding): a bar on a terminal, plain lines elsewhere.

A redirected log or a CI console keeps every redraw of a bar as text; there the same progress is
a line now and then (each tenth of the work, and at least every 10 seconds while it moves), and
one at the end.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

STEP = 0.10  # a plain line each tenth of the total
EVERY_S = 10.0  # and at least this often while work moves


def is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def progress_bar(
    total: int | None, desc: str, unit: str, *, enabled: bool = True, stream: TextIO | None = None
) -> Any:
    """A tqdm bar on a terminal, else a `PlainProgress`; both take ``update(n)`` and ``close()``
    and work as context managers. Disabled: a `PlainProgress` that prints nothing."""
    out = stream or sys.stderr
    if enabled and is_terminal(out):
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit=unit, file=out, dynamic_ncols=True)
    return PlainProgress(total, desc, unit.strip(), out, enabled=enabled)


class PlainProgress:
    """Progress as whole lines: ``embedding [onnx-cpu]: 230/2310 chunks (10%)``."""

    def __init__(
        self, total: int | None, desc: str, unit: str, stream: TextIO, *, enabled: bool = True
    ) -> None:
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = 0
        self._stream = stream
        self._enabled = enabled
        self._started = self._last_time = time.monotonic()
        self._next_fraction = STEP
        self._closed = False
        self._postfix = ""

    def set_postfix(self, refresh: bool = True, **facts: object) -> None:
        """Facts shown after the count, as tqdm's ``set_postfix`` (``errors=2``)."""
        self._postfix = ", ".join(f"{key}={value}" for key, value in facts.items())

    def reset(self, total: int | None = None) -> None:
        """Start the count again (a download whose server ignored a resume), as tqdm's."""
        self.n = 0
        self.total = total
        self._next_fraction = STEP

    def update(self, n: int = 1) -> None:
        self.n += n
        if not self._enabled:
            return
        now = time.monotonic()
        fraction = self.n / self.total if self.total else 0.0
        if self.total and self.n >= self.total:
            return  # the closing line says it
        if (self.total and fraction >= self._next_fraction) or now - self._last_time >= EVERY_S:
            if self.total:
                while self._next_fraction <= fraction:
                    self._next_fraction += STEP
            self._emit(now)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._enabled and self.n:
            self._emit(time.monotonic(), done=True)

    def _emit(self, now: float, *, done: bool = False) -> None:
        self._last_time = now
        count = f"{self.n}/{self.total}" if self.total else str(self.n)
        share = f" ({100 * self.n // self.total}%)" if self.total else ""
        tail = f", {self._postfix}" if self._postfix else ""
        tail += f", done in {now - self._started:.1f}s" if done else ""
        print(f"{self.desc}: {count} {self.unit}{share}{tail}", file=self._stream, flush=True)

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
