"""The population of each class and the one mistake a unit of it plants (see `api_cases`)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from benchmarks.devset.apicases.request import CLOSE, OPEN, Request, mark, value
from benchmarks.devset.apicases.spec import ApiOp, Field, matches

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
CHECKS = (
    "unknown-endpoint",
    "method-not-allowed",
    "unknown-param",
    "bad-value",
    "missing-required",
    "deprecated",
)
# Checks whose mistake sits in a key or value that the call literally writes; the JVM shapes
# pass bodies as JSON text or maps and so carry only the endpoint-level ones.
KEY_LEVEL = frozenset({"unknown-param", "bad-value", "missing-required"})


@dataclass(frozen=True, slots=True)
class Unit:
    check: str  # "" for a correct snippet
    stratum: str
    name: str  # a stable sort key
    op: ApiOp
    detail: str = ""  # the segment index, field name or written method
    key_level: bool = False


def usable(op: ApiOp) -> bool:
    """An operation a client snippet would call: JSON or no body, an ordinary method."""
    return op.method in METHODS and op.body_kind != "form"


# --- mutations ---------------------------------------------------------------------------------


def _plural(word: str) -> str | None:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s" if word[-1:].isalpha() else None


def _flip_case(word: str) -> str | None:
    inner = [i for i, c in enumerate(word) if c.isupper() and i > 0]
    if inner:
        i = inner[-1]
        return word[:i] + word[i].lower() + word[i + 1 :]
    return word[0].upper() + word[1:] if word[:1].islower() else None


def _drop_letter(word: str, rng: random.Random) -> str | None:
    spots = [i for i in range(1, len(word) - 1) if word[i].isalpha() and word[i] != word[i - 1]]
    if len(word) < 5 or not spots:
        return None
    i = rng.choice(spots)
    return word[:i] + word[i + 1 :]


def _swap_letters(word: str, rng: random.Random) -> str | None:
    spots = [
        i
        for i in range(1, len(word) - 2)
        if word[i] != word[i + 1] and word[i].isalpha() and word[i + 1].isalpha()
    ]
    if len(word) < 5 or not spots:
        return None
    i = rng.choice(spots)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def _drop_first_word(word: str) -> str | None:
    parts = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", word)
    if len(parts) < 2:
        return None
    rest = "".join(parts[1:])
    return rest[0].lower() + rest[1:]


def misspell_segment(seg: str, rng: random.Random) -> list[str]:
    """Candidate misspellings of a path segment, in a random order of kinds."""
    kinds = ["plural", "case", "drop", "swap"]
    rng.shuffle(kinds)
    out = []
    for kind in kinds:
        got = {
            "plural": lambda: _plural(seg),
            "case": lambda: _flip_case(seg),
            "drop": lambda: _drop_letter(seg, rng),
            "swap": lambda: _swap_letters(seg, rng),
        }[kind]()
        if got and got != seg:
            out.append(got)
    return out


def misspell_name(name: str, rng: random.Random) -> list[str]:
    kinds = ["case", "word", "plural", "drop"]
    rng.shuffle(kinds)
    out = []
    for kind in kinds:
        got = {
            "case": lambda: _flip_case(name) if re.search(r"[a-z][A-Z]", name) else None,
            "word": lambda: _drop_first_word(name),
            "plural": lambda: _plural(name),
            "drop": lambda: _drop_letter(name, rng),
        }[kind]()
        if got and got != name:
            out.append(got)
    return out


def near_miss(value_: str, rng: random.Random) -> list[str]:
    """Values an enum does not hold but a hurried writer might: EXACT -> EXACTLY."""
    kinds = ["ly", "plural", "underscore", "drop"]
    rng.shuffle(kinds)
    out = []
    for kind in kinds:
        got = {
            "ly": lambda: value_ + "LY" if value_[-1:] in "TLN" else None,
            "plural": lambda: value_[:-1] if value_.endswith("S") else value_ + "S",
            "underscore": lambda: value_.replace("_", "") if "_" in value_ else None,
            "drop": lambda: _drop_letter(value_, rng),
        }[kind]()
        if got and got != value_:
            out.append(got)
    return out


# --- populations -------------------------------------------------------------------------------


def _known(ops: list[ApiOp], written: list[str]) -> list[ApiOp]:
    return [op for op in ops if matches(op.path, written)]


def _written(segments: list[str]) -> list[str]:
    return ["{}" if s.startswith("{") else s for s in segments]


def populations(ops: list[ApiOp]) -> dict[str, list[Unit]]:
    live = [op for op in ops if usable(op) and not op.deprecated]
    paths: dict[str, list[ApiOp]] = {}
    for op in ops:
        paths.setdefault(op.path, []).append(op)
    pop: dict[str, list[Unit]] = {c: [] for c in ("", *CHECKS)}
    for op in live:
        pop[""].append(Unit("", op.method, op.key, op))
        for i, seg in enumerate(op.segments):
            if not seg.startswith("{"):
                pop["unknown-endpoint"].append(
                    Unit("unknown-endpoint", op.method, f"{op.key}#{i}", op, str(i))
                )
        fields = [("query", f) for f in op.query] + [("body", f) for f in op.body]
        for role, f in fields:
            detail = f"{role}:{f.name}"
            if f.deprecated:
                continue
            # A misspelt required key would also leave the right one missing: two mistakes.
            if not f.required and (role == "query" or op.body_kind in ("object", "object-array")):
                pop["unknown-param"].append(
                    Unit("unknown-param", role, f"{op.key}#{detail}", op, detail, True)
                )
            if f.enum:
                pop["bad-value"].append(
                    Unit("bad-value", role, f"{op.key}#{detail}", op, detail, True)
                )
            # An `id` the path already carries (`PATCH /assets/{assetId}`) is not left out: the
            # request names it in its URL.
            carried = f.name == "id" and op.segments[-1].startswith("{")
            if role == "body" and f.required and op.body_kind == "object" and not carried:
                pop["missing-required"].append(
                    Unit("missing-required", op.method, f"{op.key}#{f.name}", op, f.name, True)
                )
    for path, path_ops in sorted(paths.items()):
        taken = {op.method for op in path_ops}
        base = next((op for op in path_ops if usable(op)), None)
        if base is None:
            continue
        written = _written(base.segments)
        for method in METHODS:
            if method in taken:
                continue
            # A written path a parameter segment of another template also fits, with this
            # method, is no clear mistake.
            if any(method == o.method for o in _known(ops, written)):
                continue
            pop["method-not-allowed"].append(
                Unit("method-not-allowed", method, f"{method} {path}", base, method)
            )
    for op in ops:
        if not usable(op):
            continue
        if op.deprecated:
            pop["deprecated"].append(Unit("deprecated", "operation", op.key, op))
            continue
        for f in op.query:
            if f.deprecated:
                pop["deprecated"].append(
                    Unit(
                        "deprecated", "parameter", f"{op.key}#{f.name}", op, f"query:{f.name}", True
                    )
                )
        for f in op.body:
            if f.deprecated and op.body_kind in ("object", "object-array"):
                pop["deprecated"].append(
                    Unit("deprecated", "property", f"{op.key}#{f.name}", op, f"body:{f.name}", True)
                )
    return pop


# --- requests ----------------------------------------------------------------------------------


def _fill(fields: tuple[Field, ...], rng: random.Random, leave_out: str = "") -> dict[str, object]:
    """Every required field but `leave_out`, and a few optional ones that are not deprecated
    (one with an enum more often than not, so valid enum values appear)."""
    required = [f for f in fields if f.required and f.name != leave_out]
    optional = [f for f in fields if not f.required and not f.deprecated and f.name != leave_out]
    picked: list[Field] = []
    enums = [f for f in optional if f.enum]
    if enums and rng.random() < 0.6:
        picked.append(rng.choice(enums))
    rest = [f for f in optional if f not in picked]
    # A body that lost its one required key still says something: at least one other key.
    least = 1 if leave_out and not required and not picked else 0
    picked += rng.sample(rest, rng.randint(min(least, len(rest)), min(2, len(rest))))
    order = {f.name: i for i, f in enumerate(fields)}
    chosen = sorted([*required, *picked], key=lambda f: order[f.name])
    return {f.name: value(f, rng) for f in chosen}


def request_for(op: ApiOp, rng: random.Random, leave_out: str = "") -> Request:
    req = Request(op, op.method, list(op.segments), body_kind=op.body_kind)
    req.query = _fill(op.query, rng)
    if op.body_kind == "object":
        req.body = _fill(op.body, rng, leave_out)
    elif op.body_kind == "object-array":
        req.body = [_fill(op.body, rng, leave_out)]
    elif op.body_kind == "scalar-array":
        req.body = [value(Field("id", {"type": "string", "format": "uuid"}, True, False), rng)]
    return req


def _body_fields(req: Request) -> dict[str, object]:
    if isinstance(req.body, list) and req.body and isinstance(req.body[0], dict):
        return req.body[0]
    return req.body if isinstance(req.body, dict) else {}


def mark_path(req: Request) -> None:
    """Marks the path from its first literal segment to its last: the URL a finding about the
    whole request covers, whichever piece of a concatenated URL it marks."""
    literal = [i for i, s in enumerate(req.segments) if not s.startswith("{")]
    first, last = literal[0], literal[-1]
    req.segments[first] = OPEN + req.segments[first]
    req.segments[last] = req.segments[last] + CLOSE


def planted_request(unit: Unit, ops: list[ApiOp], rng: random.Random) -> Request | None:
    """The request with the unit's one mistake, its planted text marked; None when every
    candidate misspelling would name something real (the unit cannot plant cleanly)."""
    op = unit.op
    if unit.check == "unknown-endpoint":
        req = request_for(op, rng)
        i = int(unit.detail)
        for wrong in misspell_segment(op.segments[i], rng):
            written = _written(op.segments)
            written[i] = wrong
            if not _known(ops, written):
                req.segments[i] = mark(wrong)
                return req
        return None
    if unit.check == "method-not-allowed":
        req = Request(op, unit.detail, list(op.segments))
        mark_path(req)
        return req
    if unit.check == "missing-required":
        req = request_for(op, rng, leave_out=unit.detail)
        if not req.body:
            return None
        # A literal-level finding sits where the literal starts: on its first key.
        first = next(iter(req.body))
        req.body = {(mark(k) if k == first else k): v for k, v in req.body.items()}
        return req
    if unit.check == "deprecated" and unit.stratum == "operation":
        req = request_for(op, rng)
        mark_path(req)
        return req
    req = request_for(op, rng)
    role, _, name = unit.detail.partition(":")
    in_query = role == "query"
    target = req.query if in_query else _body_fields(req)
    field = next(f for f in (op.query if in_query else op.body) if f.name == name)
    names = {f.name for f in (*op.query, *op.body)}
    if unit.check == "deprecated":
        rest = {k: v for k, v in target.items() if k != field.name}
        updated = {**rest, mark(field.name): value(field, rng)}
    elif unit.check == "unknown-param":
        wrong = next((w for w in misspell_name(field.name, rng) if w not in names), None)
        if wrong is None:
            return None
        good = target.get(field.name, value(field, rng))
        rest = {k: v for k, v in target.items() if k != field.name}
        updated = {**rest, mark(wrong): good}
    else:  # bad-value
        allowed = {v.upper() for v in field.enum}
        wrong = next(
            (w for w in near_miss(rng.choice(field.enum), rng) if w.upper() not in allowed), None
        )
        if wrong is None:
            return None
        bad: object = [mark(wrong)] if field.schema.get("type") == "array" else mark(wrong)
        rest = {k: v for k, v in target.items() if k != field.name}
        updated = {**rest, field.name: bad}
    target.clear()
    target.update(updated)
    return req
