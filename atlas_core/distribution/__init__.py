"""Distribution: release archives, the release source, download, install from a path, backup and
restore, publish."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.distribution.install import BACKUPS, CURRENT, RELEASES, list_snapshots

__all__ = [
    "BACKUPS",
    "CURRENT",
    "RELEASES",
    "list_snapshots",
]

# Loaded on first use, so importing the face stays as cheap as it was.
_EXPORTS = {
    "BACKUPS": "install",
    "RELEASES": "install",
    "list_snapshots": "install",
    "CURRENT": "install",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
