"""Which operations get a snippet, in which style, with which keys (see the package docstring)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from benchmarks.devset.corpus import Corpus
from benchmarks.devset.snippets.builder_styles import style_groovy_builder, style_java_builder
from benchmarks.devset.snippets.curl_style import style_shell_curl
from benchmarks.devset.snippets.js_styles import (
    style_javascript_axios,
    style_javascript_fetch,
    style_typescript_axios,
    style_typescript_fetch,
)
from benchmarks.devset.snippets.python_styles import (
    client_class_fits,
    style_python_client_class,
    style_python_dict_before,
    style_python_httpx,
    style_python_requests,
    style_python_session,
)
from benchmarks.devset.snippets.snippet import Snippet, path_text
from benchmarks.devset.snippets.values import Key
from benchmarks.devset.spec import Op

N_SNIPPETS = 72
STYLES = (
    "python-session",
    "python-requests",
    "python-dict-before",
    "python-client-class",
    "python-httpx",
    "javascript-fetch",
    "javascript-axios",
    "typescript-fetch",
    "typescript-axios",
    "shell-curl",
    "groovy-builder",
    "java-builder",
)
LANGUAGE = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "typescript",
    "shell": "shellscript",
    "groovy": "groovy",
    "java": "java",
}


STYLE_FUNCS: dict[str, Callable[..., tuple[str, list[str]]]] = {
    "python-session": style_python_session,
    "python-requests": style_python_requests,
    "python-dict-before": style_python_dict_before,
    "python-client-class": style_python_client_class,
    "python-httpx": style_python_httpx,
    "javascript-fetch": style_javascript_fetch,
    "javascript-axios": style_javascript_axios,
    "typescript-fetch": style_typescript_fetch,
    "typescript-axios": style_typescript_axios,
    "shell-curl": style_shell_curl,
    "groovy-builder": style_groovy_builder,
    "java-builder": style_java_builder,
}


def _keys(op: Op, rng: random.Random, most: int = 4) -> tuple[list[Key], list[Key]]:
    """Up to `most` query parameters or body keys: required ones first, then a random few."""
    query = [Key(n, "query", sch) for n, loc, sch in op.params if loc == "query"]
    body = (
        [Key(n, "body", sch) for n, sch in op.body.items()]
        if op.body_media == "application/json"
        else []
    )
    pool = body or query
    first = [k for k in pool if k.name in op.required][:most]
    rest = [k for k in pool if k not in first]
    want = rng.randint(1, min(most, len(pool)))
    chosen = first + rng.sample(rest, max(0, min(len(rest), want - len(first))))
    order = {k.name: i for i, k in enumerate(pool)}
    chosen.sort(key=lambda k: order[k.name])
    return (chosen, []) if not body else ([], chosen)


def _eligible(op: Op) -> bool:
    return bool(op.operation_id) and bool(
        any(loc == "query" for _, loc, _ in op.params)
        or (op.body and op.body_media == "application/json")
    )


def _combined_delete(
    find: Op, delete: Op, rng: random.Random
) -> tuple[str, str, list[str], Snippet]:
    """The issue's case: a GET /domains lookup, then requests.delete(".../domains/bulk")."""
    s = Snippet()
    find_url = path_text(find, s, lambda p: p)
    delete_url = path_text(delete, s, lambda p: p)
    name_key = s.mark("nameMatchMode", find, "nameMatchMode", "query")
    lines = [
        "import requests",
        "",
        'BASE = "https://acme.collibra.com/rest/2.0"',
        'AUTH = ("svc-catalog", "change-me")',
        "",
        "",
        "def remove_stale_domains(prefix):",
        "    found = requests.get(",
        f'        BASE + "{find_url}",',
        f'        params={{"name": prefix, "{name_key}": "START"}},',
        "        auth=AUTH,",
        "    ).json()",
        '    ids = [domain["id"] for domain in found["results"]]',
        f'    response = requests.delete(BASE + "{delete_url}", json=ids, auth=AUTH)',
        "    response.raise_for_status()",
    ]
    return "python-requests", "python", lines, s


def build_snippets(c: Corpus, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}:snippets")
    core = c.spec("dgc-rest")
    by_key = {(op.method, op.path): op for op in core.ops}
    forced = [
        ("python-session", by_key[("POST", "/workflowInstances")]),
        ("python-dict-before", by_key[("POST", "/relations")]),
    ]
    eligible = [op for op in c.ops if _eligible(op) and all(op is not f[1] for f in forced)]
    by_method: dict[str, dict[str, list[Op]]] = defaultdict(lambda: defaultdict(list))
    for op in eligible:
        by_method[op.method][op.tag].append(op)
    chosen: list[Op] = []
    used_tags: dict[str, set[str]] = defaultdict(set)
    methods = [m for m in ("GET", "POST", "PUT", "PATCH", "DELETE") if m in by_method]
    want = N_SNIPPETS - len(forced) - 1
    while len(chosen) < want and any(by_method[m] for m in methods):
        for method in methods:
            tags = by_method[method]
            if not tags or len(chosen) >= want:
                continue
            fresh = sorted(t for t in tags if t not in used_tags[method]) or sorted(tags)
            if not [t for t in tags if t not in used_tags[method]]:
                used_tags[method].clear()
            tag = rng.choice(fresh)
            used_tags[method].add(tag)
            op = rng.choice(tags[tag])
            tags[tag].remove(op)
            if not tags[tag]:
                del tags[tag]
            chosen.append(op)
    queue: list[str] = []
    plan: list[tuple[str, Op]] = list(forced)
    for op in chosen:
        if not queue:
            queue = list(STYLES)
            rng.shuffle(queue)
        style = next(
            (st for st in queue if st != "python-client-class" or client_class_fits(op)), queue[0]
        )
        queue.remove(style)
        plan.append((style, op))
    snippets: list[dict[str, Any]] = []
    for style, op in plan:
        # The fetch styles also mark the first path parameter; a snippet has at most 5 cursors.
        marked_path = style.endswith("-fetch") and "{" in op.path
        query, body = _keys(op, rng, 3 if marked_path else 4)
        if op.method == "POST" and op.path == "/workflowInstances":
            body = [
                Key(n, "body", op.body[n])
                for n in ("workflowDefinitionId", "businessItemIds", "businessItemType")
            ]
        if style == "python-client-class" and not client_class_fits(op):
            style = "python-session"
        s = Snippet()
        lang, lines = STYLE_FUNCS[style](op, query, body, s, rng)
        snippets.append(_finish_snippet(style, lang, lines, s, f"{op.method} {op.path}"))
    style, lang, lines, s = _combined_delete(
        by_key[("GET", "/domains")], by_key[("DELETE", "/domains/bulk")], rng
    )
    snippets.append(_finish_snippet(style, lang, lines, s, "GET /domains; DELETE /domains/bulk"))
    snippets.sort(key=lambda r: (r["operation"], r["style"]))
    for i, record in enumerate(snippets, start=1):
        record["id"] = f"snippet-{i:03d}"
    return snippets


def _finish_snippet(
    style: str, lang: str, lines: list[str], s: Snippet, operation: str
) -> dict[str, Any]:
    code, cursors = s.render(lines)
    return {
        "id": "",
        "language": LANGUAGE[lang],
        "style": style,
        "operation": operation,
        "code": code,
        "cursors": cursors,
    }
