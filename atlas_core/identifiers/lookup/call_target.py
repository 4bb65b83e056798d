"""From an API call in client code to what it calls: the operation its HTTP method and URL (or a
generated client's method name) pick, and the parameter or request-body property the cursor is on.

`target_of_call` takes the engine's `lookup` and `definitions` and a `CallSite` (read by
`atlas_core.recognize.calls`) and answers with a `CallTarget`, or None when no documented
operation fits. The call's method is binding: ``requests.delete(".../domains/bulk")`` is DELETE
/domains/bulk even where the docs list POST first, and a method the path does not document
answers None rather than another method's page. The name under the cursor is matched against the
operation's parameters and its request schema's properties (`parameter_of`), then its full
definition (format, values, default, the row that documents it) is read from the parameter and
property rows of the table (`definition_of`); a table written before those rows still answers
from the endpoint rows' ``params``. That parameter side lives in `call_params`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from atlas_core.identifiers.lookup.call_params import (
    Definitions,
    Lookup,
    definition_of,
    names_in_place,
    parameter_of,
)
from atlas_core.identifiers.lookup.call_params import look_up as _lookup
from atlas_core.identifiers.lookup.call_params import (
    pick_definition as pick_definition,  # the identifiers face's name
)
from atlas_core.identifiers.spelling import compact, path_key, strip_path
from atlas_core.recognize import ENDPOINT, OPERATION, SDK, CallSite
from atlas_core.types import Candidate, Definition, Param

# Leading segments of a URL that may be a base the docs do not spell (``/api/v1``, an unknown
# ``{}``, ``/rest/oauth/v2``); each one dropped costs a lookup, so only this many are tried. A
# resource name is never dropped: ``/assets/{}/attributes`` is not ``/attributes``.
MAX_BASE_SEGMENTS = 3
_BASE_SEGMENT = re.compile(
    r"(?i)\{\}|rest|api|apis|oauth|public|services?|v\d+(?:\.\d+)*|\d+(?:\.\d+)*"
)

# After ``/rest/``, what starts another REST API than the specs' ``/rest/2.0`` (which
# `strip_path` has taken off): a version, ``api`` or ``latest`` (Atlassian's ``/rest/api/2``).
_OTHER_REST = re.compile(r"(?i)api|latest|v?\d+(?:\.\d+)*")
_GLUED_BASE = re.compile(r"^\{\}(?=[A-Za-z])")
_OPERATION_KINDS = frozenset({"endpoint", "operation"})
# A generated client's variants of one operation's method: `find_assets_with_http_info`
# (status and headers too), `find_assets_without_preload_content` (the raw response),
# Java's `findAssetsWithHttpInfo`.
_VARIANT = re.compile(r"(?<=[a-z0-9])(?:_with_http_info|_without_preload_content|WithHttpInfo)$")
_ROLE_LABELS = {
    "query": "query parameter",
    "path": "path parameter",
    "header": "header",
    "cookie": "cookie",
    "body": "request body property",
}


@dataclass(frozen=True, slots=True)
class CallTarget:
    """What a call in client code calls, and what the cursor is on in it.

    `operation` is the best page documenting the operation (one with parameters when any has
    them); `pages` are the other pages of the same operation, one per file. `param` is the
    parameter or request-body property under the cursor in the spec's spelling, None on the
    endpoint itself or where the operation does not document the name; `written` is the name as
    the code writes it (a generated Python client's ``name_match_mode``), `schema` the request
    schema a body property belongs to.
    """

    site: CallSite
    operation: Candidate
    pages: tuple[Candidate, ...] = ()
    param: Param | None = None
    written: str = ""
    schema: str = ""
    definition: Definition | None = None  # the table's row for `param`, when it has one
    # Where the cursor is on a key the operation does not document: the names it documents in
    # the same place (its query parameters, its body's properties), closest to the key first.
    documented: tuple[str, ...] = ()

    @property
    def method(self) -> str:
        return self.operation.method

    @property
    def path(self) -> str:
        return self.operation.path

    @property
    def endpoint(self) -> str:
        """``GET /assets``: how the docs name the operation."""
        return f"{self.operation.method} {self.operation.path}".strip()

    @property
    def label(self) -> str:
        """``query parameter of GET /assets``, or the endpoint alone."""
        if self.param is None:
            return self.endpoint
        role = _ROLE_LABELS.get(self.param.location, "parameter")
        return f"{role} of {self.endpoint}"

    @property
    def client_name(self) -> str:
        """The name as the client code spells it when that differs from the wire name, else ""."""
        if self.param is None or not self.written or self.written == self.param.name:
            return ""
        return self.written


def target_of_call(
    lookup: Lookup, site: CallSite, definitions: Definitions | None = None
) -> CallTarget | None:
    """The documented operation `site` calls and the parameter under the cursor; None when no
    operation fits the call's method and URL (or its client method name)."""
    operations = operation_candidates(lookup, site)
    if not operations:
        return None
    # A plain HTTP call writes the API's names; a Python client's call, its snake_case ones:
    # the page that spells them as the code does comes first (order kept otherwise).
    snake = site.client == SDK and "_" in (site.operation or site.name)
    operations.sort(key=lambda cand: _snake_page(cand) != snake)
    param, schema = None, ""
    documented: tuple[str, ...] = ()
    if site.role not in (ENDPOINT, OPERATION) and site.name:
        param, schema = parameter_of(lookup, operations, site)
        if param is None and not site.nested:
            documented = names_in_place(lookup, operations, site)
    best = _best_page(operations, param)
    pages = _other_pages(best, operations)
    definition = None
    if param is not None and definitions is not None:
        definition = definition_of(definitions, param, schema, best)
    written = site.name if param else ""
    return CallTarget(site, best, pages, param, written, schema, definition, documented)


# --- operations ----------------------------------------------------------------------------------


def operation_candidates(lookup: Lookup, site: CallSite) -> list[Candidate]:
    """Every page documenting the one operation `site` calls, best first; [] for none."""
    method = site.method.upper()
    if site.url:
        found = _by_url(lookup, method, site.url)
        if found:
            return found
    if site.operation:
        return _by_operation_name(lookup, method, site.operation)
    return []


def _by_url(lookup: Lookup, method: str, url: str) -> list[Candidate]:
    # A base the code does not show, joined to a path without its slash (``cfg.base +
    # "auth/sessions"``, the base ending in one): the path starts after it.
    url = _GLUED_BASE.sub("{}/", url, count=1)
    _, path = strip_path(url)
    segments = [s for s in path_key(path).split("/") if s]
    if len(segments) > 1 and segments[0] == "rest" and _OTHER_REST.fullmatch(segments[1]):
        return []  # another REST API (Collibra's 1.0, Jira's /rest/api/2): no spec here
    for drop in range(min(len(segments), MAX_BASE_SEGMENTS + 1)):
        rest = segments[drop:]
        if not rest or all(s == "{}" for s in rest):
            break
        found = _same_operation(lookup, method, rest)
        if found:
            return found
        if not _BASE_SEGMENT.fullmatch(rest[0]):
            break
    return []


def _same_operation(lookup: Lookup, method: str, segments: list[str]) -> list[Candidate]:
    """The pages of the one operation that `method` and the path segments name: the method must
    agree when the code says it, literal segments beat parameter segments (``/domains/bulk`` is
    not ``/domains/{domainId}``)."""
    path = "/" + "/".join(segments)
    found = _lookup(lookup, f"{method} {path}" if method else path)
    fitting: list[tuple[int, int, Candidate]] = []
    for index, cand in enumerate(found):
        if cand.kind not in _OPERATION_KINDS or not cand.method or not cand.path:
            continue
        if method and cand.method.upper() != method:
            continue
        literal = _segments_agree(segments, [s for s in path_key(cand.path).split("/") if s])
        if literal is not None:
            fitting.append((-literal, index, cand))
    if not fitting:
        return _shown_in_use(found, method, path)
    fitting.sort(key=lambda item: item[:2])
    first = fitting[0][2]
    subject = (first.method.upper(), path_key(first.path))
    return [c for _, _, c in fitting if (c.method.upper(), path_key(c.path)) == subject]


def _shown_in_use(found: list[Candidate], method: str, path: str) -> list[Candidate]:
    """An endpoint no spec defines but a page shows in use (``curl -X POST
    '.../rest/2.0/search'`` in the Search API tutorial, the OAuth guide's token request): that
    page, for a call whose method the code says and whose path is all literal. A third party's
    page is no evidence of the vendor's API."""
    if not method or "{}" in path_key(path):
        return []
    return [
        replace(cand, method=method, path=cand.name)
        for cand in found
        if cand.kind == "mention"
        and cand.publisher != "third-party"
        and path_key(cand.name) == path_key(path)
    ][:1]


def _segments_agree(written: list[str], documented: list[str]) -> int | None:
    """How many literal segments agree, or None when the paths differ. ``{}`` on either side
    stands for one segment."""
    if len(written) != len(documented):
        return None
    literal = 0
    for w, d in zip(written, documented, strict=True):
        if w == d and w != "{}":
            literal += 1
        elif w != "{}" and d != "{}":
            return None
    return literal


def _by_operation_name(lookup: Lookup, method: str, name: str) -> list[Candidate]:
    name = _VARIANT.sub("", name)
    key = compact(name)
    named = [
        c
        for c in _lookup(lookup, name)
        if c.kind in _OPERATION_KINDS
        and c.method
        and c.path
        and compact(c.operation_id or c.name) == key
        and (not method or c.method.upper() == method)
    ]
    if not named:
        return []
    first = named[0]
    # Every page of that operation, also those that name it by path only.
    by_path = _same_operation(
        lookup, first.method.upper(), [s for s in path_key(first.path).split("/") if s]
    )
    seen = {(c.bundle, c.file, c.line) for c in named}
    return named + [c for c in by_path if (c.bundle, c.file, c.line) not in seen]


def _best_page(operations: list[Candidate], param: Param | None) -> Candidate:
    """The page to show: the one that documents the parameter under the cursor, else the
    lookup's first (a written section before a generated reference page)."""
    if param is not None:
        for cand in operations:
            if any(p.name == param.name for p in cand.params):
                return cand
    return operations[0]


def _snake_page(cand: Candidate) -> bool:
    """Whether a page spells the operation as a generated Python client does."""
    return "_" in cand.operation_id or any(
        "_" in p.name for p in cand.params if p.location != "body"
    )


def _other_pages(best: Candidate, operations: list[Candidate]) -> tuple[Candidate, ...]:
    seen = {(best.bundle, best.file)}
    out: list[Candidate] = []
    for cand in operations:
        where = (cand.bundle, cand.file)
        if cand.file and where not in seen:
            seen.add(where)
            out.append(cand)
    return tuple(out)
