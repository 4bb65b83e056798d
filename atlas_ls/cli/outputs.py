"""Output folders a command creates: gone again when the command fails."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def removed_on_failure(folder: Path) -> Iterator[None]:
    """Run the body; when it fails and `folder` did not exist before it, remove what the body
    made there (or empty it again when it was an empty folder), so a failed command leaves no
    half-written output behind. A folder that held files before is left to the body's own
    clean-up: they may be the user's earlier work."""
    try:
        existed = folder.exists() or folder.is_symlink()
        empty = folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir())
    except OSError:  # a path that cannot even be looked at: the body reports it
        existed, empty = True, False
    try:
        yield
    except BaseException:
        if not existed:
            shutil.rmtree(folder, ignore_errors=True)
        elif empty:  # nothing of the user's was there: empty it again
            for child in list(folder.iterdir()):
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)
        raise
