"""From a client's position to what is under it: the line and code-point column, and the
documented identifier there. Hover, definition and code actions all start from `cursor_at`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_ls.lsp.documents import Snapshot, column_from_client, column_to_client
from atlas_ls.lsp.resolve import Resolution, resolve_at

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_ls.lsp.server import AtlasLanguageServer


@dataclass(frozen=True, slots=True)
class Cursor:
    """The engine that resolved the identifier (the request uses it throughout, so a bundle
    swap mid-request cannot mix two bundles), the document, and the identifier's line."""

    engine: Engine
    snapshot: Snapshot
    line: int
    resolution: Resolution


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
    resolution = resolve_at(engine, snap, line, column, ls.recognizers)
    if resolution is None:
        return None
    return Cursor(engine, snap, line, resolution)
