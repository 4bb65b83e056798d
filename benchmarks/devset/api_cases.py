"""Draw the API-check development set: client snippets, correct or with one planted mistake.

    uv run python -m benchmarks.devset.api_cases --shared ../shared --seed 13 \\
        --out benchmarks/api_cases.jsonl

Method (the same inputs and seed give a byte-identical file):

1. Population. The operations of `dgc-rest.json` and `dgc-importer-rest.json`, with their path
   templates, methods, query parameters and top-level JSON body properties (schema, `required`,
   `enum`, `deprecated`). Operations with a multipart body, HEAD and OPTIONS are left out (a client
   snippet writes neither). Each class's population is a list of units:
   - correct: every operation that is not deprecated;
   - unknown-endpoint: (operation, literal path segment); the segment is misspelt by one of
     singular/plural, case of one letter, a dropped letter, two letters swapped (kinds tried in a
     random order); a misspelling whose path some template of either spec fits (a literal fills a
     parameter segment) is skipped, so `/communities/removalJob` never stands for a mistake;
   - method-not-allowed: (path, one of GET/POST/PUT/PATCH/DELETE the path does not take), unless
     another template the written path fits takes that method;
   - unknown-param: (operation, optional query parameter or top-level body property), misspelt by
     case of one inner letter (`nameMatchmode`), dropping the first word (`matchMode`),
     singular/plural or a dropped letter, never into another name of the operation (a required
     one is not misspelt: that would also leave it missing, two mistakes);
   - bad-value: (operation, parameter or property with a string enum), given a near miss of one
     of its values (`EXACT` -> `EXACTLY`, a plural, underscores dropped, a dropped letter) that the
     enum does not hold in any case;
   - missing-required: (operation, required top-level property of a JSON object body), left out of
     the body literal written in the call, every other required one present and at least one
     other key written (nobody writes `json={}`); an `id` the path already carries
     (`PATCH /assets/{assetId}`) is never the one left out;
   - deprecated: operations with `deprecated: true`, deprecated query parameters and deprecated
     top-level body properties (strata: operation, parameter, property).
   A unit whose mistake cannot be planted cleanly (every candidate misspelling names something
   real) is not in the population. Nothing is kept or dropped by what a checker answers.
2. Draw. Per class a fixed-seed stratified sample (strata: the method; for unknown-param and
   bad-value query/body; for deprecated the three kinds), a floor per stratum and the rest in
   proportion (`benchmarks.devset.sampling.allocate`), `N_CORRECT` correct and `N_PLANTED` of each
   planted class. Added on top, named in `FORCED`: the issue's own examples.
3. Snippet. Each unit's request (its own `random.Random(f"{seed}:{class}:{unit}")`): every required
   query parameter and body property, a few optional ones that are not deprecated (an enum one
   more often than not, with a valid value), ids as path variables, then the one mistake. About a
   third of the correct snippets carry a comment or docstring naming another endpoint in prose,
   a deprecated one among them; prose is never a call.
4. Shapes, cycled per class in a shuffled order: Python `requests` module functions with a
   `BASE` constant (f-string or `+` concatenation), `requests.Session` with the full URL,
   `httpx.Client(base_url=...)`, a client class with `self.base_url` and a `_request(method,
   path, **kw)` wrapper; JavaScript `fetch(url, {method, body: JSON.stringify(...)})` with
   `URLSearchParams`, `axios.get(url, {params})`/`axios.post(url, data)`; TypeScript `fetch` and an
   `axios.create({baseURL})` instance; shell `curl -X METHOD "...?query" -d '{json}'`; Groovy
   `new URL(...).openConnection()` with `setRequestMethod` and a map body (never PATCH, which
   HttpURLConnection cannot send); Java `java.net.http.HttpRequest`, Spring `RestTemplate` and
   OkHttp. The JVM shapes write bodies as JSON text or maps, so they take only the endpoint-level
   classes (correct, unknown-endpoint, method-not-allowed, deprecated operation).

Each case: `id`, `shape`, `language` (as `Engine.check_code` takes it), `code`, `operation`
(`METHOD /path` as the spec names what the code means to call; the written method for
method-not-allowed), `planted` (null, or `check`, `line` 0-based and `text`: the substring of that
line the finding should cover). The text is the misspelt segment, key or value, or the deprecated
key; for a wrong method or a deprecated operation the path from its first literal segment to its
last (a concatenated URL's pieces in between included, since a finding about the whole URL may
mark any one of them); for a missing property the first key of the body literal, where the
literal starts.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.devset.apicases import jvm_shapes, python_shapes, web_shapes
from benchmarks.devset.apicases.plants import (
    CHECKS,
    Unit,
    mark_path,
    planted_request,
    populations,
    request_for,
)
from benchmarks.devset.apicases.request import CLOSE, OPEN, Request, locate, mark
from benchmarks.devset.apicases.spec import ApiOp, read_all
from benchmarks.devset.sampling import allocate

N_CORRECT = 92
N_PLANTED = 14
FLOOR = 2
PROSE_SHARE = 0.33

Shape = Callable[[Request, random.Random], list[str]]
SHAPES: dict[str, tuple[str, Shape, bool]] = {
    # name: (language, renderer, takes key-level mistakes)
    "python-requests": ("python", python_shapes.python_requests, True),
    "python-session": ("python", python_shapes.python_session, True),
    "python-httpx": ("python", python_shapes.python_httpx, True),
    "python-client-class": ("python", python_shapes.python_client_class, True),
    "javascript-fetch": ("javascript", web_shapes.javascript_fetch, True),
    "javascript-axios": ("javascript", web_shapes.javascript_axios, True),
    "typescript-fetch": ("typescript", web_shapes.typescript_fetch, True),
    "typescript-axios": ("typescript", web_shapes.typescript_axios, True),
    "shell-curl": ("shell", web_shapes.shell_curl, True),
    "groovy-url": ("groovy", jvm_shapes.groovy_url, False),
    "java-httpclient": ("java", jvm_shapes.java_httpclient, False),
    "java-resttemplate": ("java", jvm_shapes.java_resttemplate, False),
    "java-okhttp": ("java", jvm_shapes.java_okhttp, False),
}
# The issue's own examples: (class, operation, shape, how the mistake is made).
FORCED = (
    (
        "",
        "POST /communities/removalJobs",
        "python-session",
        "prose:DELETE /communities/{communityId}",
    ),
    ("", "GET /assets", "javascript-axios", "query:nameMatchMode=EXACT"),
    ("unknown-endpoint", "GET /assets", "python-httpx", "segment:asset"),
    ("bad-value", "GET /assets", "python-requests", "query:nameMatchMode=EXACTLY"),
    ("deprecated", "DELETE /communities/{communityId}", "shell-curl", ""),
)


def _fits(shape: str, unit: Unit, req: Request) -> bool:
    _, _, key_level = SHAPES[shape]
    if unit.key_level and not key_level:
        return False
    return not (shape == "groovy-url" and req.method == "PATCH")


def _prose(op: ApiOp, ops: list[ApiOp], rng: random.Random) -> str:
    other = rng.choice([o for o in ops if o.key != op.key] or [op])
    old = rng.choice([o for o in ops if o.deprecated] or [other])
    return rng.choice(
        [
            f"Calls {op.method} {op.path}; see {other.method} {other.path} for the related call.",
            f"Replaces the old {old.method} {old.path} call.",
            f"Do not use {old.method} {old.path} here: it is deprecated.",
            f"Same as {other.method} {other.path}, but for one item.",
        ]
    )


def _draw(units: list[Unit], n: int, rng: random.Random) -> list[Unit]:
    strata: dict[str, list[Unit]] = {}
    for u in sorted(units, key=lambda u: u.name):
        strata.setdefault(u.stratum, []).append(u)
    counts = allocate({s: len(v) for s, v in sorted(strata.items())}, n, FLOOR)
    chosen: list[Unit] = []
    for s in sorted(strata):
        chosen.extend(rng.sample(strata[s], counts[s]))
    return sorted(chosen, key=lambda u: u.name)


def _forced_request(
    check: str, op: ApiOp, how: str, ops: list[ApiOp], rng: random.Random
) -> Request:
    req = request_for(op, rng)
    kind, _, arg = how.partition(":")
    if kind == "prose":
        req.prose = f"Removes communities in a job; {arg} is deprecated, use {op.method} {op.path}."
    elif kind == "query":
        name, _, val = arg.partition("=")
        req.query[name] = mark(val) if check else val
    elif kind == "segment":
        req.segments[0] = mark(arg)
    elif check == "deprecated":
        mark_path(req)
    return req


def _case(
    check: str, shape: str, req: Request, operation: str, rng: random.Random
) -> dict[str, Any]:
    language, render, _ = SHAPES[shape]
    code = "\n".join(render(req, rng)) + "\n"
    planted = None
    if check:
        found = locate(code)
        if found is None:
            raise SystemExit(f"{shape} {operation}: the planted text was not written")
        code, line, text = found
        planted = {"check": check, "line": line, "text": text}
    return {
        "id": "",
        "shape": shape,
        "language": language,
        "code": code,
        "planted": planted,
        "operation": operation,
    }


def build_cases(shared: Path, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    ops = read_all(shared)
    by_key = {op.key: op for op in ops}
    pops = populations(ops)
    forced_keys = {(c, k) for c, k, _, _ in FORCED}
    cases: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    for check in ("", *CHECKS):
        clean: list[tuple[Unit, Request]] = []
        for unit in pops[check]:
            if (check, unit.op.key) in forced_keys and check in ("", "deprecated"):
                continue
            unit_rng = random.Random(f"{seed}:{check}:{unit.name}")
            req = (
                request_for(unit.op, unit_rng)
                if not check
                else planted_request(unit, ops, unit_rng)
            )
            if req is not None:
                clean.append((unit, req))
        requests = {u.name: r for u, r in clean}
        drawn = _draw(
            [u for u, _ in clean],
            N_CORRECT if not check else N_PLANTED,
            random.Random(f"{seed}:draw:{check}"),
        )
        shape_rng = random.Random(f"{seed}:shapes:{check}")
        queue: list[str] = []
        for unit in drawn:
            req = requests[unit.name]
            fitting = [s for s in SHAPES if _fits(s, unit, req)]
            if not any(s in queue for s in fitting):
                queue = list(SHAPES)
                shape_rng.shuffle(queue)
            shape = next(s for s in queue if s in fitting)
            queue.remove(shape)
            if not check and shape_rng.random() < PROSE_SHARE:
                req.prose = _prose(unit.op, ops, shape_rng)
            operation = f"{req.method} {unit.op.path}"
            cases.append(_case(check, shape, req, operation, shape_rng))
        summary.append(
            {
                "class": check or "correct",
                "population": len(clean),
                "sample": len(drawn),
                "strata": dict(sorted(Counter(u.stratum for u, _ in clean).items())),
            }
        )
    for check, key, shape, how in FORCED:
        if key not in by_key:
            continue  # specs without the issue's operations (the tests' small spec)
        rng = random.Random(f"{seed}:forced:{check}:{key}")
        req = _forced_request(check, by_key[key], how, ops, rng)
        cases.append(_case(check, shape, req, key, rng))
    order = {c: i for i, c in enumerate(("", *CHECKS))}
    cases.sort(
        key=lambda c: (
            order[(c["planted"] or {}).get("check", "")],
            c["operation"],
            c["shape"],
            c["code"],
        )
    )
    for i, case in enumerate(cases, start=1):
        case["id"] = f"api-{i:03d}"
    return cases, summary


def problems_of(case: dict[str, Any]) -> list[str]:
    """What is wrong with a written case: Python must parse, other code balance its brackets,
    the planted text must be on its line, and no mark may be left."""
    problems: list[str] = []
    code: str = case["code"]
    if case["language"] == "python":
        try:
            ast.parse(code)
        except SyntaxError as exc:
            problems.append(f"python does not parse: {exc}")
    else:
        stripped = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', code)
        stripped = re.sub(r"`(?:\\.|[^`\\])*`", '""', stripped)
        for open_, close in ("()", "[]", "{}"):
            if stripped.count(open_) != stripped.count(close):
                problems.append(f"unbalanced {open_}")
    if OPEN in code or CLOSE in code:
        problems.append("a mark was left in the code")
    planted = case["planted"]
    if planted and planted["text"] not in code.split("\n")[planted["line"]]:
        problems.append(f"planted text {planted['text']!r} is not on line {planted['line']}")
    return problems


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=True) + "\n" for r in records)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.devset.api_cases", description=(__doc__ or "").split("\n", 1)[0]
    )
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/api_cases.jsonl"))
    args = parser.parse_args(argv)
    cases, summary = build_cases(args.shared, args.seed)
    problems = [f"{c['id']}: {p}" for c in cases for p in problems_of(c)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    write_jsonl(args.out, cases)
    print(f"{'class':<20} {'population':>10} {'sample':>6}  strata (population)")
    for row in summary:
        strata = ", ".join(f"{k} {v}" for k, v in row["strata"].items())
        print(f"{row['class']:<20} {row['population']:>10} {row['sample']:>6}  {strata}")
    planted = Counter((c["planted"] or {}).get("check", "correct") for c in cases)
    shapes = Counter(c["shape"] for c in cases)
    print(f"\n{len(cases)} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(planted.items())))
    print("shapes: " + ", ".join(f"{k} {v}" for k, v in sorted(shapes.items())))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
