"""Checking API calls against the `ApiModel`: the endpoint, the method, each key and value.

Precision comes first: a call is checked only when its URL is visibly Collibra's (a base path a
spec declares, a ``collibra`` host) or, behind a base the code does not show, when its first
segment is a documented resource; keys only for operations a spec documents, only the body's and
params' own keys (never inside a nested map), values only when written as literals, missing
required keys only when the whole literal is in view. Matching is method-aware and literal
segments beat parameter segments: ``POST /communities/removalJobs`` is its own endpoint, never
``/communities/{communityId}``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from atlas_core.apicheck.model import WILDCARD, ApiModel, Operation, segments_of
from atlas_core.recognize import BODY, ENDPOINT, OPERATION, QUERY, SDK, UNKNOWN, CallSite, Located
from atlas_core.syntax import line_starts
from atlas_core.types import ApiFinding, Param

UNKNOWN_ENDPOINT = "unknown-endpoint"
METHOD_NOT_ALLOWED = "method-not-allowed"
UNKNOWN_PARAM = "unknown-param"
MISSING_REQUIRED = "missing-required"
BAD_VALUE = "bad-value"
DEPRECATED = "deprecated"
CHECKS = (
    UNKNOWN_ENDPOINT,
    METHOD_NOT_ALLOWED,
    UNKNOWN_PARAM,
    MISSING_REQUIRED,
    BAD_VALUE,
    DEPRECATED,
)

ERROR, WARNING, INFORMATION = "error", "warning", "information"
# How alike a misspelt name and a documented one must be (rapidfuzz ratio) to be offered.
SUGGEST_CUTOFF = 72.0
MAX_SUGGESTIONS = 3
_COLLIBRA_HOST = re.compile(r"(?i)^[a-z][a-z0-9+.\-]*://[^/]*collibra[^/]*")
_SCHEME_HOST = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://[^/]*")
_PLAIN_VALUE = re.compile(r"^[\w.\-]{1,100}$")
_ENDPOINT_TEXT = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S+)$")

# How sure the URL is Collibra's: a known base path or host, or only a known first resource.
COLLIBRA, RESOURCE = "collibra", "resource"


@dataclass(frozen=True, slots=True)
class Place:
    """Where in the code a finding goes, and the text written there (for quick fixes)."""

    line: int = 0
    start: int = 0
    end: int = 0
    text: str = ""


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
    host = _SCHEME_HOST.match(url)
    path = url[host.end() :] if host else url
    evidence = ""
    based = False  # the path is under a base path a spec declares
    for base in model.bases:
        at = path.find(base)
        end = at + len(base)
        if at >= 0 and (end == len(path) or path[end] == "/"):
            before = path[:at]
            # Only a host or an unknown base variable may stand before the base path.
            if before.strip("/") in ("", UNKNOWN):
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


def resolve(
    model: ApiModel, method: str, segments: tuple[str, ...], *, ids: bool = False
) -> Resolution:
    """The operation `method` and `segments` name. `ids`: every unknown segment is an id the
    code computes (``+ relationId``), so it stands for a parameter, never a literal segment.
    Remembered per model: a document calls the same endpoints again and again."""
    key = (method.upper(), segments, ids)
    found = model.remembered(key)
    if found is None:
        found = model.remember(key, _resolve(model, key[0], segments, ids))
    return found


def _resolve(model: ApiModel, method: str, segments: tuple[str, ...], ids: bool) -> Resolution:
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


# --- findings ------------------------------------------------------------------------------


def _rule(op: Operation) -> str:
    if op.spec is not None:
        title = op.spec.title or op.spec.file
        return f"{title} ({op.spec.file})" if op.spec.file and op.spec.file != title else title
    return f"docs page {op.file}"


def _finding(
    check: str,
    severity: str,
    message: str,
    place: Place,
    op: Operation | None,
    *,
    fixes: Iterable[str] = (),
    deprecated: bool = False,
    target: str = "",
    matched: bool = True,
) -> ApiFinding:
    """A finding about a call to `op` (not `matched`: `op` is only the closest documented one,
    whose page and rule the finding links)."""
    return ApiFinding(
        check=check,
        severity=severity,
        message=message,
        line=place.line,
        start=place.start,
        end=place.end,
        fixes=tuple(dict.fromkeys(f for f in fixes if f)),
        href=op.url if op is not None else "",
        rule=_rule(op) if op is not None else "",
        deprecated=deprecated,
        endpoint=op.endpoint if op is not None and matched else "",
        target=target,
    )


def check_endpoint(
    model: ApiModel, method: str, url: str, place: Place, *, ids: bool = False
) -> tuple[Operation | None, list[ApiFinding]]:
    """The operation a call's method and URL name, and what is wrong with them (`ids`: see
    `resolve`)."""
    where = locate(model, url)
    if where is None:
        return None, []
    found = resolve(model, method, where.segments, ids=ids)
    severity = ERROR if where.evidence == COLLIBRA else WARNING
    shown = "/" + "/".join(where.segments)
    if found.problem == UNKNOWN_ENDPOINT:
        near = found.suggestions
        message = f"{method + ' ' if method else ''}{shown} is not a documented endpoint"
        if near:
            message += "; did you mean " + " or ".join(f"{o.path}" for o in near) + "?"
        fixes = [_path_fix(place.text, where.segments, o.segments) for o in near]
        return None, [
            _finding(
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
            _finding(
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
        findings.append(_deprecated_operation(op, place))
    return op, findings


def _deprecated_operation(op: Operation, place: Place) -> ApiFinding:
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
    return _finding(
        DEPRECATED, severity, message, place, op, fixes=fixes, deprecated=True, target="path"
    )


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


def check_key(
    op: Operation,
    role: str,
    name: str,
    place: Place,
    value: str | None,
    value_place: Place | None,
) -> list[ApiFinding]:
    """A query or body key of a call to `op` (and its literal value, when written)."""
    if op.spec is None:
        return []
    allowed = _allowed(op, role)
    if allowed is None:
        return []
    known = {p.name: p for p in allowed}
    param = known.get(name)
    where = "query parameter" if role == QUERY else "request body property"
    target = f"{'params' if role == QUERY else 'body'}.{name}"
    if param is None:
        if not _NAME.match(name):
            return []
        near = _near(name, [p.name for p in allowed])
        message = f"'{name}' is not a {where} of {op.endpoint}"
        if near:
            message += "; did you mean " + " or ".join(f"'{n}'" for n in near) + "?"
        elif allowed:
            names = ", ".join(p.name for p in allowed[:8])
            message += f" (it takes {names}{', ...' if len(allowed) > 8 else ''})"
        return [_finding(UNKNOWN_PARAM, WARNING, message, place, op, fixes=near, target=target)]
    findings = []
    if param.deprecated:
        message = f"'{name}' ({where} of {op.endpoint}) is deprecated"
        findings.append(
            _finding(DEPRECATED, INFORMATION, message, place, op, deprecated=True, target=target)
        )
    if value is not None and value_place is not None and param.enum:
        bad = _bad_value(param, value)
        if bad is not None:
            values = ", ".join(param.enum)
            message = f"'{value}' is not a value of {name} ({op.endpoint}); it takes {values}"
            findings.append(
                _finding(BAD_VALUE, WARNING, message, value_place, op, fixes=bad, target=target)
            )
    return findings


def check_required(
    op: Operation, role: str, written: Iterable[str], place: Place
) -> list[ApiFinding]:
    """Required keys missing from a whole params or body literal of a call to `op`."""
    if op.spec is None:
        return []
    allowed = _allowed(op, role)
    if not allowed:
        return []
    have = set(written)
    missing = [p.name for p in allowed if p.required and p.name not in have]
    if not missing:
        return []
    many = len(missing) > 1
    if role == QUERY:
        noun = "query parameters" if many else "query parameter"
    else:
        noun = "request body properties" if many else "request body property"
    names = ", ".join(f"'{n}'" for n in missing)
    message = f"{op.endpoint} requires the {noun} {names}"
    target = "params" if role == QUERY else "body"
    return [_finding(MISSING_REQUIRED, WARNING, message, place, op, target=target)]


_NAME = re.compile(r"^[A-Za-z_$][\w$.\-\[\]]{0,199}$")


def _allowed(op: Operation, role: str) -> tuple[Param, ...] | None:
    if role == QUERY:
        return op.query_params()
    if role == BODY:
        return op.body
    return None


def _near(name: str, names: list[str]) -> tuple[str, ...]:
    from rapidfuzz import fuzz, process

    folded = {n.lower(): n for n in names}
    if name.lower() in folded:
        return (folded[name.lower()],)
    hits = process.extract(
        name, names, scorer=fuzz.ratio, limit=MAX_SUGGESTIONS, score_cutoff=SUGGEST_CUTOFF
    )
    return tuple(hit[0] for hit in hits)


def _bad_value(param: Param, value: str) -> tuple[str, ...] | None:
    """The values to offer instead of `value`, or None when it is allowed (or not a plain
    value the check can judge: a placeholder, a list)."""
    if not _PLAIN_VALUE.match(value) or value in param.enum:
        return None
    from rapidfuzz import fuzz, process

    ranked = process.extract(
        value.upper(), list(param.enum), scorer=fuzz.ratio, limit=len(param.enum)
    )
    return tuple(hit[0] for hit in ranked)


# --- whole documents and single requests ------------------------------------------------------


def check_located(model: ApiModel, sites: list[Located], line_text: Any) -> list[ApiFinding]:
    """Findings for the call sites of one document; `line_text(n)` is the text of line n."""
    if not model:
        return []
    findings: list[ApiFinding] = []
    endpoints: dict[tuple[str, str], Operation | None] = {}
    required_seen: set[tuple[str, str, tuple[str, ...], int]] = set()
    reported: set[tuple[str, str, int]] = set()
    for item in sites:
        site = item.site
        text = line_text(item.line)
        place = Place(item.line, site.start, site.end, text[site.start : site.end])
        if site.role == ENDPOINT:
            # One report per call: on the literal that writes its path, not on a base constant
            # the call joins it to, nor again on a later piece of the same URL.
            if (
                not _writes_path(model, place.text)
                or (site.method, site.url, item.line) in reported
            ):
                place = Place()
            ids = _unknowns_are_ids(text, site.start, site.end)
            op, found = _endpoint_findings(model, site.method, site.url, place, ids)
            endpoints[(site.method, site.url)] = op
            if place.text:
                reported.add((site.method, site.url, item.line))
                findings.extend(found)
            continue
        key = (site.method, site.url)
        if key not in endpoints:
            endpoints[key] = check_endpoint(model, site.method, site.url, Place())[0]
        op = endpoints[key]
        if op is None or not site.method or site.nested:
            continue
        value_place = None
        value = None
        if item.value_end > item.value_start:
            value = item.value
            value_place = Place(item.line, item.value_start, item.value_end, item.value)
        findings.extend(_key_findings(model, op, site.role, site.name, place, value, value_place))
        if site.complete and site.path_keys and site.name == site.path_keys[0]:
            seen = (op.endpoint, site.role, site.path_keys, item.line)
            if seen not in required_seen:
                required_seen.add(seen)
                findings.extend(check_required(op, site.role, site.path_keys, place))
    return findings


def _endpoint_findings(
    model: ApiModel, method: str, url: str, place: Place, ids: bool
) -> tuple[Operation | None, list[ApiFinding]]:
    """`check_endpoint`, remembered by everything but the line: a re-check after an edit costs
    a lookup for each call the edit did not touch."""
    key = ("endpoint", method, url, ids, place.start, place.end, place.text)
    found = model.remembered(key)
    if found is None:
        op, findings = check_endpoint(model, method, url, replace(place, line=0), ids=ids)
        found = model.remember(key, (op, findings))
    op, findings = found
    return op, [replace(f, line=place.line) for f in findings]


def _key_findings(
    model: ApiModel,
    op: Operation,
    role: str,
    name: str,
    place: Place,
    value: str | None,
    value_place: Place | None,
) -> list[ApiFinding]:
    """`check_key`, remembered as `_endpoint_findings` is."""
    where = (value_place.start, value_place.end) if value_place is not None else None
    key = ("key", op.endpoint, role, name, place.start, place.end, value, where)
    found = model.remembered(key)
    if found is None:
        at = replace(place, line=0)
        value_at = replace(value_place, line=0) if value_place is not None else None
        found = model.remember(key, check_key(op, role, name, at, value, value_at))
    return [replace(f, line=place.line) for f in found]


_PLACEHOLDER = re.compile(r"\$?\{[^{}]*\}")
_INTERPOLATED = re.compile(r"\$?\{\s*([A-Za-z_][\w.]*)\s*\}")
_CONCATENATED = re.compile(r"""^["'`]?\s*\+\s*([A-Za-z_][\w.]*)""")
_ID_NAME = re.compile(r"(?i)(?:^|[a-z_.])(?:id|ids|uuid)$")


