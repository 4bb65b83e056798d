"""Atlas engine: bundle format, build pipeline, search and distribution. Imports no protocol library."""

from __future__ import annotations

__version__ = "0.1.0"
