"""What a documented name is, composed once for every host: the candidates it resolves to, the
best one completed from another page of its subject, the definitions of a parameter or property
name, where the project's code calls it, the sections its pages place it in and its deprecation.

The hover and MCP's `lookup_identifier` (and any other host) render a `Description`; neither
composes these answers itself.

Where the name was met decides what is described (`DescribeContext`). At a cursor, the recognizers
resolved it already and the report describes its best candidate, the subject: the one thing a
hover shows. A name asked for by hand is looked up with one candidate per subject, and each
candidate is described as its own page documents it, since the caller lists them all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from atlas_core.engine.resolution import Resolution, details_source, other_pages
from atlas_core.search import MAX_LIMIT
from atlas_core.types import Candidate, Definition, Deprecation, Param, Section, Usage

if TYPE_CHECKING:
    from atlas_core.engine.facade import Engine

OWNED_KINDS = frozenset({"parameter", "property"})


@dataclass(frozen=True, slots=True)
class DescribeContext:
    """Where a name was met and how much to say about it."""

    # What a cursor resolved the name to (`Engine.resolve_at`); None for a name asked for by
    # hand, which is looked up (`Engine.resolve`) for at most `limit` candidates.
    resolution: Resolution | None = None
    limit: int = 10
    usages: int = 0  # places in the project's code listed per described candidate (0: none)
    sections: bool = False  # each described candidate's section (reads its page's headings)
    definitions: int = MAX_LIMIT  # definitions of a parameter or property name read (0: none)


@dataclass(frozen=True, slots=True)
class Description:
    """Everything a host shows about a name. `candidates` are best first; `usages` and
    `sections` line up with them for the candidates described (at a cursor the first only)."""

    name: str
    resolution: Resolution | None  # at a cursor: what it resolved to; None for a name by hand
    candidates: tuple[Candidate, ...]
    subject: Candidate | None  # the first candidate, with the fields `source` lends it
    source: Candidate | None  # another page of the subject lending parameters and schemas
    other_pages: tuple[Candidate, ...]  # other pages documenting the subject, in rank order
    defined: str  # the parameter or property name `definitions` define; "" for none
    definitions: tuple[Definition, ...]  # most common meaning first
    definition: Definition | None  # the defined candidate's own: its table row, or its param
    usages: tuple[tuple[Usage, ...], ...]
    sections: tuple[Section, ...]
    deprecation: Deprecation | None  # the docs' deprecation of the subject's names (at a cursor)

    @property
    def found(self) -> bool:
        return bool(self.candidates)


def describe(engine: Engine, name: str, context: DescribeContext) -> Description:
    resolution = context.resolution
    at_cursor = resolution is not None
    if resolution is not None:
        candidates = resolution.candidates
    else:
        candidates = tuple(engine.resolve(name, context.limit))
    described = candidates[:1] if at_cursor else candidates
    source = subject = None
    pages: tuple[Candidate, ...] = ()
    if resolution is not None:
        source = details_source(resolution)
        subject = resolution.best if source is None else _with_details(resolution.best, source)
        pages = tuple(other_pages(resolution))
    elif candidates:
        subject = candidates[0]
    # At a cursor the name is the subject's when it is a parameter or property; a name asked
    # for by hand may mean any of its candidates, so the first that is one is defined.
    owned = next((c for c in described if c.kind in OWNED_KINDS), None)
    if not context.definitions:
        owned = None
    defined = owned.name if owned is not None else ""
    definitions = engine.definitions(defined, limit=context.definitions) if defined else []
    definition = None
    if owned is not None:
        place = (owned.bundle, owned.file, owned.line)
        found = (d for d in definitions if (d.bundle, d.file, d.line) == place)
        definition = next(found, None) or definition_of(owned)
    # A parameter or property under the cursor is described by its definitions: the calls and
    # the deprecation of its operation belong to the operation's own description.
    operation = subject is not None and subject.kind not in OWNED_KINDS
    if at_cursor:
        for_usages = [subject] if operation and subject is not None else []
    else:
        for_usages = list(candidates)
    usages = tuple(
        tuple(engine.usages_of(c, context.usages)) if context.usages else () for c in for_usages
    )
    sections = (
        tuple(engine.section_at(c.bundle, c.file, c.line) for c in described)
        if context.sections
        else ()
    )
    deprecation = None
    if at_cursor and operation and subject is not None:
        deprecation = engine.deprecation_of(subject.name, subject.operation_id)
    return Description(
        name=name,
        resolution=resolution,
        candidates=candidates,
        subject=subject,
        source=source,
        other_pages=pages,
        defined=defined,
        definitions=tuple(definitions),
        definition=definition,
        usages=usages,
        sections=sections,
        deprecation=deprecation,
    )


def _with_details(cand: Candidate, source: Candidate) -> Candidate:
    """`cand` (the section a host links to) with the fields it lacks taken from `source`."""
    return replace(
        cand,
        summary=cand.summary or source.summary,
        method=cand.method or source.method,
        path=cand.path or source.path,
        operation_id=cand.operation_id or source.operation_id,
        params=source.params,
        request_schema=source.request_schema,
        response_schema=source.response_schema,
        deprecated=cand.deprecated or source.deprecated,
        replacement=cand.replacement or source.replacement,
    )


def definition_of(cand: Candidate) -> Definition:
    """The definition a parameter or property candidate carries (its one param), for a name
    whose table has no row of its own for that place."""
    p = cand.params[0] if cand.params else Param(cand.name, "")
    return Definition(
        name=cand.name,
        kind=cand.kind,
        location=p.location,
        type=p.type,
        required=p.required,
        description=p.description or cand.summary,
        file=cand.file,
        line=cand.line,
        format=p.format,
        enum=p.enum,
        default=p.default,
        example=p.example,
        deprecated=p.deprecated,
        owner=cand.owner,
        method=cand.method,
        path=cand.path,
        operation_id=cand.operation_id,
        anchor=cand.anchor,
        url=cand.url,
        publication=cand.publication,
        bundle=cand.bundle,
    )
