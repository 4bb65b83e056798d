"""The parameters of a called operation: which parameter or request-body property a call's key
names (`parameter_of`), the names documented where an undocumented key sits (`names_in_place`),
and the table's full definition of the one found (`definition_of`, `pick_definition`), all read
through the engine's `lookup` and `definitions`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Protocol

from atlas_core.errors import QueryError
from atlas_core.identifiers.spelling import compact, path_key
from atlas_core.recognize import BODY, HEADER, PATH, QUERY, SDK, CallSite
from atlas_core.types import Candidate, Definition, Param

Lookup = Callable[[str, int], list[Candidate]]


class Definitions(Protocol):
    """`Engine.definitions`: the parameter and property definitions of a name."""

    def __call__(
        self, name: str, *, method: str = "", path: str = "", schema: str = "", limit: int = 50
    ) -> list[Definition]: ...


LOOKUP_LIMIT = 24
_SCHEMA_KINDS = frozenset({"schema", "type"})
_ROLE_LOCATIONS: dict[str, frozenset[str]] = {
    QUERY: frozenset({"query"}),
    PATH: frozenset({"path"}),
    HEADER: frozenset({"header"}),
    BODY: frozenset({"body"}),
}
# A parameter name as code writes it; anything else (control characters, a lone surrogate, a
# 10,000-character run) names no parameter, though its letters might spell one.
_NAME = re.compile(r"[A-Za-z_$][\w$.\-\[\]]{0,199}", re.ASCII)
# ``array[AddDomainRequest]``, ``list[AddDomainRequest]``, ``AddDomainRequest``: the type named.
_SCHEMA_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*")


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
            for c in look_up(lookup, schema)
            if c.kind in _SCHEMA_KINDS and c.name == schema
            for p in c.params
        ]
        if properties:
            return schema, properties
    return "", []


def look_up(lookup: Lookup, text: str) -> list[Candidate]:
    """`lookup` of `text`, at most `LOOKUP_LIMIT` candidates."""
    try:
        return lookup(text, LOOKUP_LIMIT)
    except QueryError:  # a spelling the engine refuses (empty after cleaning): nothing here
        return []
