"""Where a bundle's sources define one operation differently: a docs page's embedded spec against
a spec file (`atlas_core.identifiers.extract.api_evidence` records them at build time), each with
what both say and which one the checks follow. ``atlas diff`` and ``atlas info`` list them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atlas_core.identifiers import TABLE_DIR, read_api_evidence

MAX_LISTED = 500  # disagreements one listing holds


def source_disagreements(bundle: Path, limit: int = MAX_LISTED) -> list[dict[str, str]]:
    """The disagreements recorded in the bundle at `bundle` (none for one built before they
    were), at most `limit`."""
    found = read_api_evidence(Path(bundle) / TABLE_DIR)["disagreements"]
    keys = ("operation", "name", "page_says", "file_says", "page", "url", "file", "follows")
    return [{k: str(d.get(k, "")) for k in keys} for d in found[: max(0, limit)]]


def disagreement_line(d: dict[str, Any]) -> str:
    """One line: ``GET /assets countLimit: api/x.md says query parameter, dgc-rest.json says
    absent; checks follow api/x.md``."""
    name = f" {d['name']}" if d.get("name") else ""
    return (
        f"{d['operation']}{name}: {d['page']} says {d['page_says']}, "
        f"{d['file'] or 'the spec file'} says {d['file_says']}; checks follow {d['follows']}"
    )