def _unknowns_are_ids(line: str, start: int, end: int) -> bool:
    """Whether the names a URL literal interpolates, or the one concatenated right after it,
    are all ids (``{relation_id}``, ``+ statusId``): then they are parameter values."""
    # A name the literal starts with is its base URL, not a segment.
    names = [m.group(1) for m in _INTERPOLATED.finditer(line[start:end]) if m.start() > 0]
    after = _CONCATENATED.match(line[end : end + 80])
    if after is not None:
        names.append(after.group(1))
    return bool(names) and all(_ID_NAME.search(n) for n in names)


def _writes_path(model: ApiModel, literal: str) -> bool:
    """Whether a URL literal writes some of the path after the base: not just a host, a base
    path or placeholders (``"https://x.collibra.com/rest/2.0"``, ``f"{BASE}"``)."""
    rest = _PLACEHOLDER.sub("", _SCHEME_HOST.sub("", literal.split("?", 1)[0]))
    for base in model.bases:
        rest = rest.replace(base, "")
    return any(ch.isalnum() for ch in rest)


MAX_CLIENT_CALLS = 200  # generated-client calls of deprecated operations read per document


def check_client_calls(
    model: ApiModel, text: str, read_site: Callable[[int, int], CallSite | None]
) -> list[ApiFinding]:
    """Generated-client calls of deprecated operations (``api.remove_community(cid)``): found by
    name, each confirmed by the call reader at its place (a method call on a client, not a
    comment or a string)."""
    pattern, by_name = model.deprecated_calls()
    if pattern is None or not any(name in text for name in by_name):
        return []
    findings = []
    starts: list[int] | None = None
    for index, m in enumerate(pattern.finditer(text)):
        if index >= MAX_CLIENT_CALLS:
            break
        starts = starts if starts is not None else line_starts(text)
        line = bisect.bisect_right(starts, m.start()) - 1
        column = m.start() - starts[line]
        site = read_site(line, column)
        if site is None or site.client != SDK or site.role != OPERATION:
            continue
        op = by_name[m.group()]
        place = Place(line, column, column + len(m.group()), m.group())
        found = _deprecated_operation(op, place)
        message = f"{m.group()} calls " + found.message.replace(
            f"{op.endpoint} is", f"{op.endpoint}, which is", 1
        )
        findings.append(replace(found, message=message, fixes=_renamed(op, m.group())))
    return findings


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _renamed(op: Operation, written: str) -> tuple[str, ...]:
    """The replacement operation's name as the client spells `written` (``get_domain`` for a
    snake_case client), when the docs name an operation rather than an endpoint or prose."""
    replacement = op.replacement.strip().strip("`").removesuffix("()")
    if not _IDENTIFIER.fullmatch(replacement):
        return ()
    if "_" in written or written.islower():
        return (_CAMEL_BREAK.sub("_", replacement).lower(),)
    return (replacement,)


