"""Reading ``identifiers/api_evidence.json``: the API facts docs pages state beside the specs
(written by `atlas_core.identifiers.extract.api_evidence`; format in ``bundle_spec/SPEC.md``).

A bundle built before the file existed, or one whose file is not the format this reader knows,
reads as no evidence: its checks run on the specs alone, as they did."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from atlas_core.identifiers.store.table import API_EVIDENCE_FILE

log = logging.getLogger(__name__)
EVIDENCE_FORMAT = "atlas-api-evidence"
MAX_EVIDENCE_BYTES = 64 * 1024 * 1024
_LISTS = ("definitions", "disagreements", "uses", "notices")


def read_api_evidence(directory: Path) -> dict[str, list[dict[str, Any]]]:
    """The evidence in a bundle's identifier folder; empty lists when it has none."""
    empty: dict[str, list[dict[str, Any]]] = {key: [] for key in _LISTS}
    path = directory / API_EVIDENCE_FILE
    try:
        if not path.is_file() or path.stat().st_size > MAX_EVIDENCE_BYTES:
            return empty
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return empty
    if not isinstance(found, dict) or found.get("format") != EVIDENCE_FORMAT:
        return empty
    return {
        key: [item for item in found.get(key) or () if isinstance(item, dict)]
        if isinstance(found.get(key), list)
        else []
        for key in _LISTS
    }
