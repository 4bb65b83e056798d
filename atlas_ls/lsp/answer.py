"""One answer per cursor, which the hover renders and go-to-definition opens: what the cursor is
on (a name, a call's endpoint or key, a literal value of a call's parameter) and the one page and
line that documents it. The hover links that place as its own; the definition lands on it. Neither
picks a page of its own, so the two agree whatever the ranking puts first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.identifiers import pick_definition
from atlas_core.types import Definition
from atlas_ls.lsp.cursor import code_point_position, cursor_at
from atlas_ls.lsp.hover_keys import value_target_at

if TYPE_CHECKING:
    from lsprotocol import types

    from atlas_core.engine import Engine, Resolution
    from atlas_core.identifiers import CallTarget
    from atlas_core.types import Candidate
    from atlas_ls.lsp.cursor import Cursor
    from atlas_ls.lsp.documents import Snapshot
    from atlas_ls.lsp.server import AtlasLanguageServer

MAX_DEFINITIONS = 100  # definitions of one name read for an answer (the engine's MAX_LIMIT)


@dataclass(frozen=True, slots=True)
class Place:
    """A line of a page in a bundle's mirror (`line` 1-based)."""

    bundle: str
    file: str
    line: int


@dataclass(frozen=True, slots=True)
class ValueAt:
    """A literal value of a documented enum parameter in a call: the call's target, the value as
    written, and the document, line and code-point column it starts at."""

    target: CallTarget
    written: str
    snapshot: Snapshot
    line: int
    start: int


@dataclass(frozen=True, slots=True)
class Answer:
    """What the cursor is on. `cursor` is the resolved name or call (None on a value the name
    lookup does not know); `value` is set on a literal value of a call's parameter, where the
    hover is about that parameter. `definition` is the parameter's or key's own definition in a
    call (with `definitions`, every definition of its name, most common meaning first); `place`
    is where the answer is documented: what the hover links and the definition opens."""

    engine: Engine
    cursor: Cursor | None
    value: ValueAt | None
    definition: Definition | None
    definitions: tuple[Definition, ...]
    place: Place | None


def call_definition(target: CallTarget, found: tuple[Definition, ...]) -> Definition:
    """The definition of the parameter under the cursor: the table's row for the call's
    operation among `found`, or (a table written before parameter rows) one made of the
    operation's own `Param`."""
    assert target.param is not None
    own = target.definition or pick_definition(found, target.param, target.schema, target.operation)
    if own is not None:
        return own
    op, p = target.operation, target.param
    return Definition(
        name=p.name,
        kind="property" if target.schema or p.location == "body" else "parameter",
        location=p.location,
        type=p.type,
        required=p.required,
        description=p.description,
        file=op.file,
        line=op.line,
        format=p.format,
        enum=p.enum,
        default=p.default,
        example=p.example,
        deprecated=p.deprecated,
        owner=target.schema,
        method=op.method,
        path=op.path,
        operation_id=op.operation_id,
        url=op.url,
        bundle=op.bundle,
    )


def place_of(item: Candidate | Definition) -> Place | None:
    return Place(item.bundle, item.file, max(item.line, 1)) if item.file else None


def name_place(resolution: Resolution) -> Place | None:
    """Where a resolved name is documented: its best candidate's line, which the hover shows
    (or, when that names no file, the best one that does)."""
    return next(filter(None, map(place_of, resolution.candidates)), None)


def _parameter_answer(engine: Engine, cursor: Cursor | None, value: ValueAt | None) -> Answer:
    target = value.target if value is not None else cursor.target if cursor else None
    assert target is not None and target.param is not None
    found = tuple(engine.definitions(target.param.name, limit=MAX_DEFINITIONS))
    own = call_definition(target, found)
    return Answer(engine, cursor, value, own, found, place_of(own))


async def answer_at(ls: AtlasLanguageServer, uri: str, pos: types.Position) -> Answer | None:
    """The answer at `pos` of `uri`; None where nothing documented is under the cursor."""
    cursor = await cursor_at(ls, uri, pos)
    if cursor is None or (cursor.target is None and cursor.undocumented is None):
        # Not a call's key or endpoint: perhaps the literal value of one of its keys.
        value = await _value_at(ls, uri, pos)
        if value is not None:
            return _parameter_answer(value[0], cursor, value[1])
        if cursor is None:
            return None
    engine = cursor.engine
    if cursor.target is not None and cursor.target.param is not None:
        return _parameter_answer(engine, cursor, None)
    if cursor.undocumented is not None:  # the call's operation says what it takes there
        place = place_of(cursor.undocumented.operation)
        return Answer(engine, cursor, None, None, (), place)
    return Answer(engine, cursor, None, None, (), name_place(cursor.resolution))


async def _value_at(
    ls: AtlasLanguageServer, uri: str, pos: types.Position
) -> tuple[Engine, ValueAt] | None:
    engine = await ls.engine()
    snap = await ls.snapshot(uri) if engine is not None else None
    if engine is None or snap is None:
        return None
    where = code_point_position(snap, pos, ls.position_encoding)
    if where is None:
        return None
    line, column = where
    found = await value_target_at(ls, engine, snap, line, column)
    if found is None:
        return None
    target, written, start = found
    return engine, ValueAt(target, written, snap, line, start)