def check_request(
    model: ApiModel,
    method: str,
    path: str,
    params: Mapping[str, Any] | None = None,
    body: Any = None,
) -> tuple[Operation | None, list[ApiFinding]]:
    """Findings for one request an agent is about to send: `path` with or without the base,
    `params` the query, `body` the JSON body (an object, or a list of objects for bulk calls)."""
    url = path if path.startswith(("/", "http://", "https://")) else "/" + path
    if model.bases and not any(b in url for b in model.bases) and "://" not in url:
        url = model.bases[-1] + url  # the caller says it is a Collibra call
    # The path as the caller wrote it is the "literal" a did-you-mean fix rewrites.
    op, findings = check_endpoint(model, method, url, Place(text=path))
    if op is None:
        return None, findings
    if params:
        for name, value in params.items():
            written = value if isinstance(value, str) else None
            findings.extend(
                check_key(op, QUERY, str(name), Place(), written, Place() if written else None)
            )
        findings.extend(check_required(op, QUERY, [str(k) for k in params], Place()))
    else:
        findings.extend(check_required(op, QUERY, [], Place()))
    objects = body if isinstance(body, list) else [body] if body is not None else []
    for item in objects[:100]:
        if not isinstance(item, Mapping):
            continue
        for name, value in item.items():
            written = value if isinstance(value, str) else None
            findings.extend(
                check_key(op, BODY, str(name), Place(), written, Place() if written else None)
            )
        findings.extend(check_required(op, BODY, [str(k) for k in item], Place()))
    return op, findings
