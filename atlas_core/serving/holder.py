"""The one reference a server holds to its engine.

Front ends read `holder.engine` once per request and use that object for the whole request, so a
hot swap (issue: distribution) replaces the reference in one step and in-flight requests finish on
the engine they started with.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class EngineHolder(Generic[T]):
    """Holds the current engine (or None before the first load) and swaps it atomically."""

    def __init__(self, engine: T | None = None, *, error: str | None = None) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self.generation = 0 if engine is None else 1
        self.last_error: str | None = error  # why the last load failed, shown to users

    @property
    def engine(self) -> T | None:
        return self._engine

    def swap(self, engine: T) -> T | None:
        """Install a new engine; returns the old one (the caller may close it later)."""
        with self._lock:
            old, self._engine = self._engine, engine
            self.generation += 1
            self.last_error = None
        return old
