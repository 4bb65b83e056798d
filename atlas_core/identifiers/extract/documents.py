"""Build-time extraction of the identifier table: what the bundle pipeline calls.

`write_identifier_table` gathers the entries the sources already attach to documents (OpenAPI
operations and schemas) and what each markdown page says (`atlas_core.identifiers.extract.pages`), the
deprecations the docs state (`atlas_core.identifiers.extract.deprecations`), marks deprecated entries, and writes the
table (`atlas_core.identifiers.store.table`; format in ``bundle_spec/SPEC.md``, section "identifiers/").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from atlas_core.identifiers.extract.api_evidence import write_evidence
from atlas_core.identifiers.extract.deprecations import entry_deprecation, extract_deprecations
from atlas_core.identifiers.extract.document_scan import (
    DEFINITION_WEIGHT,
    HEADING_WEIGHT,
    Scan,
    bound,
)
from atlas_core.identifiers.extract.pages import Found, extract_document
from atlas_core.identifiers.spelling import compact
from atlas_core.identifiers.store.table import (
    API_EVIDENCE_FILE,
    OWNED_KINDS,
    TABLE_DIR,
    RowMemo,
    write_table,
)
from atlas_core.types import Chunk, Deprecation, Document, IdentifierEntry

__all__ = [
    "bound",
    "extract",
    "extract_ranked",
    "write_identifier_table",
    "write_table",
]


def extract(documents: Sequence[Document]) -> tuple[list[IdentifierEntry], list[Deprecation]]:
    """All entries and deprecations of a corpus, before writing. Entries of one name come best
    documented first (`Scan.weight`), then by file and line; the writer keeps that order."""
    found, deprecations = extract_ranked(documents)
    return [f.entry for f in found], deprecations


def _rank_weight(scan: Scan, f: Found, *, from_source: bool) -> int:
    """How much an entry's section documents it, comparable across pages and kinds.

    An endpoint is documented where its operation is, so it weighs what its operation id weighs
    in that section (its path when it has none). An entry a source attached to its own section
    (an OpenAPI operation's `##` section, headed by the summary rather than the id) is as much
    about it as a section headed by its name."""
    e = f.entry
    weight = f.weight
    if e.kind == "endpoint":
        named = e.operation_id or e.path
        weight = scan.weight(named, e.line) if named else 0
    if from_source and weight < HEADING_WEIGHT and scan.is_heading(e.line):
        weight += HEADING_WEIGHT
    return weight


def extract_ranked(documents: Sequence[Document]) -> tuple[list[Found], list[Deprecation]]:
    """`extract` with what ranks each entry against others of the same name on other pages: its
    section weight (`_rank_weight`) and whether its page was generated from an API spec."""
    found: list[Found] = []
    deprecations: list[Deprecation] = []
    ranked: list[tuple[Found, Scan | None, bool]] = []
    for doc in documents:
        # One scan serves every extractor: fences, sections and summaries cost the most. A
        # source file's definitions come with it; its text is not prose to scan.
        scan = Scan(doc.text, doc.title) if doc.text and not doc.language else None
        generated = doc.source == "openapi"
        for e in doc.identifiers:
            weighted = e.kind in ("operation", "schema", "type")
            weight = scan.weight(e.name, e.line) if scan is not None and weighted else 0
            if e.kind in OWNED_KINDS:
                weight = DEFINITION_WEIGHT  # a row of the spec's parameter or property table
            f = Found(e, weight, generated=generated)
            found.append(f)
            ranked.append((f, scan, True))
        if doc.source != "openapi" and scan is not None:
            for f in extract_document(doc, scan):
                found.append(f)
                ranked.append((f, scan, False))
            deprecations.extend(extract_deprecations(doc, scan))
    # A name in plain prose is worth an entry only where no documented entry of that name (an
    # operation id, a heading, a client table, code) is as much about it.
    op_ids = {compact(f.entry.operation_id) for f in found if f.entry.operation_id}
    best: dict[str, int] = {}
    for f in found:
        if not f.mention and f.entry.kind in ("operation", "schema", "type"):
            key = compact(f.entry.name)
            best[key] = max(best.get(key, -1), f.weight)

    def kept(f: Found) -> bool:
        return not f.mention or (
            f.weight > best.get(compact(f.entry.name), -1)
            and not (f.entry.kind == "operation" and compact(f.entry.name) in op_ids)
        )

    # The rank weight is taken after the prose filter above, which compares plain section weights.
    found = [
        replace(f, weight=_rank_weight(scan, f, from_source=source)) if scan is not None else f
        for f, scan, source in ranked
        if kept(f)
    ]
    # Among rows of equal weight, a page with more rows of the name first (the writer keeps
    # this order for equal names, and lookups break ties by it); a page's weight is not raised
    # by it, so a written definition still outranks a generated one of equal weight.
    density = _density(found)
    found.sort(
        key=lambda f: (
            -f.weight,
            -density[(f.entry.file, f.entry.kind, f.entry.name)],
            f.entry.file,
            f.entry.line,
        )
    )
    by_term = {d.term: d for d in deprecations}
    marked: list[Found] = []
    for f in found:
        e = f.entry
        if e.kind in ("endpoint", "operation", "schema", "type"):
            dep = by_term.get(e.name)
            if e.deprecated and dep is None:
                dep = by_term[e.name] = entry_deprecation(e)
                deprecations.append(dep)
            if dep is not None and not (e.deprecated and e.replacement):
                e = replace(e, deprecated=True, replacement=e.replacement or dep.replacement)
                f = replace(f, entry=e)
        marked.append(f)
    seen: set[tuple[str, str, int]] = set()
    unique_deps = []
    for d in deprecations:
        if (d.term, d.file, d.line) not in seen:
            seen.add((d.term, d.file, d.line))
            unique_deps.append(d)
    return marked, unique_deps


def _density(found: list[Found]) -> Counter[tuple[str, str, str]]:
    """Rows of each (page, kind, name) among parameters and properties: the page where most
    operations take `assetId` is the one most about it."""
    return Counter(
        (f.entry.file, f.entry.kind, f.entry.name) for f in found if f.entry.kind in OWNED_KINDS
    )


def write_identifier_table(
    documents: list[Document], chunks: list[Chunk], out_dir: Path, *, memo: RowMemo | None = None
) -> dict:
    """Extract identifiers from `documents` and write ``out_dir/identifiers/``; returns its manifest
    section. `chunks` is accepted for the pipeline's uniform call and not needed: line numbers and
    anchors come from the documents themselves. `memo`: see `write_table`."""
    del chunks
    found, deprecations = extract_ranked(documents)
    section = write_table(
        [f.entry for f in found],
        deprecations,
        out_dir,
        weights=[f.weight for f in found],
        generated=[f.generated for f in found],
        memo=memo,
    )
    # What the docs pages say about the API beside the specs; the API model reads it.
    counts = write_evidence(documents, out_dir / TABLE_DIR, API_EVIDENCE_FILE)
    section["files"] = sorted([*section.get("files", ()), f"{TABLE_DIR}/{API_EVIDENCE_FILE}"])
    section["api_evidence"] = counts
    return section
