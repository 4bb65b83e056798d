"""Keyword arguments of a generated client's operation call, checked as the operation's
parameters: ``api.find_assets(name_match_mode="EXACTLY", limt=5)`` is ``GET /assets`` with a bad
``nameMatchMode`` value and an unknown ``limt``.

A generated client spells each parameter in its own case (``name_match_mode``), takes the request
body as one object named for its schema (``add_asset_request=...``) and adds keywords of its own
(``async_req``, ``_request_timeout``); those are never judged. Only operations a spec documents are
checked, as for HTTP calls.
"""

from __future__ import annotations

from atlas_core.apicheck.findings import UNKNOWN_PARAM, WARNING, Place, finding
from atlas_core.apicheck.keys import check_key
from atlas_core.apicheck.model import ApiModel, Operation, spelled_like
from atlas_core.identifiers import compact
from atlas_core.recognize import QUERY, CallSite
from atlas_core.types import ApiFinding

# What generated clients add to every operation (OpenAPI Generator, Swagger Codegen).
_CLIENT_OWN = frozenset(
    {
        "asyncreq",
        "body",
        "requestbody",
        "kwargs",
        "request",
        "preloadcontent",
        "requesttimeout",
        "headers",
    }
)


def check_client_keyword(
    model: ApiModel,
    site: CallSite,
    place: Place,
    value: str | None,
    value_place: Place | None,
) -> list[ApiFinding]:
    """Findings for one keyword argument of a generated client's operation call."""
    op = model.operation_named(site.operation)
    if op is None or op.spec is None or site.nested:
        return []
    name = site.name
    key = compact(name)
    if name.startswith("_") or key in _CLIENT_OWN or _is_body_object(op, key):
        return []
    param = next((p for p in op.params if compact(p.name) == key), None)
    if param is not None:
        if param.location != "query":
            return []  # a path or header value: nothing more the checks know
        return check_key(op, QUERY, param.name, place, value, value_place)
    if op.body is None or any(compact(p.name) == key for p in op.body):
        return []  # a form field of a multipart body (`file_name=`), or a body not known whole
    if key.endswith("ids") and any(compact(p.name) == key[:-1] for p in op.params):
        return []  # the list form of a documented id filter (`type_ids`): see keys._list_form
    names = [spelled_like(p.name, name) for p in op.params]
    near = [n for n in names if _close(key, compact(n))][:3]
    message = f"'{name}' is not a parameter of {site.operation} ({op.endpoint})"
    if near:
        message += "; did you mean " + " or ".join(f"'{n}'" for n in near) + "?"
    return [
        finding(UNKNOWN_PARAM, WARNING, message, place, op, fixes=near, target=f"params.{name}")
    ]


def _is_body_object(op: Operation, key: str) -> bool:
    """``add_asset_request=`` (named for the request schema) or ``asset=``: the request body."""
    schema = compact(op.body_schema.split("[")[-1].rstrip("]")) if op.body_schema else ""
    return bool(schema) and (key == schema or schema.startswith(key) or key.endswith("request"))


def _close(a: str, b: str) -> bool:
    from rapidfuzz import fuzz

    return fuzz.ratio(a, b) >= 80
