"""Which file Atlas renders each OpenAPI operation into (see the package docstring)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from benchmarks.devset.pages import plain

if TYPE_CHECKING:
    from benchmarks.devset.spec import Spec


def slug(text: str) -> str:
    """`atlas_core.sources.openapi_pages.slug`, recomputed."""
    text = plain(text).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_").replace(" ", "-")
    return re.sub(r"-{2,}", "-", text.replace("_", "-")).strip("-")


def assign_pages(spec: Spec) -> None:
    """Assign each operation the file `load_openapi` renders it into (see the package docstring)."""
    order = [
        str(t["name"]) for t in spec.raw.get("tags") or [] if isinstance(t, dict) and t.get("name")
    ]
    for op in spec.ops:
        if op.tag not in order:
            order.append(op.tag)
    taken = {"schemas"} if spec.schemas else set()
    page_of: dict[str, str] = {}
    for tag in order:
        base = slug(tag) or "tag"
        candidate, n = base, 1
        while candidate in taken:
            candidate, n = f"{base}-{n}", n + 1
        taken.add(candidate)
        page_of[tag] = f"{spec.stem}/{candidate}.md"
    for op in spec.ops:
        op.page = page_of[op.tag]
