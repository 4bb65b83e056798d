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
from the endpoint rows' ``params``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from atlas_core.errors import QueryError
from atlas_core.identifiers.spelling import compact, path_key, strip_path
from atlas_core.recognize import BODY, ENDPOINT, HEADER, OPERATION, PATH, QUERY, SDK, CallSite
from atlas_core.types import Candidate, Definition, Param

Lookup = Callable[[str, int], list[Candidate]]


class Definitions(Protocol):
    """`Engine.definitions`: the parameter and property definitions of a name."""

    def __call__(
        self, name: str, *, method: str = "", path: str = "", schema: str = "", limit: int = 50
    ) -> list[Definition]: ...


LOOKUP_LIMIT = 24
# Leading segments of a URL that may be a base the docs do not spell (``/api/v1``, an unknown
# ``{}``, ``/rest/oauth/v2``); each one dropped costs a lookup, so only this many are tried. A
# resource name is never dropped: ``/assets/{}/attributes`` is not ``/attributes``.
MAX_BASE_SEGMENTS = 3
_BASE_SEGMENT = re.compile(
    r"(?i)\{\}|rest|api|apis|oauth|public|services?|v\d+(?:\.\d+)*|\d+(?:\.\d+)*"
)

_GLUED_BASE = re.compile(r"^\{\}(?=[A-Za-z])")
_OPERATION_KINDS = frozenset({"endpoint", "operation"})
_SCHEMA_KINDS = frozenset({"schema", "type"})
_ROLE_LOCATIONS: dict[str, frozenset[str]] = {
    QUERY: frozenset({"query"}),
    PATH: frozenset({"path"}),
    HEADER: frozenset({"header"}),
    BODY: frozenset({"body"}),
}
_ROLE_LABELS = {
    "query": "query parameter",
    "path": "path parameter",
    "header": "header",
    "cookie": "cookie",
    "body": "request body property",
}
# A parameter name as code writes it; anything else (control characters, a lone surrogate, a
# 10,000-character run) names no parameter, though its letters might spell one.
_NAME = re.compile(r"[A-Za-z_$][\w$.\-\[\]]{0,199}", re.ASCII)
# ``array[AddDomainRequest]``, ``list[AddDomainRequest]``, ``AddDomainRequest``: the type named.
_SCHEMA_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*")


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


# --- parameters ----------------------------------------------------------------------------------


def parameter_of(
    lookup: Lookup, operations: list[Candidate], site: CallSite
) -> tuple[Param | None, str]:
    """The parameter or request-body property `site.name` is in the operation, in the spec's
    spelling, and the request schema it comes from ("" for a parameter).

    A plain HTTP call writes wire names, so a parameter spelled exactly as written wins; a
    generated client writes its own (``name_match_mode``), matched to the wire name
    (``nameMatchMode``) by letters and digits. The cursor's role narrows where to look: a key of
    ``params=`` is a query parameter, one of ``json=`` a body property.
    """
    name = site.name
    if not _NAME.fullmatch(name):
        return None, ""
    params = [p for c in operations for p in c.params if _named_field(p)]
    schema, properties = "", []
    locations = _ROLE_LOCATIONS.get(site.role)
    if locations is not None:
        params = [p for p in params if p.location in locations]
    if site.role == BODY or locations is None:
        # A builder method sets a query parameter or a body property alike.
        schema, properties = _request_properties(lookup, operations)
    found = _pick(params, name, wire=site.client != SDK)
    if found is not None:
        return found, ""
    found = _pick(properties, name, wire=site.client != SDK)
    if found is not None:
        return found, schema
    return None, ""


MAX_DOCUMENTED = 40


