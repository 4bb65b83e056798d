"""The request check for agents: one API request judged against the bundle's specs before the
agent writes it, with the findings the language server shows as diagnostics in client code.

A thin adapter over `Engine.check_request` and `Engine.api_operation`: it refuses input no
request could be, bounds what it returns and renders the findings as text.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import parse_qsl

import anyio
from pydantic import Field

from atlas_core.errors import QueryError
from atlas_core.identifiers import HTTP_METHODS
from atlas_ls.mcp._sdk import CallToolResult, Context, text_result
from atlas_ls.mcp.context import app_of, tool_errors
from atlas_ls.mcp.models import ApiCheckResult, RequestFinding

if TYPE_CHECKING:
    from atlas_core.engine import Engine
    from atlas_core.types import ApiFinding

MAX_PATH_CHARS = 1000  # the engine reads no more of a path than this
MAX_REQUEST_CHARS = 100_000  # params and body as JSON; a request an agent writes is far smaller
MAX_FINDINGS = 50
MAX_FIXES = 20
# Findings that mean the request names no operation: the endpoint stays "".
_NO_OPERATION = ("unknown-endpoint", "method-not-allowed")
_BLOCKING = ("error", "warning")
# Characters no method, path or key of a real request holds (tabs and line breaks included).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")

Params = Annotated[dict[str, Any] | None, Field(description="query parameters")]
Body = Annotated[
    dict[str, Any] | list[Any] | None,
    Field(description="JSON body (a list for bulk calls)"),
]


@tool_errors
async def check_api_call(
    ctx: Context,
    method: Annotated[str, Field(description="e.g. 'GET'")],
    path: Annotated[
        str,
        Field(description="'/assets', '/rest/2.0/assets/{id}' or a URL"),
    ],
    params: Params = None,
    body: Body = None,
) -> Annotated[CallToolResult, ApiCheckResult]:
    """Check a Collibra REST request before you write it (endpoint, method, params,
    body keys, values, deprecation); findings carry fixes and doc links.
    """
    verb, query = _checked(method, path, params, body)
    engine = await app_of(ctx).engine()
    findings, endpoint, checks_keys = await anyio.to_thread.run_sync(
        functools.partial(_check, engine, verb, path, query, body)
    )
    notes = []
    if not endpoint and not findings:
        notes.append(
            "no documented operation has this path, so nothing was checked; "
            "find the endpoint with lookup_identifier"
        )
    elif endpoint and not checks_keys:
        notes.append("only docs pages describe this operation: its parameters were not checked")
    if len(findings) > MAX_FINDINGS:
        notes.append(f"{len(findings) - MAX_FINDINGS} more findings not shown; fix these first")
    result = ApiCheckResult(
        endpoint=endpoint,
        ok=not any(f.severity in _BLOCKING for f in findings),
        findings=[_finding(f) for f in findings[:MAX_FINDINGS]],
        note="; ".join(notes),
    )
    return text_result(_render(verb, path, result), result.model_dump())


def _checked(
    method: str, path: str, params: Mapping[str, Any] | None, body: Any
) -> tuple[str, dict[str, Any]]:
    """The upper-case method and the query parameters (those written into the path's query string
    first, `params` over them), or a QueryError saying what no request could be."""
    verb = method.strip().upper()
    if not verb:
        raise QueryError("method is empty", hint="pass the HTTP method, e.g. method='GET'")
    if verb not in HTTP_METHODS:
        raise QueryError(
            f"method {method[:20]!r} is not an HTTP method",
            hint=f"pass one of {', '.join(HTTP_METHODS)}",
        )
    if not path.strip():
        raise QueryError("path is empty", hint="pass e.g. path='/rest/2.0/assets'")
    if len(path) > MAX_PATH_CHARS:
        raise QueryError(f"path is longer than {MAX_PATH_CHARS} characters")
    if _CONTROL.search(path):
        raise QueryError(f"path {path[:80]!r} contains a control character")
    query = dict(parse_qsl(path.partition("?")[2], keep_blank_values=True))
    query.update(params or {})
    bodies = body if isinstance(body, list) else [body]
    _check_keys("params", [query])
    _check_keys("body", [item for item in bodies if isinstance(item, Mapping)])
    # The transports refuse messages nested too deeply for this to recurse far.
    size = len(json.dumps([query, body], ensure_ascii=False))
    if size > MAX_REQUEST_CHARS:
        raise QueryError(
            f"params and body are {size} characters of JSON, more than the {MAX_REQUEST_CHARS} "
            "checked",
            hint="check a smaller request: one object of a bulk body shows the same problems",
        )
    return verb, query


def _check_keys(what: str, objects: Iterable[Mapping[str, Any]]) -> None:
    for item in objects:
        for key in item:
            if _CONTROL.search(key):
                raise QueryError(f"{what} key {key[:80]!r} contains a control character")


def _check(
    engine: Engine, method: str, path: str, params: dict[str, Any], body: Any
) -> tuple[list[ApiFinding], str, bool]:
    """The findings, the endpoint the request names ("" when none) and whether its keys were
    checked (a spec documents it)."""
    findings = engine.check_request(method, path, params, body)
    if any(f.check in _NO_OPERATION for f in findings):
        return findings, "", False
    # A path without its base is recognised by its first segment, the operation check_request
    # finds after putting the base before it.
    url = path.strip()
    url = url if url.startswith(("/", "http://", "https://")) else "/" + url
    op = engine.api_operation(method, url)
    return findings, op.endpoint if op else "", op is not None and op.spec is not None


def _finding(f: ApiFinding) -> RequestFinding:
    return RequestFinding(
        check=f.check,
        severity=f.severity,
        message=f.message,
        target=f.target,
        fixes=list(f.fixes[:MAX_FIXES]),
        href=f.href,
        rule=f.rule,
        deprecated=f.deprecated,
    )


def _render(method: str, path: str, result: ApiCheckResult) -> str:
    shown = result.endpoint or f"{method} {path[:200]}"
    if not result.findings:
        verdict = "ok, no findings" if result.endpoint else "not checked"
    else:
        count = len(result.findings)
        verdict = f"{'ok' if result.ok else 'not ok'}, {count} finding{'s' if count > 1 else ''}"
    lines = [f"{shown}: {verdict}"]
    for f in result.findings:
        lines.append(f"- {f.severity} {f.check} ({f.target}): {f.message}")
        if f.fixes:
            lines.append("  fixes: " + ", ".join(f.fixes))
        lines.append(f"  rule: {f.rule}  {f.href}".rstrip())
    if result.note:
        lines.append(f"[{result.note}]")
    return "\n".join(lines)
