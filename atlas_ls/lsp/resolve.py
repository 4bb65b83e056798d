"""From a cursor position to documented identifiers, for a document the server holds: the
engine recognises, looks up and ranks (`atlas_core.engine.resolve_at`); this adds the snapshot and
the file URIs the protocol links to.

Hover, definition and code actions all start here, so they agree on what the cursor means.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atlas_core.engine import Engine, Resolution
    from atlas_core.recognize import RecognizerSet
    from atlas_ls.lsp.documents import Snapshot


def resolve_at(
    engine: Engine, snapshot: Snapshot, line: int, column: int, recognizers: RecognizerSet
) -> Resolution | None:
    """Resolve the identifier at a (line, code-point column) position of a document."""
    return engine.resolve_at(snapshot.lines, line, column, snapshot.language_id, recognizers)


def mirror_file(engine: Engine, candidate_bundle: str, relpath: str) -> Path:
    """The mirror file a candidate points into, in the bundle it came from (the engine's name
    for it, which the candidate carries)."""
    return engine.mirror_path(candidate_bundle, relpath)


def file_uri(path: Path) -> str:
    return path.resolve().as_uri()
