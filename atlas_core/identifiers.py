"""Build-time extraction of the identifier table: what the bundle pipeline calls.

`write_identifier_table` gathers the entries the sources already attach to documents (OpenAPI
operations and schemas) and what each markdown page says (`atlas_core.identifier_extract`), the
deprecations the docs state (`atlas_core.deprecations`), marks deprecated entries, and writes the
table (`atlas_core.identifier_table`; format in ``bundle_spec/SPEC.md``, section "identifiers/").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from atlas_core.deprecations import entry_deprecation, extract_deprecations
from atlas_core.identifier_extract import extract_document
from atlas_core.identifier_scan import Scan, bound
from atlas_core.identifier_synthetic import synthetic_entries, write_synthetic_table
from atlas_core.identifier_table import write_table
from atlas_core.types import Chunk, Deprecation, Document, IdentifierEntry

__all__ = [
    "bound",
    "extract",
    "synthetic_entries",
    "write_identifier_table",
    "write_synthetic_table",
    "write_table",
]


def extract(documents: Sequence[Document]) -> tuple[list[IdentifierEntry], list[Deprecation]]:
    """All entries and deprecations of a corpus, before writing."""
    entries: list[IdentifierEntry] = []
    deprecations: list[Deprecation] = []
    for doc in documents:
        entries.extend(doc.identifiers)
        if doc.source != "openapi":
            # One scan serves both extractors: fences, sections and summaries cost the most.
            scan = Scan(doc.text, doc.title)
            entries.extend(extract_document(doc, scan))
            deprecations.extend(extract_deprecations(doc, scan))
    by_term = {d.term: d for d in deprecations}
    marked: list[IdentifierEntry] = []
    for e in entries:
        if e.kind in ("endpoint", "operation", "schema", "type"):
            dep = by_term.get(e.name)
            if e.deprecated and dep is None:
                dep = by_term[e.name] = entry_deprecation(e)
                deprecations.append(dep)
            if dep is not None and not (e.deprecated and e.replacement):
                e = replace(e, deprecated=True, replacement=e.replacement or dep.replacement)
        marked.append(e)
    seen: set[tuple[str, str, int]] = set()
    unique_deps = []
    for d in deprecations:
        if (d.term, d.file, d.line) not in seen:
            seen.add((d.term, d.file, d.line))
            unique_deps.append(d)
    return marked, unique_deps


def write_identifier_table(documents: list[Document], chunks: list[Chunk], out_dir: Path) -> dict:
    """Extract identifiers from `documents` and write ``out_dir/identifiers/``; returns its manifest
    section. `chunks` is accepted for the pipeline's uniform call and not needed: line numbers and
    anchors come from the documents themselves."""
    del chunks
    entries, deprecations = extract(documents)
    return write_table(entries, deprecations, out_dir)
