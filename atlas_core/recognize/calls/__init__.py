"""Reading the API call under the cursor in client code: `CallReader` (per-document trees,
incremental re-parsing) answers with a `CallSite` (method, URL, role, name) or None."""

from __future__ import annotations

from atlas_core.recognize.calls.reader import CallReader, call_at
from atlas_core.recognize.calls.site import CallSite

__all__ = ["CallReader", "CallSite", "call_at"]
