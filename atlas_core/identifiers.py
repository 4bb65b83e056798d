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
from atlas_core.identifier_extract import Found, extract_document
from atlas_core.identifier_normalize import compact
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
    """All entries and deprecations of a corpus, before writing. Entries of one name come best
    documented first (`Scan.weight`), then by file and line; the writer keeps that order."""
    found: list[Found] = []
    deprecations: list[Deprecation] = []
    for doc in documents:
        # One scan serves every extractor: fences, sections and summaries cost the most.
        scan = Scan(doc.text, doc.title) if doc.text else None
        for e in doc.identifiers:
            weighted = scan is not None and e.kind in ("operation", "schema", "type")
            found.append(Found(e, scan.weight(e.name, e.line) if weighted else 0))
        if doc.source != "openapi" and scan is not None:
            found.extend(extract_document(doc, scan))
            deprecations.extend(extract_deprecations(doc, scan))
    # A name in plain prose is worth an entry only where no documented entry of that name (an
    # operation id, a heading, a client table, code) is as much about it.
    op_ids = {compact(f.entry.operation_id) for f in found if f.entry.operation_id}
    best: dict[str, int] = {}
    for f in found:
        if not f.mention and f.entry.kind in ("operation", "schema", "type"):
            key = compact(f.entry.name)
            best[key] = max(best.get(key, -1), f.weight)
    kept = [
        f
        for f in found
        if not f.mention
        or (
            f.weight > best.get(compact(f.entry.name), -1)
            and not (f.entry.kind == "operation" and compact(f.entry.name) in op_ids)
        )
    ]
    kept.sort(key=lambda f: (-f.weight, f.entry.file, f.entry.line))
    entries = [f.entry for f in kept]
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