def names_in_place(lookup: Lookup, operations: list[Candidate], site: CallSite) -> tuple[str, ...]:
    """The names the operation documents where `site` writes its key (query parameters for a
    key of ``params``, the body's properties for one of ``json``), closest to the key first;
    () where it documents none there, so nothing can be said of the key."""
    locations = _ROLE_LOCATIONS.get(site.role)
    if locations is None:
        return ()
    names = [
        p.name for c in operations for p in c.params if _named_field(p) and p.location in locations
    ]
    if site.role == BODY:
        names += [p.name for p in _request_properties(lookup, operations)[1]]
    if site.client != SDK:  # a plain HTTP call writes the wire names, not a client's snake_case
        spelled = {compact(n) for n in names if "_" not in n}
        names = [n for n in names if "_" not in n or compact(n) not in spelled]
    names = list(dict.fromkeys(names))
    if not names:
        return ()
    from rapidfuzz import fuzz, process

    ranked = process.extract(site.name, names, scorer=fuzz.WRatio, limit=MAX_DOCUMENTED)
    return tuple(name for name, _, _ in ranked)


def _named_field(param: Param) -> bool:
    """A parameter that names one field; the whole body (``body``, ``add_asset_request``) does
    not: the fields are its schema's properties."""
    return param.location != "body" or not param.name.lower().endswith(("body", "request"))


def _pick(params: Iterable[Param], name: str, *, wire: bool) -> Param | None:
    """`name` among `params`: the exact spelling first (for wire names), then the spec's
    spelling of the same letters (camelCase, as OpenAPI specs write them, over snake_case)."""
    key = compact(name)
    same = [p for p in params if compact(p.name) == key]
    if not same:
        return None
    if wire:
        exact = next((p for p in same if p.name == name), None)
        if exact is not None:
            return _with_description(exact, same)
    camel = next((p for p in same if "_" not in p.name and p.name != p.name.lower()), None)
    return _with_description(camel or same[0], same)


def _with_description(param: Param, same: list[Param]) -> Param:
    """`param`, with the type and description another page gives when its own lacks them."""
    if param.description and param.type:
        return param
    other = next((p for p in same if p.description), None)
    typed = next((p for p in same if p.type), None)
    return replace(
        param,
        type=param.type or (typed.type if typed else ""),
        required=param.required or any(p.required for p in same),
        description=param.description or (other.description if other else ""),
    )


def definition_of(
    definitions: Definitions, param: Param, schema: str, operation: Candidate
) -> Definition | None:
    """The table's definition of `param` for this operation (see `pick_definition`)."""
    try:
        found = definitions(param.name, method=operation.method, path=operation.path)
    except QueryError:
        return None
    return pick_definition(found, param, schema, operation)


def pick_definition(
    found: Iterable[Definition], param: Param, schema: str, operation: Candidate
) -> Definition | None:
    """Among definitions of `param`'s name, the one this operation gives it: its own parameter
    in the same place, or a property of its request schema (`schema`) or inline request body."""
    template = (operation.method.upper(), path_key(operation.path))

    def own_operation(d: Definition) -> bool:
        return (d.method.upper(), path_key(d.path)) == template

    if schema or param.location == "body":
        fitting = [d for d in found if d.kind == "property" and d.location != "response"]
        if schema:
            of_schema = next((d for d in fitting if d.owner == schema), None)
            if of_schema is not None:
                return of_schema
        return next((d for d in fitting if not d.owner and own_operation(d)), None)
    return next(
        (
            d
            for d in found
            if d.kind == "parameter" and d.location == param.location and own_operation(d)
        ),
        None,
    )


def _request_properties(lookup: Lookup, operations: list[Candidate]) -> tuple[str, list[Param]]:
    """The request schema's name and properties, from whichever page lists them."""
    names = [n for c in operations for n in _SCHEMA_NAME.findall(c.request_schema)]
    for schema in dict.fromkeys(names):
        properties = [
            p
            for c in _lookup(lookup, schema)
            if c.kind in _SCHEMA_KINDS and c.name == schema
            for p in c.params
        ]
        if properties:
            return schema, properties
    return "", []


def _lookup(lookup: Lookup, text: str) -> list[Candidate]:
    try:
        return lookup(text, LOOKUP_LIMIT)
    except QueryError:  # a spelling the engine refuses (empty after cleaning): nothing here
        return []
