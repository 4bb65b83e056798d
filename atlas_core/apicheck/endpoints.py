"""Findings about a call's endpoint: not documented (with the nearest documented paths), a
method the path does not take, or a deprecated operation (with its replacement)."""

from __future__ import annotations

import re
from dataclasses import replace

from atlas_core.apicheck.findings import (
    DEPRECATED,
    ERROR,
    INFORMATION,
    METHOD_NOT_ALLOWED,
    UNKNOWN_ENDPOINT,
    WARNING,
    Place,
    finding,
)
from atlas_core.apicheck.matching import COLLIBRA, SCHEME_HOST, locate, operation_of_call
from atlas_core.apicheck.model import WILDCARD, ApiModel, Operation, segments_of
from atlas_core.recognize import UNKNOWN
from atlas_core.types import ApiFinding

_ENDPOINT_TEXT = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S+)$")


def check_endpoint(
    model: ApiModel, method: str, url: str, place: Place, *, ids: bool = False
) -> tuple[Operation | None, list[ApiFinding]]:
    """The operation a call's method and URL name, and what is wrong with them (`ids`: see
    `operation_of_call`)."""
    where = locate(model, url)
    if where is None:
        return None, _noticed(model, url, place)
    found = operation_of_call(model, method, where.segments, ids=ids)
    severity = ERROR if where.evidence == COLLIBRA else WARNING
    shown = "/" + "/".join(where.segments)
    if found.problem == UNKNOWN_ENDPOINT:
        near = found.suggestions
        if not any(_slip(where.segments, o.segments) for o in near):
            # A path like no documented one (`/ping`, `/views`) may be an endpoint the bundle's
            # docs do not cover yet: only a slip of a documented path is surely a mistake.
            return None, []
        message = f"{method + ' ' if method else ''}{shown} is not a documented endpoint"
        if near:
            message += "; did you mean " + " or ".join(f"{o.path}" for o in near) + "?"
        fixes = [_path_fix(place.text, where.segments, o.segments) for o in near]
        return None, [
            finding(
                UNKNOWN_ENDPOINT,
                severity,
                message,
                place,
                near[0] if near else None,
                fixes=fixes,
                target="path",
                matched=False,
            )
        ]
    if found.problem == METHOD_NOT_ALLOWED:
        ops = [op for op in model.operations if op.path == found.path]
        message = f"{found.path} does not take {method}; it takes {', '.join(found.methods)}"
        return None, [
            finding(
                METHOD_NOT_ALLOWED,
                severity,
                message,
                place,
                ops[0] if ops else None,
                target="method",
                matched=False,
            )
        ]
    op = found.operation
    if op is None:
        return None, []
    findings = []
    if op.deprecated:
        findings.append(deprecated_operation(op, place))
    return op, findings


def _noticed(model: ApiModel, url: str, place: Place) -> list[ApiFinding]:
    """Information on a call to an API no spec describes (``/rest/1.0``) when a docs page says
    it is removed or blocked, naming that page; nothing otherwise."""
    if not model.notices or not place.text:
        return []
    host = SCHEME_HOST.match(url)
    path = url[host.end() :] if host else url
    path = path.split("?", 1)[0]
    if path.startswith(UNKNOWN):
        path = path[len(UNKNOWN) :]
    for notice in model.notices:
        end = len(notice.prefix)
        if path.startswith(notice.prefix) and path[end : end + 1] in ("", "/"):
            message = f"{notice.prefix} is not an API the bundle's specs describe; {notice.page} says: {notice.text}"
            return [
                replace(
                    finding(DEPRECATED, INFORMATION, message, place, None, target="path"),
                    href=notice.url,
                    rule=f"docs page {notice.page}",
                )
            ]
    return []


def deprecated_operation(op: Operation, place: Place) -> ApiFinding:
    message = f"{op.endpoint} is deprecated"
    note = " ".join(op.summary.split())
    if op.removed:
        message += " and will be removed"
    if op.replacement:
        message += f"; use {op.replacement} instead"
    elif note:
        message += f": {note[:200]}"
    fixes: list[str] = []
    m = _ENDPOINT_TEXT.match(op.replacement.strip())
    if m and m.group(1) == op.method and place.text:
        replacement = segments_of(m.group(2))
        fixes.append(_path_fix(place.text, op.segments, replacement))
    severity = WARNING if op.removed else INFORMATION
    return finding(
        DEPRECATED, severity, message, place, op, fixes=fixes, deprecated=True, target="path"
    )


def _slip(written: tuple[str, ...], documented: tuple[str, ...]) -> bool:
    """Whether `written` is `documented` with one literal segment misspelt: another case,
    singular for plural or the reverse, or at most two letters changed, dropped, added or
    swapped in a word of four or more."""
    if len(written) != len(documented):
        return False
    # A documented `{param}` segment takes whatever the code writes there.
    diffs = [(a, b) for a, b in zip(written, documented, strict=True) if a != b and "{" not in b]
    if len(diffs) != 1 or WILDCARD in diffs[0]:
        return False
    a, b = (part.lower() for part in diffs[0])
    if a == b or a.rstrip("s") == b.rstrip("s") or a + "es" == b or b + "es" == a:
        return True
    from rapidfuzz.distance import DamerauLevenshtein

    return min(len(a), len(b)) >= 4 and DamerauLevenshtein.distance(a, b) <= 2


def _path_fix(literal: str, written: tuple[str, ...], wanted: tuple[str, ...]) -> str:
    """`literal` with the one literal segment that differs from `wanted` replaced; "" when the
    difference is not one segment written in this literal."""
    if not literal or len(written) != len(wanted):
        return ""
    diffs = [(a, b) for a, b in zip(written, wanted, strict=True) if a != b]
    if len(diffs) != 1 or WILDCARD in diffs[0]:
        return ""
    old, new = diffs[0]
    pattern = re.compile(rf"(?<![\w{{}}]){re.escape(old)}(?![\w{{}}])")
    if len(pattern.findall(literal)) != 1:
        return ""
    return pattern.sub(new, literal)
