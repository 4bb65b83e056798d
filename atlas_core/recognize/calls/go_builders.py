"""Go URLs built by the file's own functions::

    func buildURL(base string, params interface{}) (string, error) {
        ...
        if encoded != "" {
            return base + "?" + encoded, nil
        }
        return base, nil
    }

    endpoint, err := buildURL("/rest/2.0/assetTypes", params)
    req, err := http.NewRequestWithContext(ctx, "GET", endpoint, nil)

A call of a package-level function of the file is read as the first value it returns, its
parameters bound to the call's arguments (read where the call is written); a return of ``""`` or
``nil`` is its failure path. Where its other returns disagree beyond a query string, or it calls
itself, the value is unknown.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from atlas_core.recognize.calls.text_calls import Part, joined

if TYPE_CHECKING:
    from atlas_core.recognize.calls.go import _GoReader

_MAX_RETURNS = 4  # return statements of one builder compared
_MAX_BODY_CHARS = 20_000
_RETURN = re.compile(r"return\b")
_PARAM = re.compile(r"\s*([A-Za-z_]\w*)")


class Builder(NamedTuple):
    params: tuple[str, ...]
    returns: tuple[tuple[int, int], ...]  # the first value of each return statement


def builder_value(
    reader: _GoReader, name: str, args: list[tuple[int, int]], depth: int
) -> list[Part] | None:
    """The value a call of the file's own function `name` returns, else None."""
    builder = _builder(reader, name)
    if builder is None or name in reader.evaluating or len(builder.params) != len(args):
        return None
    reader.bound.append(dict(zip(builder.params, args, strict=True)))
    reader.evaluating.append(name)
    try:
        values = [reader.value(start, end, depth + 1) for start, end in builder.returns]
    finally:
        reader.bound.pop()
        reader.evaluating.pop()
    values = [v for v in values if joined(v) not in ("", "nil")]  # `return "", err`: a failure
    paths = {joined(v).split("?", 1)[0] for v in values}
    if len(paths) != 1:
        return None  # the returns build different URLs: which one depends on the run
    return next((v for v in values if "?" not in joined(v)), values[0])


def bound_argument(reader: _GoReader, name: str, depth: int) -> list[Part] | None:
    """The argument a builder being read was called with for its parameter `name`, read where
    the call is written (the builders outside it unbound meanwhile)."""
    if not reader.bound or name not in reader.bound[-1]:
        return None
    span = reader.bound[-1][name]
    saved = reader.bound.pop()
    try:
        return reader.value(*span, depth + 1)
    finally:
        reader.bound.append(saved)


def _builder(reader: _GoReader, name: str) -> Builder | None:
    if name in reader.builders:
        return reader.builders[name]
    found = None
    m = re.search(rf"^func\s+{re.escape(name)}\s*\(", reader.text, re.MULTILINE)
    if m is not None:
        found = _read(reader, m.end() - 1)
    reader.builders[name] = found
    return found


def _read(reader: _GoReader, paren: int) -> Builder | None:
    text = reader.text
    close = reader.closing(paren)
    brace = text.find("{", close) if close >= 0 else -1
    end = reader.closing(brace) if brace >= 0 else -1
    if end < 0 or end - brace > _MAX_BODY_CHARS:
        return None
    params = []
    for piece in text[paren + 1 : close].split(","):
        m = _PARAM.match(piece)
        if m is None:
            return None
        params.append(m.group(1))
    returns = []
    for i, ch, _ in reader._walk(brace, end):  # outside string literals
        if ch != "r" or _RETURN.match(text, i) is None or text[i - 1].isalnum():
            continue
        after = i + len("return")
        returns.append(reader.split(after, reader.expression_end(after), ",")[0])
        if len(returns) > _MAX_RETURNS:
            return None
    if not returns:
        return None
    return Builder(tuple(params), tuple(returns))
