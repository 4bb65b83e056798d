"""Findings about a call's query and body keys: a key the operation does not take (with the
nearest it does), a deprecated one, a literal value outside its enum, required keys missing from
a literal written whole. Only the body's and params' own keys are judged, never a nested map's."""

from __future__ import annotations

import re
from collections.abc import Iterable

from atlas_core.apicheck.findings import (
    BAD_VALUE,
    DEPRECATED,
    HINT,
    MAX_SUGGESTIONS,
    MISSING_REQUIRED,
    SUGGEST_CUTOFF,
    UNKNOWN_PARAM,
    WARNING,
    Place,
    finding,
)
from atlas_core.apicheck.model import WILDCARD, Operation, says_removed
from atlas_core.recognize import BODY, QUERY
from atlas_core.types import ApiFinding, Param

_PLAIN_VALUE = re.compile(r"^[\w.\-]{1,100}$")


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
    # A body sent to an operation that takes none: the call's method was misread (a helper's
    # ``call="post"``), not every key misspelt. A query key on an operation that lists no query
    # parameter at all has nothing to be a slip of: the spec may just not list it
    # (``include=csrfToken`` on GET /auth/sessions/current), and the server ignores what it
    # does not know.
    if not allowed:
        return []
    known = {p.name: p for p in allowed}
    param = known.get(name)
    where = "query parameter" if role == QUERY else "request body property"
    target = f"{'params' if role == QUERY else 'body'}.{name}"
    if param is None:
        if not _NAME.match(name) or (role == QUERY and _list_form(name) in known):
            return []
        if (
            role == BODY
            and name == "id"
            and (WILDCARD in op.segments or op.segments[-1:] == ("bulk",))
        ):
            # The id of the resource the path already names: Collibra's change requests take
            # it in the body too and ignore it there, whether or not a spec lists it. A bulk
            # operation's items name their resources by it (the docs' ChangeAssetRequest lists
            # `id`; the spec's PATCH /assets/bulk items do not, yet the server needs it).
            return []
        near = _near(name, [p.name for p in allowed])
        message = f"'{name}' is not a {where} of {op.endpoint}"
        if near:
            message += "; did you mean " + " or ".join(f"'{n}'" for n in near) + "?"
        elif allowed:
            names = ", ".join(p.name for p in allowed[:8])
            message += f" (it takes {names}{', ...' if len(allowed) > 8 else ''})"
        return [finding(UNKNOWN_PARAM, WARNING, message, place, op, fixes=near, target=target)]
    findings = []
    if param.deprecated:
        # The call still works with a deprecated name (the API takes or ignores it): a hint the
        # editor strikes through, as TypeScript and Pyright show deprecated names, not a problem
        # in its list. A deprecated operation is one (`endpoints.deprecated_operation`).
        message = f"'{name}' ({where} of {op.endpoint}) is deprecated"
        if says_removed(param.description):
            message += " and will be removed"
        findings.append(
            finding(DEPRECATED, HINT, message, place, op, deprecated=True, target=target)
        )
    if value is not None and value_place is not None and param.enum:
        bad = _bad_value(param, value)
        if bad is not None:
            values = ", ".join(param.enum)
            message = f"'{value}' is not a value of {name} ({op.endpoint}); it takes {values}"
            findings.append(
                finding(BAD_VALUE, WARNING, message, value_place, op, fixes=bad, target=target)
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
    # `baseResourceId` and `baseResourceType` are the flat spelling of a required
    # `baseResource` object that the same schema lists beside it: the key is there. A required
    # key the spec gives a default (the CSV import's `separator`, `quote`, `escape`) has a value
    # when the call leaves it out, as the docs' own calls do.
    missing = [
        p.name
        for p in allowed
        if p.required
        and not p.default
        and not any(_FLAT.fullmatch(key, len(p.name)) for key in have if key.startswith(p.name))
    ]
    if missing:
        # A misspelled key (`nmae`) is one mistake: its unknown-key finding offers the required
        # name, so that name is not reported missing a second time.
        names = [p.name for p in allowed]
        offered = {n for key in have if key not in names for n in _near(key, names)}
        missing = [name for name in missing if name not in offered]
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
    return [finding(MISSING_REQUIRED, WARNING, message, place, op, target=target)]


# What a flat key adds to the name of the reference object it stands for.
_FLAT = re.compile(r"(?:|Id|Ids|Type|Name|PublicId|_id|_ids|_type|_name)")
_NAME = re.compile(r"^[A-Za-z_$][\w$.\-\[\]]{0,199}$")


def _list_form(name: str) -> str:
    """The singular id filter a list-of-ids query name stands for (``typeIds`` -> ``typeId``), or
    "". Newer API versions take such lists where an older spec lists only the one id; a rewrite to
    the singular would break working code, so the list form is never reported as unknown."""
    return name[:-1] if name.endswith(("Ids", "_ids")) else ""


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
