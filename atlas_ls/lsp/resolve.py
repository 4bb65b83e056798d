"""From a cursor position to documented identifiers: recognise, look up, rank.

Hover, definition and code actions all start here, so they agree on what the cursor means.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.errors import QueryError
from atlas_core.identifiers import subject_keys
from atlas_core.recognize import Recognition, RecognizerSet, context_at, normalize_language
from atlas_core.types import Candidate
from atlas_ls.lsp.documents import Snapshot

if TYPE_CHECKING:
    from atlas_core.engine import Engine

logger = logging.getLogger(__name__)

# Fuzzy and keyword matches are right for workspace-symbol search, where the user reads a list;
# under the cursor they would put a confident-looking doc on the wrong identifier.
ACCEPTED_MATCHES = frozenset({"exact", "normalized"})
MAX_CANDIDATES = 6

# A page that merely writes a name ("mention") is not what a bare word in code refers to either.
_CODE_ONLY_EXCLUDED = frozenset({"json_key", "heading", "mention"})
_OWNED_KINDS = frozenset({"parameter", "property"})
_DATA_AND_PROSE = frozenset({"json", "yaml", "markdown", "plaintext", "text", ""})

_COMPATIBLE_KINDS = {
    "endpoint": {"endpoint"},
    "operation": {"operation", "endpoint"},
    "type": {"type", "schema"},
    "schema": {"schema", "type"},
    "json_key": {"json_key"},
    "cli": {"cli"},
    "graphql": {"graphql"},
}


@dataclass(frozen=True, slots=True)
class Resolution:
    recognition: Recognition
    candidates: tuple[Candidate, ...]  # best first, never empty

    @property
    def best(self) -> Candidate:
        return self.candidates[0]


def has_details(cand: Candidate) -> bool:
    return bool(cand.params or cand.request_schema or cand.response_schema)


def details_source(resolution: Resolution) -> Candidate | None:
    """Another candidate for the same subject that carries the parameters and schemas the best
    one lacks (a written section names an endpoint, the OpenAPI reference lists its fields)."""
    best = resolution.best
    if has_details(best):
        return None
    keys = subject_keys(best)
    for cand in resolution.candidates[1:]:
        if has_details(cand) and keys & subject_keys(cand):
            return cand
    return None


def other_pages(resolution: Resolution) -> list[Candidate]:
    """One candidate per other file that documents the same subject as the best one, in rank
    order (lookups list distinct files first)."""
    best = resolution.best
    keys = subject_keys(best)
    seen = {(best.bundle, best.file)}
    out: list[Candidate] = []
    for cand in resolution.candidates[1:]:
        where = (cand.bundle, cand.file)
        if cand.file and where not in seen and keys & subject_keys(cand):
            seen.add(where)
            out.append(cand)
    return out


def _rank(candidates: list[Candidate], rec: Recognition) -> list[Candidate]:
    wanted = _COMPATIBLE_KINDS.get(rec.kind, set())

    def key(item: tuple[int, Candidate]) -> tuple[float, int, int, int]:
        index, cand = item
        method_miss = 1 if rec.method and cand.method and cand.method != rec.method else 0
        return (-cand.confidence, method_miss, 0 if cand.kind in wanted else 1, index)

    return [c for _, c in sorted(enumerate(candidates), key=key)]


def _kind_allowed(cand: Candidate, rec: Recognition, language: str) -> bool:
    # A bare word in code that happens to equal a JSON key ("name", "type") or a heading
    # ("Validation") is almost never a reference to it; quoted, in JSON/YAML or in prose it is.
    # So with a parameter or property named by one plain word (`limit`, `offset`, `id`), where
    # a name with humps or underscores (`nameMatchMode`, `domain_id`) is the parameter itself.
    if rec.recognizer != "code_identifier":
        return True
    plain_word = cand.name.isalpha() and cand.name.islower()
    excluded = cand.kind in _CODE_ONLY_EXCLUDED or (cand.kind in _OWNED_KINDS and plain_word)
    return not excluded or normalize_language(language) in _DATA_AND_PROSE


def resolve_recognitions(
    engine: Engine, recognitions: list[Recognition], language: str = ""
) -> Resolution | None:
    """The first recognition that resolves to documented identifiers, with its candidates."""
    for rec in recognitions:
        for identifier in rec.lookups():
            try:
                found = engine.lookup(identifier, limit=MAX_CANDIDATES * 2)
            except QueryError as exc:  # a spelling the engine will not look up; try the next
                logger.debug("lookup %r refused: %s", identifier, exc)
                continue
            # Anything else (a BundleError from a damaged bundle) fails the request, which
            # reports it: a swallowed error would read as "nothing documented here".
            accepted = [
                c for c in found if c.match in ACCEPTED_MATCHES and _kind_allowed(c, rec, language)
            ]
            if accepted:
                return Resolution(rec, tuple(_rank(accepted, rec)[:MAX_CANDIDATES]))
    return None


def recognitions_at(
    snapshot: Snapshot, line: int, column: int, recognizers: RecognizerSet
) -> list[Recognition]:
    ctx = context_at(snapshot.lines, line, column, snapshot.language_id)
    if ctx is None:
        return []
    return recognizers.recognize_all(ctx)


def resolve_at(
    engine: Engine, snapshot: Snapshot, line: int, column: int, recognizers: RecognizerSet
) -> Resolution | None:
    """Resolve the identifier at a (line, code-point column) position of a document."""
    recognitions = recognitions_at(snapshot, line, column, recognizers)
    return resolve_recognitions(engine, recognitions, snapshot.language_id)


def mirror_file(engine: Engine, candidate_bundle: str, relpath: str) -> Path:
    """The mirror file a candidate points into, in the bundle it came from (the engine's name
    for it, which the candidate carries)."""
    return engine.mirror_path(candidate_bundle, relpath)


def file_uri(path: Path) -> str:
    return path.resolve().as_uri()
