"""Checking a whole document's calls, or one request, against the `ApiModel`.

Precision comes first: a call is checked only when its URL is visibly Collibra's (a base path a
spec declares, a ``collibra`` host) or, behind a base the code does not show, when its first
segment is a documented resource (`matching`); keys only for operations a spec documents, only the
body's and params' own keys (never inside a nested map), values only when written as literals,
missing required keys only when the whole literal is in view (`keys`). Here each call is reported
once, on the literal that writes its path; findings are remembered per model by everything but
the line, so a re-check after an edit costs a lookup per untouched call.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from atlas_core.apicheck.client_keywords import check_client_keyword
from atlas_core.apicheck.endpoints import check_endpoint, deprecated_operation
from atlas_core.apicheck.findings import Place
from atlas_core.apicheck.keys import check_key, check_required
from atlas_core.apicheck.matching import RESOURCE, SCHEME_HOST, locate
from atlas_core.apicheck.model import ApiModel, Operation, spelled_like
from atlas_core.recognize import BODY, ENDPOINT, OPERATION, QUERY, SDK, CallSite, Located
from atlas_core.syntax import line_starts
from atlas_core.types import ApiFinding


def check_located(
    model: ApiModel, sites: list[Located], line_text: Any, *, unshown_bases: bool = True
) -> list[ApiFinding]:
    """Findings for the call sites of one document; `line_text(n)` is the text of line n.
    `unshown_bases`: whether a call whose base the code does not show, only its first resource
    (`matching.RESOURCE`), is judged at all (only in a document that shows a sign of Collibra:
    `foreign.shows_collibra`)."""
    if not model:
        return []
    evidence: dict[str, str] = {}
    # A document whose calls write Collibra's base path after a base it does not show
    # (``f"{COLLIBRA}/rest/2.0/assets"``) shows that its unshown bases are hosts: a call there
    # that writes only a resource after one (``f"{SNOW}/assets"``) is another service's.
    hosts = unshown_bases and any(_after_unshown_base(model, i.site.url) for i in sites)

    def judged(url: str) -> bool:
        if unshown_bases and not hosts:
            return True
        if url not in evidence:
            where = locate(model, url)
            evidence[url] = where.evidence if where is not None else ""
        return evidence[url] != RESOURCE

    findings: list[ApiFinding] = []
    endpoints: dict[tuple[str, str], Operation | None] = {}
    required_seen: set[tuple[str, str, tuple[str, ...], int]] = set()
    reported: set[tuple[str, str, int]] = set()
    for item in sites:
        if not item.checked:
            continue  # a request line in prose describes a request: read, not judged
        site = item.site
        text = line_text(item.line)
        place = Place(item.line, site.start, site.end, text[site.start : site.end])
        if site.client != SDK and not judged(site.url):
            continue
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
        if site.client == SDK:
            if site.role in (QUERY, BODY) and site.operation:
                value, value_place = _value_of(item)
                findings.extend(check_client_keyword(model, site, place, value, value_place))
            continue
        key = (site.method, site.url)
        if key not in endpoints:
            endpoints[key] = check_endpoint(model, site.method, site.url, Place())[0]
        op = endpoints[key]
        if op is None or not site.method or site.nested:
            continue
        value, value_place = _value_of(item)
        findings.extend(_key_findings(model, op, site.role, site.name, place, value, value_place))
        if site.complete and site.path_keys and site.name == site.path_keys[0]:
            seen = (op.endpoint, site.role, site.path_keys, item.line)
            if seen not in required_seen:
                required_seen.add(seen)
                opening = _opening(line_text, place)
                findings.extend(check_required(op, site.role, site.path_keys, opening))
    return _once(findings)


def _after_unshown_base(model: ApiModel, url: str) -> bool:
    """Whether `url` writes a declared base path right after a base the code does not show."""
    rest = url[2:] if url.startswith("{}") else ""
    return bool(rest) and any(rest.startswith(f"/{base}/") for base in model.base_paths)


# A call that makes a map of the keys it is given: ``dict(``, ``Map.of(``, Kotlin's ``mapOf(``.
_MAP_CALL = re.compile(r"(?:\bdict|\.of|\b(?:mutable|hash)?[mM]apOf)\($")


def _opening(line_text: Any, key: Place) -> Place:
    """From where a literal whose first key is at `key` opens (its ``{`` or ``dict(``, a few
    lines up at most) to that key: a missing key is added to the literal, so its finding starts
    there; `key` itself when something else stands between."""
    line, column = key.line, key.start
    for step in range(4):
        text = line_text(line)[:column].rstrip()
        if step == 0 and text[-1:] in ("'", '"', "`"):
            text = text[:-1].rstrip()  # the first key's own quote
        if text:
            if text[-1] == "{" or _MAP_CALL.search(text):
                end_line = key.line if key.line != line else None
                return Place(line, len(text) - 1, key.end, text[-1], end_line)
            return key  # `body.put("sourceId", d)`: a key added to a map, no literal
        if line == 0:
            return key
        line -= 1
        column = len(line_text(line))
    return key


def _once(findings: list[ApiFinding]) -> list[ApiFinding]:
    """One finding per mistake and place: calls that share a constant (``ASSETS = BASE +
    "/asset"`` read by a GET and a POST) or a body variable find its mistake once each, and the
    editor would show the same diagnostic stacked."""
    seen: set[tuple[str, int, int, int, tuple[str, ...]]] = set()
    out = []
    for f in findings:
        key = (f.check, f.line, f.start, f.end, f.fixes)
        if f.end > f.start and key in seen:
            continue
        seen.add(key)
        out.append(f)
    return out


def _value_of(item: Located) -> tuple[str | None, Place | None]:
    """The literal value written for a key on its line, and where, when there is one."""
    if item.value_end > item.value_start:
        return item.value, Place(item.line, item.value_start, item.value_end, item.value)
    return None, None


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
    rest = _PLACEHOLDER.sub("", SCHEME_HOST.sub("", literal.split("?", 1)[0]))
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
        found = deprecated_operation(op, place)
        message = f"{m.group()} calls " + found.message.replace(
            f"{op.endpoint} is", f"{op.endpoint}, which is", 1
        )
        findings.append(replace(found, message=message, fixes=_renamed(op, m.group())))
    return findings


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _renamed(op: Operation, written: str) -> tuple[str, ...]:
    """The replacement operation's name as the client spells `written` (``get_domain`` for a
    snake_case client), when the docs name an operation rather than an endpoint or prose."""
    replacement = op.replacement.strip().strip("`").removesuffix("()")
    if not _IDENTIFIER.fullmatch(replacement):
        return ()
    return (spelled_like(replacement, written),)


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
