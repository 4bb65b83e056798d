"""From a client's position to what is under it: the line and code-point column, and the
documented identifier there. Hover, definition and code actions all start from `cursor_at`.

Inside an API call whose operation can be seen (client code, a curl line), the call decides: its
method and URL pick the operation, and a key of its query or body is that operation's parameter.
Elsewhere, or where the call names nothing documented, the name alone is looked up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.engine import Resolution
from atlas_core.recognize import ENDPOINT, OPERATION, Recognition
from atlas_ls.lsp.documents import Snapshot, column_from_client, column_to_client
from atlas_ls.lsp.resolve import resolve_at

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_core.identifiers import CallTarget
    from atlas_ls.lsp.server import AtlasLanguageServer


@dataclass(frozen=True, slots=True)
class Cursor:
    """The engine that resolved the identifier (the request uses it throughout, so a bundle
    swap mid-request cannot mix two bundles), the document, and the identifier's line."""

    engine: Engine
    snapshot: Snapshot
    line: int
    resolution: Resolution
    target: CallTarget | None = None  # the call the cursor is in, when it decided
    # The call the cursor is in, on a key its operation does not document (`documented` says
    # what it does document there): the name alone must not speak for another operation.
    undocumented: CallTarget | None = None


def code_point_position(
    snap: Snapshot, pos: types.Position, encoding: str
) -> tuple[int, int] | None:
    """(line, code-point column) for a client position; None when it is past the text."""
    if not (0 <= pos.line < len(snap.lines)) or pos.character < 0:
        return None
    text = snap.lines[pos.line]
    if pos.character > column_to_client(text, len(text), encoding):
        return None
    return pos.line, column_from_client(text, pos.character, encoding)


def client_range(snap: Snapshot, line: int, start: int, end: int, encoding: str) -> types.Range:
    """The client's range for code-point columns `start`..`end` of `line`."""
    text = snap.lines[line]
    return types.Range(
        start=types.Position(line, column_to_client(text, start, encoding)),
        end=types.Position(line, column_to_client(text, end, encoding)),
    )


async def cursor_at(ls: AtlasLanguageServer, uri: str, pos: types.Position) -> Cursor | None:
    """The documented identifier at `pos` of `uri`; None when there is none (or no bundle yet)."""
    engine = await ls.engine()
    if engine is None:
        return None
    snap = await ls.snapshot(uri)
    if snap is None:
        return None
    where = code_point_position(snap, pos, ls.position_encoding)
    if where is None:
        return None
    line, column = where
    target = await call_target_at(ls, engine, snap, line, column)
    if target is not None and (target.param is not None or target.site.role == ENDPOINT):
        return Cursor(engine, snap, line, call_resolution(target), target)
    resolution = resolve_at(engine, snap, line, column, ls.recognizers)
    if target is not None:
        resolution = resolution or call_resolution(target)
        return Cursor(engine, snap, line, resolution, undocumented=target)
    if resolution is None:
        return None
    return Cursor(engine, snap, line, resolution)


async def call_target_at(
    ls: AtlasLanguageServer, engine: Engine, snap: Snapshot, line: int, column: int
) -> CallTarget | None:
    """The documented operation of the call the cursor is in, when the cursor is on its
    endpoint, on a parameter the operation documents, or on a key of its query or body that it
    does not (`documented` lists what it does take there); None otherwise (the name decides)."""
    site = await ls.calls.site_at(snap, line, column)
    # A client method's name is an operation name, which the name lookup resolves as well.
    if site is None or site.role == OPERATION or (site.role != ENDPOINT and not site.name):
        return None
    # The hover reads the name's definitions itself (all of them, for "also a parameter of");
    # definition and code actions need only the operation.
    target = engine.resolve_call(site, define=False)
    if target is None:
        return None
    if target.param is None and site.role != ENDPOINT and not target.documented:
        return None  # the operation documents nothing there: the key means what its name means
    return target


def call_resolution(target: CallTarget) -> Resolution:
    """The target as the resolution definition and code actions read: its operation's pages,
    the best first, over the columns of the name (or URL) under the cursor."""
    site = target.site
    recognition = Recognition(
        identifier=target.endpoint,
        kind="endpoint",
        start=site.start,
        end=site.end,
        recognizer="call",
        method=target.method,
    )
    return Resolution(recognition, (target.operation, *target.pages))
