"""Distribution: release archives, the release source, download, install from a path, backup and
restore, publish."""

from __future__ import annotations
