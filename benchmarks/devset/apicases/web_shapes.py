"""JavaScript and TypeScript (`fetch`, `axios`) and shell (`curl`) call shapes."""

from __future__ import annotations

import random

from benchmarks.devset.apicases.request import (
    Request,
    fn_name,
    js,
    json_text,
    path_with,
    query_string,
    query_strings,
)
from benchmarks.devset.casing import snake


def _params(req: Request, typed: bool) -> str:
    names = list(dict.fromkeys(req.params))
    if req.body_kind == "opaque":
        names.append("viewConfig")
    return ", ".join(f"{n}: string" if typed else n for n in names)


def _comment(req: Request, indent: str = "") -> list[str]:
    return [f"{indent}// {req.prose}"] if req.prose else []


def _body_expr(req: Request, indent: str) -> str:
    return "viewConfig" if req.body_kind == "opaque" else js(req.body, indent)


def fetch(req: Request, rng: random.Random, typed: bool = False) -> list[str]:
    path = path_with(req.segments, lambda p: "${" + p + "}")
    pre: list[str] = []
    suffix = ""
    if req.query:
        pre.append(f"  const query = new URLSearchParams({js(query_strings(req.query), '  ')});")
        suffix = "?${query}"
    options = [f'    method: "{req.method}",', "    headers,"]
    if req.sends_body:
        options.append(f"    body: JSON.stringify({_body_expr(req, '    ')}),")
    ret = ": Promise<unknown>" if typed else ""
    return [
        'const BASE = "https://acme.collibra.com/rest/2.0";',
        "const headers = {",
        '  "Content-Type": "application/json",',
        "  Authorization: `Bearer ${process.env.COLLIBRA_TOKEN}`,",
        "};",
        "",
        *_comment(req),
        f"export async function {fn_name(req.op, 'js')}({_params(req, typed)}){ret} {{",
        *pre,
        f"  const response = await fetch(`${{BASE}}{path}{suffix}`, {{",
        *options,
        "  });",
        "  if (!response.ok) throw new Error(`Collibra answered ${response.status}`);",
        "  return response.json();",
        "}",
    ]


def axios_call(req: Request, client: str, target: str, extra: list[str]) -> list[str]:
    method = req.method.lower()
    options = list(extra)
    if req.query:
        options.insert(0, f"    params: {js(req.query, '    ')},")
    if method in ("post", "put", "patch"):
        data = _body_expr(req, "  ") if req.sends_body else "{}"
        if not options:
            return [f"  const {{ data }} = await {client}.{method}({target}, {data});"]
        return [
            f"  const {{ data }} = await {client}.{method}({target}, {data}, {{",
            *options,
            "  });",
        ]
    if req.sends_body:
        options.insert(0, f"    data: {_body_expr(req, '    ')},")
    if not options:
        return [f"  const {{ data }} = await {client}.{method}({target});"]
    return [f"  const {{ data }} = await {client}.{method}({target}, {{", *options, "  });"]


def javascript_axios(req: Request, rng: random.Random) -> list[str]:
    path = path_with(req.segments, lambda p: "${" + p + "}")
    target = f"`${{BASE_URL}}{path}`"
    name = fn_name(req.op, "js")
    return [
        'const axios = require("axios");',
        "",
        'const BASE_URL = "https://acme.collibra.com/rest/2.0";',
        'const auth = { username: "svc-catalog", password: process.env.COLLIBRA_PASSWORD };',
        "",
        *_comment(req),
        f"async function {name}({_params(req, False)}) {{",
        *axios_call(req, "axios", target, ["    auth,"]),
        "  return data;",
        "}",
        "",
        f"module.exports = {{ {name} }};",
    ]


def typescript_axios(req: Request, rng: random.Random) -> list[str]:
    path = path_with(req.segments, lambda p: "${" + p + "}")
    target = f"`{path}`" if req.params else f'"{path}"'
    return [
        'import axios from "axios";',
        "",
        "const api = axios.create({",
        '  baseURL: "https://acme.collibra.com/rest/2.0",',
        "  headers: { Authorization: `Bearer ${process.env.COLLIBRA_TOKEN}` },",
        "});",
        "",
        *_comment(req),
        f"export async function {fn_name(req.op, 'js')}({_params(req, True)}): Promise<unknown> {{",
        *axios_call(req, "api", target, []),
        "  return data;",
        "}",
    ]


def javascript_fetch(req: Request, rng: random.Random) -> list[str]:
    return fetch(req, rng)


def typescript_fetch(req: Request, rng: random.Random) -> list[str]:
    return fetch(req, rng, typed=True)


def shell_curl(req: Request, rng: random.Random) -> list[str]:
    path = path_with(req.segments, lambda p: "$" + snake(p).upper())
    lines = ["#!/usr/bin/env bash", "set -euo pipefail", ""]
    if req.prose:
        lines.append(f"# {req.prose}")
    base = "$COLLIBRA_URL/rest/2.0"
    lines.append('COLLIBRA_URL="${COLLIBRA_URL:-https://acme.collibra.com}"')
    for i, p in enumerate(dict.fromkeys(req.params), start=1):
        lines.append(f'{snake(p).upper()}="${i}"')
    if req.body_kind == "opaque":
        lines.append('VIEW_CONFIG_FILE="${VIEW_CONFIG_FILE:-view.json}"')
    lines.append("")
    verb = "" if req.method == "GET" and rng.random() < 0.5 else f" -X {req.method}"
    parts = [
        f'curl -sS -u "svc-catalog:$COLLIBRA_PASSWORD"{verb} "{base}{path}{query_string(req.query)}"'
    ]
    if req.sends_body:
        parts.append('  -H "Content-Type: application/json"')
        if req.body_kind == "opaque":
            parts.append('  -d "@$VIEW_CONFIG_FILE"')
        else:
            parts.append(f"  -d '{json_text(req.body)}'")
    for i, part in enumerate(parts):
        lines.append(part + (" \\" if i < len(parts) - 1 else ""))
    return lines
