"""JavaScript and TypeScript snippet styles: fetch and axios."""

from __future__ import annotations

import random
import re

from benchmarks.devset.snippets.snippet import Snippet, dict_lines, fn_name, path_text
from benchmarks.devset.snippets.values import Key
from benchmarks.devset.spec import Op


def _js_object(
    keys: list[Key],
    op: Op,
    s: Snippet,
    lang: str,
    rng: random.Random,
    variables: list[str],
    indent: str,
) -> list[str]:
    return dict_lines(keys, op, s, lang, rng, variables, indent, quote_keys=False)


def style_javascript_fetch(
    op: Op,
    query: list[Key],
    body: list[Key],
    s: Snippet,
    rng: random.Random,
    lang: str = "javascript",
) -> tuple[str, list[str]]:
    variables: list[str] = list(re.findall(r"\{([^}]+)\}", op.path))
    first = variables[0] if variables else ""
    url = path_text(op, s, lambda p: "${" + (s.mark(p, op, p, "path") if p == first else p) + "}")
    typed = lang == "typescript"
    lines: list[str] = []
    query_part = ""
    pre: list[str] = []
    if query:
        pre += [
            "  const query = new URLSearchParams({",
            *dict_lines(query, op, s, lang, rng, variables, "    ", quote_keys=False, strings=True),
            "  });",
        ]
        query_part = "?${query}"
    if body:
        entries = _js_object(body, op, s, lang, rng, variables, "    ")
        if op.body_is_array:
            pre += ["  const body = [{", *entries, "  }];"]
        else:
            pre += ["  const body = {", *entries, "  };"]
    params = ", ".join(f"{v}: string" if typed else v for v in dict.fromkeys(variables))
    ret = ": Promise<unknown>" if typed else ""
    lines += [
        'const base = process.env.COLLIBRA_URL ?? "https://acme.collibra.com";',
        "const headers = {",
        '  "Content-Type": "application/json",',
        '  Authorization: "Basic " + btoa("svc-catalog:change-me"),',
        "};",
        "",
        f"export async function {fn_name(op, lang)}({params}){ret} {{",
        *pre,
        f"  const response = await fetch(`${{base}}/rest/2.0{url}{query_part}`, {{",
        f'    method: "{op.method}",',
        "    headers,",
        *(["    body: JSON.stringify(body),"] if body else []),
        "  });",
        "  if (!response.ok) throw new Error(`Collibra answered ${response.status}`);",
        "  return response.json();",
        "}",
    ]
    return lang, lines


def style_typescript_fetch(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    return style_javascript_fetch(op, query, body, s, rng, "typescript")


def style_axios(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random, lang: str
) -> tuple[str, list[str]]:
    typed = lang == "typescript"
    variables: list[str] = list(re.findall(r"\{([^}]+)\}", op.path))
    url = path_text(op, s, lambda p: "${" + p + "}")
    pre: list[str] = []
    if body:
        entries = _js_object(body, op, s, lang, rng, variables, "    ")
        pre += (
            ["  const payload = [{", *entries, "  }];"]
            if op.body_is_array
            else ["  const payload = {", *entries, "  };"]
        )
    options: list[str] = []
    if query:
        options = [
            "    params: {",
            *_js_object(query, op, s, lang, rng, variables, "      "),
            "    },",
        ]
    params = ", ".join(f"{v}: string" if typed else v for v in dict.fromkeys(variables))
    ret = ": Promise<unknown>" if typed else ""
    method = op.method.lower()
    if typed:
        target = f"`{url}`"
        head = [
            'import axios from "axios";',
            "",
            "const api = axios.create({",
            '  baseURL: "https://acme.collibra.com/rest/2.0",',
            '  auth: { username: "svc-catalog", password: "change-me" },',
            "});",
            "",
        ]
        client = "api"
    else:
        target = f"`${{BASE_URL}}/rest/2.0{url}`"
        head = [
            'const axios = require("axios");',
            "",
            'const BASE_URL = "https://acme.collibra.com";',
            'const auth = { username: "svc-catalog", password: "change-me" };',
            "",
        ]
        client = "axios"
        options.append("    auth,")
    if method in ("post", "put", "patch"):
        call = [
            f"  const {{ data }} = await {client}.{method}({target}, "
            f"{'payload' if body else '{}'}, {{",
            *options,
            "  });",
        ]
    else:
        extra = ["    data: payload,"] if body else []
        call = [
            f"  const {{ data }} = await {client}.{method}({target}, {{",
            *extra,
            *options,
            "  });",
        ]
    lines = [
        *head,
        f"export async function {fn_name(op, lang)}({params}){ret} {{"
        if typed
        else f"async function {fn_name(op, lang)}({params}) {{",
        *pre,
        *call,
        "  return data;",
        "}",
        *([] if typed else ["", f"module.exports = {{ {fn_name(op, lang)} }};"]),
    ]
    return lang, lines


def style_javascript_axios(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    return style_axios(op, query, body, s, rng, "javascript")


def style_typescript_axios(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    return style_axios(op, query, body, s, rng, "typescript")
