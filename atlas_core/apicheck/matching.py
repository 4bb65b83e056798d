"""Which documented operation a call names: its URL as the API's path (`locate`), then the
operation its method and path match (`operation_of_call`), or why none does.

Matching is method-aware and literal segments beat parameter segments: ``POST
/communities/removalJobs`` is its own endpoint, never ``/communities/{communityId}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from atlas_core.apicheck.findings import (
    MAX_SUGGESTIONS,
    METHOD_NOT_ALLOWED,
    SUGGEST_CUTOFF,
    UNKNOWN_ENDPOINT,
)
from atlas_core.apicheck.model import WILDCARD, ApiModel, Operation, segments_of
from atlas_core.recognize import UNKNOWN

_COLLIBRA_HOST = re.compile(r"(?i)^[a-z][a-z0-9+.\-]*://[^/]*collibra[^/]*")
SCHEME_HOST = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://[^/]*")
_VERSION = re.compile(r"(?i)v\d+(?:\.\d+)*")
# What may stand before a base path: nothing, or up to three segments, any of them unknown (a
# proxy's path, or a browser's `${location.protocol}//${location.host}`).
_BEFORE_BASE = re.compile(r"(?:(?:\{\}|[\w.~%-]+)(?:/(?:\{\}|[\w.~%-]+)){0,2})?")

# How sure the URL is Collibra's: a known base path or host, or only a known first resource.
COLLIBRA, RESOURCE = "collibra", "resource"


@dataclass(frozen=True, slots=True)
class ApiPath:
    """A call's URL as the API's path: its segments after the base (unknown parts ``{}``) and
    how sure it is Collibra's (`COLLIBRA` or `RESOURCE`)."""

    evidence: str
    segments: tuple[str, ...]


def locate(model: ApiModel, url: str) -> ApiPath | None:
    """The API path segments of `url` and how sure it is Collibra's; None when it is not a call
    the model can judge (another API, a base the specs do not declare, an unknown start)."""
    url = url.split("?", 1)[0].split("#", 1)[0]
    host = SCHEME_HOST.match(url)
    path = url[host.end() :] if host else url
    evidence = ""
    based = False  # the path is under a base path a spec declares
    if not host and any(f"{path}/".startswith(f"{base}/") for base in model.base_paths):
        path = "/" + path  # relative to a base URL that ends in its slash (`rest/2.0/assets`)
    for base in model.bases:
        at = path.find(base)
        end = at + len(base)
        # Only a host, an unknown base variable or a proxy's path (`/api/collibra`, as browser
        # code reaches the API from its own origin) may stand before the base path.
        if (
            at >= 0
            and (end == len(path) or path[end] == "/")
            and _BEFORE_BASE.fullmatch(path[:at].strip("/"))
        ):
            path, evidence, based = path[end:], COLLIBRA, True
            break
    if not evidence:
        if path.startswith("/rest/") or path.startswith(UNKNOWN + "/rest/"):
            return None  # another Collibra API (1.0, catalog, workflow) no spec here describes
        if host and not _COLLIBRA_HOST.match(url):
            return None  # a host of another service
        if host:
            evidence = COLLIBRA
        if path.startswith(UNKNOWN):
            path = path[len(UNKNOWN) :]
        elif not path.startswith("/"):
            return None
    segments = segments_of(path)
    if not segments or all(s == WILDCARD for s in segments):
        return None
    # A segment the code computes only in part (``f"{kind}s"``) may be any word: the path is
    # not certain, and no operation is guessed for it.
    if any(UNKNOWN in s and s != WILDCARD for s in segments):
        return None
    # An API version after the base (``{host}/search/v1``) is another API's path scheme,
    # unless a documented path has that version segment too.
    versions = {s for s in segments if _VERSION.fullmatch(s)}
    fits = model.matching(segments) if versions and not based else ()
    if versions and not based and not any(versions <= set(op.segments) for _, op in fits):
        return None
    # Outside the specs' base paths, only what starts like a documented path is judged: a
    # Collibra host serves other APIs too (Edge, data quality, ...) that no spec here describes.
    if not based and (segments[0] == WILDCARD or not model.knows_resource(segments[0])):
        return None
    return ApiPath(evidence or RESOURCE, segments)


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a method and path name: the operation, or why none."""

    operation: Operation | None = None
    problem: str = ""  # UNKNOWN_ENDPOINT or METHOD_NOT_ALLOWED
    methods: tuple[str, ...] = ()  # what the path takes, for METHOD_NOT_ALLOWED
    path: str = ""  # the template the path was matched to
    suggestions: tuple[Operation, ...] = ()  # for UNKNOWN_ENDPOINT


def operation_of_call(
    model: ApiModel, method: str, segments: tuple[str, ...], *, ids: bool = False
) -> Resolution:
    """The operation `method` and `segments` name. `ids`: every unknown segment is an id the
    code computes (``+ relationId``), so it stands for a parameter, never a literal segment.
    Remembered per model: a document calls the same endpoints again and again."""
    key = (method.upper(), segments, ids)
    found = model.remembered(key)
    if found is None:
        found = model.remember(key, _match_operation(model, key[0], segments, ids))
    return found


def _match_operation(
    model: ApiModel, method: str, segments: tuple[str, ...], ids: bool
) -> Resolution:
    fits = model.matching(segments)
    if not fits:
        return Resolution(problem=UNKNOWN_ENDPOINT, suggestions=_similar(model, method, segments))
    best = max(score for score, _ in fits)
    top = [op for score, op in fits if score == best]
    if not method:
        return Resolution(operation=top[0], path=top[0].path)
    for op in top:
        if op.method == method:
            return Resolution(operation=op, path=op.path)
    if WILDCARD in segments and not ids:
        # An unknown segment may be a literal another template has: any fit with the method is it.
        for _score, op in sorted(fits, key=lambda item: (-item[0][0], -item[0][1])):
            if op.method == method:
                return Resolution(operation=op, path=op.path)
    if best[1] < segments.count(WILDCARD):
        # The path fits only where a segment the code computes meets a literal one
        # (`/workflowInstances/${id}` and /workflowInstances/startJobs): the code names an
        # id's path the docs do not show, not that literal with the wrong method.
        return Resolution()
    paths = {op.path for op in top}
    methods = tuple(sorted({op.method for op in top}, key=_method_order))
    return Resolution(problem=METHOD_NOT_ALLOWED, methods=methods, path=sorted(paths)[0])


def _method_order(method: str) -> int:
    order = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
    return order.index(method) if method in order else len(order)


def _similar(model: ApiModel, method: str, segments: tuple[str, ...]) -> tuple[Operation, ...]:
    """Documented paths most like `segments` (same number of segments first), preferring those
    that take `method`."""
    from rapidfuzz import fuzz

    wanted = "/".join(segments)
    scored: dict[str, tuple[float, Operation]] = {}
    for op in model.operations:
        if abs(len(op.segments) - len(segments)) > 1:
            continue
        score = fuzz.ratio(wanted, "/".join(op.segments))
        score -= 8 * abs(len(op.segments) - len(segments))
        if method and op.method == method:
            score += 1
        if score >= SUGGEST_CUTOFF and score > scored.get(op.path, (0.0, op))[0]:
            scored[op.path] = (score, op)
    ranked = sorted(scored.values(), key=lambda item: -item[0])
    return tuple(op for _, op in ranked[:MAX_SUGGESTIONS])
