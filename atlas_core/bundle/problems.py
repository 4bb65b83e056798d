"""One thing wrong with a bundle, as every check reports it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a bundle, about one file (bundle-relative path).

    `incomplete` marks what a copy or download still under way looks like (a listed file missing
    or shorter than listed), so a watcher can try again later instead of giving up.
    """

    file: str
    message: str
    incomplete: bool = False

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"
