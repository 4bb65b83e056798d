"""Distribution: release archives, download and install, backup and restore, publish."""

from __future__ import annotations
