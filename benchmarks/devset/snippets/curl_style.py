"""The shell snippet style: a curl command line."""

from __future__ import annotations

import random
import uuid

from benchmarks.devset.snippets.snippet import Snippet, path_text
from benchmarks.devset.snippets.values import Key, json_literal, literal
from benchmarks.devset.spec import Op


def style_shell_curl(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    url = path_text(op, s, lambda p: str(uuid.UUID(int=rng.getrandbits(128), version=4)))
    lines = [
        "#!/usr/bin/env bash",
        "set -euo pipefail",
        "",
        'COLLIBRA_URL="${COLLIBRA_URL:-https://acme.collibra.com}"',
        "",
    ]
    verb = "" if op.method == "GET" and rng.random() < 0.5 else f" -X {op.method}"
    in_url = query and (op.method != "GET" or rng.random() < 0.5)
    target = f"$COLLIBRA_URL/rest/2.0{url}"
    if in_url:
        target += "?" + "&".join(
            f"{s.mark(k.name, op, k.name, 'query')}={literal(k, rng).replace(' ', '%20')}"
            for k in query
        )
    head = f'curl -sS -u "svc-catalog:$COLLIBRA_PASSWORD"{verb}'
    if query and not in_url:
        head += " -G"
    parts = [f'{head} "{target}"']
    if query and not in_url:
        parts += [
            f'  --data-urlencode "{s.mark(k.name, op, k.name, "query")}={literal(k, rng)}"'
            for k in query
        ]
    if body:
        fields = ", ".join(
            f'"{s.mark(k.name, op, k.name, "body")}": {json_literal(k, rng)}' for k in body
        )
        document = f"[{{{fields}}}]" if op.body_is_array else f"{{{fields}}}"
        parts += ['  -H "Content-Type: application/json"', f"  -d '{document}'"]
    for i, part in enumerate(parts):
        lines.append(part + (" \\" if i < len(parts) - 1 else ""))
    return "shell", lines
