"""What a name met in a document resolves to: the documented identifiers its recognitions name,
ranked for the place it stands in (under a cursor, where a confident answer on the wrong identifier
misleads). Hover, go-to-definition, code actions and `Engine.describe` all start here, so they agree
on what a name means.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from atlas_core.errors import QueryError
from atlas_core.identifiers import subject_keys
from atlas_core.recognize import Recognition, RecognizerSet, context_at, normalize_language
from atlas_core.types import Candidate

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


def rank(candidates: list[Candidate], rec: Recognition) -> list[Candidate]:
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
    lookup: Callable[[str, int], list[Candidate]],
    recognitions: Sequence[Recognition],
    language: str = "",
) -> Resolution | None:
    """The first recognition that resolves to documented identifiers, with its candidates
    (`lookup` is `Engine.lookup`)."""
    for rec in recognitions:
        for identifier in rec.lookups():
            try:
                found = lookup(identifier, MAX_CANDIDATES * 2)
            except QueryError as exc:  # a spelling the engine will not look up; try the next
                logger.debug("lookup %r refused: %s", identifier, exc)
                continue
            # Anything else (a BundleError from a damaged bundle) fails the request, which
            # reports it: a swallowed error would read as "nothing documented here".
            accepted = [
                c for c in found if c.match in ACCEPTED_MATCHES and _kind_allowed(c, rec, language)
            ]
            if accepted:
                return Resolution(rec, tuple(rank(accepted, rec)[:MAX_CANDIDATES]))
    return None


def recognitions_at(
    lines: Sequence[str], line: int, column: int, language: str, recognizers: RecognizerSet
) -> list[Recognition]:
    """What the recognizers read at a (line, code-point column) position of a document."""
    ctx = context_at(lines, line, column, language)
    if ctx is None:
        return []
    return recognizers.recognize_all(ctx)
