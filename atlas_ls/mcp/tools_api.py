"""The API checks for agents: one request judged against the bundle's specs before the agent
writes it (`check_api_call`), or the client code it wrote, every call in it (`check_code`), with
the findings the language server shows as diagnostics.

Thin adapters over `Engine.check_request`, `Engine.api_operation` and `Engine.check_code`: they
refuse input no request or code could be, bound what they return and render the findings as text.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import parse_qsl

import anyio
from pydantic import BaseModel, Field

from atlas_core.engine import find_terms
from atlas_core.errors import QueryError
from atlas_core.identifiers import HTTP_METHODS
from atlas_core.recognize import normalize_language, scan_calls
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

Params = dict[str, Any] | None  # the query parameters
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
        Field(description="'/assets/{id}' or a URL"),
    ],
    params: Params = None,
    body: Body = None,
) -> Annotated[CallToolResult, ApiCheckResult]:
    """Check a Collibra REST request before you write it; findings carry fixes and doc links."""
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


# The languages whose calls the readers see (an id the editors send, folded: "py", "ts", "sh").
CODE_LANGUAGES = (
    "python",
    "javascript",
    "typescript",
    "java",
    "groovy",
    "shell",
    "markdown",
    "html",
)
MAX_CODE_CHARS = (
    200_000  # a snippet or a file an agent wrote; a whole project is checked file by file
)
MAX_CODE_FINDINGS = 100


class CodeFinding(BaseModel):
    """One problem check_code found in a call of the code."""

    line: int = Field(description="1-based")
    column: int = Field(description="1-based, where the text to fix starts")
    check: str
    severity: str
    message: str
    fixes: list[str] = Field(description="replacements for the text at line:column, best first")
    endpoint: str = Field(description="the operation the call matched; '' when none")
    href: str
    rule: str


class CodeCheckResult(BaseModel):
    ok: bool = Field(description="no error or warning")
    calls: int = Field(description="API call sites read in the code")
    findings: list[CodeFinding]
    note: str = ""


@tool_errors
async def check_code(
    ctx: Context,
    code: str,
    language: str,
) -> Annotated[CallToolResult, CodeCheckResult]:
    """Check every Collibra API call in code you wrote."""
    lang = normalize_language(language)
    if lang not in CODE_LANGUAGES:
        raise QueryError(
            f"language {language[:40]!r} is not one whose calls Atlas reads",
            hint=f"pass one of {', '.join(CODE_LANGUAGES)}",
        )
    if len(code) > MAX_CODE_CHARS:
        raise QueryError(
            f"code is {len(code):,} characters, more than the {MAX_CODE_CHARS:,} checked",
            hint="check one file or function at a time",
        )
    engine = await app_of(ctx).engine()
    calls, findings = await anyio.to_thread.run_sync(
        functools.partial(_check_code, engine, code, lang)
    )
    notes = []
    if not calls:
        notes.append("no API call was recognised in the code, so nothing was checked")
    if len(findings) > MAX_CODE_FINDINGS:
        notes.append(
            f"{len(findings) - MAX_CODE_FINDINGS} more findings not shown; fix these first"
        )
    result = CodeCheckResult(
        ok=not any(f.severity in _BLOCKING for f in findings),
        calls=calls,
        findings=findings[:MAX_CODE_FINDINGS],
        note="; ".join(notes),
    )
    return text_result(_render_code(result), result.model_dump())


def _check_code(engine: Engine, code: str, language: str) -> tuple[int, list[CodeFinding]]:
    """The calls read and the findings, as the editor shows them: the API checks' and the
    deprecated names the calls use."""
    sites = scan_calls(code, language)
    lines = code.split("\n")
    found = [
        CodeFinding(
            line=f.line + 1,
            column=f.start + 1,
            check=f.check,
            severity=f.severity,
            message=f.message,
            fixes=list(f.fixes[:MAX_FIXES]),
            endpoint=f.endpoint,
            href=f.href,
            rule=f.rule,
        )
        for f in engine.check_code(code, language, sites=sites)
    ]
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for term in find_terms(engine.deprecated_terms(), code, language, sites):
        line = max(0, sum(1 for s in starts if s <= term.start) - 1)
        dep = term.deprecation
        message = f"'{term.text}' is deprecated in the Collibra docs"
        if dep.replacement:
            message += f"; use '{dep.replacement}' instead"
        found.append(
            CodeFinding(
                line=line + 1,
                column=term.start - starts[line] + 1,
                check="deprecated",
                severity="information",
                message=message,
                fixes=[term.fix] if term.fix else [],
                endpoint="",
                href=dep.url,
                rule=f"docs page {dep.file}" if dep.file else "",
            )
        )
    found.sort(key=lambda f: (f.line, f.column))
    return len({(s.line, s.site.method, s.site.url) for s in sites}), found


def _render_code(result: CodeCheckResult) -> str:
    count = len(result.findings)
    verdict = "ok" if result.ok else "not ok"
    lines = [
        f"{result.calls} call sites read: {verdict}, {count} finding{'s' if count != 1 else ''}"
    ]
    for f in result.findings:
        lines.append(f"- line {f.line}:{f.column} {f.severity} {f.check}: {f.message}")
        if f.fixes:
            lines.append("  fixes: " + ", ".join(f.fixes))
        if f.rule or f.href:
            lines.append(f"  rule: {f.rule}  {f.href}".rstrip())
    if result.note:
        lines.append(f"[{result.note}]")
    return "\n".join(lines)
