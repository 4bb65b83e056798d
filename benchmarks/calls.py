"""How well and how fast the call reader reads client code: every cursor of the client snippets.

    uv run python benchmarks/calls.py [--snippets benchmarks/client_snippets.jsonl] [--json]
        [--bundle DIR]

For each snippet a fresh `CallReader` reads every cursor; the first read includes the parse. Per
style and overall it reports accuracy of:

  method  the HTTP method. Generated-client calls (`assetApi.findAssets(...)`, builders) carry no
          method in the code; their operation name picks the operation through the spec, so they
          are also counted apart: `method` is over every cursor, `method_http` over HTTP calls.
  role    the cursor's role. The reader says `operation` for a client method name (the snippets say
          `endpoint`) and `builder` for a builder method (the snippets say `query` or `body`, which
          only the spec knows): those pairs count as agreeing.
  name    the name under the cursor, scored where the expected name is that token; on the endpoint
          of an HTTP call the expected name is the spec's operationId, which the code does not hold.
  path    the reconstructed URL against the expected template after dropping scheme, host and the
          `/rest/2.0` base, any `{...}` matching one segment; scored on HTTP calls.

With ``--bundle`` every read call is also resolved through `Engine.resolve_call`, and scored:

  operation  the resolved operation's method and path template are the expected ones;
  parameter  on a cursor the snippet expects to be a query, path, header or body name, the
             resolved parameter or request-body property has that name (letters and digits);
  name_only  the operation a hover without the call around it would show: the first endpoint
             or operation `Engine.lookup` gives for the text under the cursor (the baseline).

Timing: p50/p95 of `Engine.resolve_call` on a warm engine (with ``--bundle``; ``resolve``
without the parameter's definition, as go-to-doc asks, ``resolve_defined`` with it), p50/p95 of
a warm read (tree cached), the first read of each snippet (parse included), a
generated 10,000-line Python client (first read, warm read, read after a one-line edit) and a
5 MB minified JSON line. Misses are listed per style.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.engine import Engine  # noqa: E402
from atlas_core.errors import QueryError  # noqa: E402
from atlas_core.identifiers.spelling import compact, path_key  # noqa: E402
from atlas_core.recognize.calls import CallReader, CallSite  # noqa: E402

ROLE_AGREES = {
    ("operation", "endpoint"),
    ("builder", "query"),
    ("builder", "body"),
    ("builder", "path"),
    ("builder", "header"),
}


def path_of(url: str) -> str:
    """``https://{}/rest/2.0/assets/{}`` -> ``/assets/{}``."""
    if "/rest/2.0" in url:
        return url.split("/rest/2.0", 1)[1] or "/"
    if "://" in url:
        url = "/" + url.split("://", 1)[1].partition("/")[2]
    while url.startswith("{}"):
        url = url[2:]
    return url


def path_matches(url: str, template: str) -> bool:
    got = [s for s in path_of(url).split("/") if s]
    want = [s for s in path_of(template).split("/") if s]
    if len(got) != len(want):
        return False
    return all(
        g == w or w.startswith("{") or g.startswith("{") for g, w in zip(got, want, strict=True)
    )


def score(site: CallSite | None, cursor: dict) -> dict[str, bool | None]:
    expect = cursor["expect"]
    if site is None:
        return {
            "found": False,
            "method": False,
            "method_http": None,
            "role": False,
            "name": False if cursor["text"] == expect["name"] else None,
            "path": False,
        }
    http = site.client == "http"
    return {
        "found": True,
        "method": site.method == expect["method"],
        "method_http": site.method == expect["method"] if http else None,
        "role": site.role == expect["role"] or (site.role, expect["role"]) in ROLE_AGREES,
        "name": site.name == expect["name"] if cursor["text"] == expect["name"] else None,
        "path": path_matches(site.url, expect["path"]) if http else None,
    }


PARAMETER_ROLES = frozenset({"query", "path", "header", "body"})


def same_operation(method: str, path: str, expect: dict) -> bool:
    return method.upper() == expect["method"] and path_key(path) == path_key(expect["path"])


RESOLVE_MS: list[float] = []  # the operation and parameter (what go-to-doc needs)
DEFINED_MS: list[float] = []  # and the parameter's definition read from the table


def score_resolution(engine: Engine, site: CallSite | None, cursor: dict) -> dict[str, bool | None]:
    expect = cursor["expect"]
    target = engine.resolve_call(site) if site is not None else None
    if site is not None:  # timed warm, as a hover after the first sees it
        t0 = time.perf_counter()
        engine.resolve_call(site, define=False)
        RESOLVE_MS.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        engine.resolve_call(site)
        DEFINED_MS.append((time.perf_counter() - t0) * 1000)
    on_param = expect["role"] in PARAMETER_ROLES
    try:
        named = engine.lookup(cursor["text"], limit=10) if cursor["text"].strip() else []
    except QueryError:
        named = []
    first = next((c for c in named if c.kind in ("endpoint", "operation") and c.method), None)
    return {
        "operation": target is not None and same_operation(target.method, target.path, expect),
        "parameter": (
            target is not None
            and target.param is not None
            and compact(target.param.name) == compact(expect["name"])
        )
        if on_param
        else None,
        "name_only": first is not None and same_operation(first.method, first.path, expect),
    }


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 3)


def evaluate(
    snippets: list[dict], engine: Engine | None = None
) -> tuple[dict, list[str], list[float], list[float]]:
    tallies: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    misses: list[str] = []
    warm: list[float] = []
    first: list[float] = []
    for snippet in snippets:
        reader = CallReader()
        uri = f"snippet://{snippet['id']}"
        for i, cursor in enumerate(snippet["cursors"]):
            args = (
                uri,
                snippet["code"],
                1,
                snippet["language"],
                cursor["line"],
                cursor["character"],
            )
            t0 = time.perf_counter()
            site = reader.read(*args)
            elapsed = (time.perf_counter() - t0) * 1000
            (first if i == 0 else warm).append(elapsed)
            if i == 0:  # a warm read of the first cursor too
                t0 = time.perf_counter()
                reader.read(*args)
                warm.append((time.perf_counter() - t0) * 1000)
            result = score(site, cursor)
            if engine is not None:
                result.update(score_resolution(engine, site, cursor))
            for style in (snippet["style"], "overall"):
                for metric, ok in result.items():
                    if ok is not None:
                        tallies[style][metric].append(ok)
            wrong = [m for m, ok in result.items() if ok is False]
            if wrong:
                e = cursor["expect"]
                got = (
                    f"{site.method or '-'} {site.role} {site.name!r} {site.url!r} {site.client}"
                    if site
                    else "None"
                )
                misses.append(
                    f"{snippet['style']:20} {snippet['id']} {cursor['line']}:{cursor['character']}"
                    f" {cursor['text']!r}: expected {e['method']} {e['role']} {e['name']!r}"
                    f" {e['path']}; got {got} [{', '.join(wrong)}]"
                )
    table = {
        style: {m: {"n": len(v), "accuracy": round(sum(v) / len(v), 3)} for m, v in metrics.items()}
        for style, metrics in tallies.items()
    }
    return table, misses, warm, first


def python_client(lines: int) -> str:
    """A generated client module of about `lines` lines, in the shapes the reader follows."""
    head = 'import requests\n\nBASE = "https://acme.collibra.com/rest/2.0"\n\n'
    block = """
class AssetsClient{i}:
    def __init__(self, session=None):
        self.session = session or requests.Session()
        self.base = BASE + "/assets"

    def find(self, name):
        params = {{"name": name}}
        params["nameMatchMode"] = "EXACT"
        return self.session.get(self.base, params=params).json()

    def set_attributes(self, asset_id, type_id):
        response = self.session.put(
            f"{{self.base}}/{{asset_id}}/attributes",
            json={{"typeId": type_id, "values": []}},
        )
        return response.json()
"""
    count = max(1, lines // block.count("\n"))
    return head + "".join(block.format(i=i) for i in range(count))


def time_large_inputs() -> dict[str, float]:
    out: dict[str, float] = {}
    text = python_client(10_000)
    lines = text.split("\n")
    target = next(i for i in range(len(lines) // 2, len(lines)) if '"nameMatchMode"' in lines[i])
    column = lines[target].index("nameMatchMode")
    reader = CallReader()
    t0 = time.perf_counter()
    site = reader.read("file:///big.py", text, 1, "python", target, column)
    out["python_10k_lines"] = len(lines)
    out["python_10k_first_read_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    out["python_10k_parse_ms"] = round(reader.last_parse_s * 1000, 2)
    assert site is not None and site.name == "nameMatchMode", site
    samples = []
    for _ in range(50):
        t0 = time.perf_counter()
        reader.read("file:///big.py", text, 1, "python", target, column)
        samples.append((time.perf_counter() - t0) * 1000)
    out["python_10k_warm_p50_ms"] = _pct(samples, 0.5)
    out["python_10k_warm_p95_ms"] = _pct(samples, 0.95)
    edited = text.replace('"values": []', '"values": [1]', 1)
    t0 = time.perf_counter()
    after = reader.read("file:///big.py", edited, 2, "python", target, column)
    out["python_10k_after_edit_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    assert after == site, (after, site)

    blob = json.dumps(
        [{"id": i, "href": f"/rest/2.0/assets/{i}", "name": "x" * 20} for i in range(60_000)],
        separators=(",", ":"),
    )
    blob = blob[: 5 * 1024 * 1024]
    for language in ("json", "javascript"):
        reader = CallReader()
        samples = []
        for column in (10, len(blob) // 2, len(blob) - 10):
            t0 = time.perf_counter()
            reader.read(f"file:///big.{language}", blob, 1, language, 0, column)
            samples.append((time.perf_counter() - t0) * 1000)
        out[f"minified_5mb_{language}_max_ms"] = round(max(samples), 2)
    long_line = "x = " + "[" + ",".join(str(i) for i in range(20_000)) + "]"
    long_line = long_line[:100_000]
    text = 'import requests\nrequests.get("/rest/2.0/assets", params={"name": 1})\n' + long_line
    reader = CallReader()
    samples = []
    for line, column in ((1, 35), (2, 50_000), (1, 45)):
        t0 = time.perf_counter()
        reader.read("file:///long.py", text, 1, "python", line, column)
        samples.append((time.perf_counter() - t0) * 1000)
    out["line_100k_chars_max_ms"] = round(max(samples), 2)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snippets", default=str(ROOT / "benchmarks" / "client_snippets.jsonl"))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--bundle", help="also resolve each call's operation in this bundle")
    args = parser.parse_args()
    path = Path(args.snippets)
    if not path.exists():
        print(f"no snippets at {path}; pass --snippets FILE", file=sys.stderr)
        return 2
    snippets = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    engine = Engine.open(args.bundle) if args.bundle else None
    table, misses, warm, first = evaluate(snippets, engine)
    timing = {
        "warm_p50_ms": _pct(warm, 0.5),
        "warm_p95_ms": _pct(warm, 0.95),
        "first_read_p50_ms": _pct(first, 0.5),
        "first_read_p95_ms": _pct(first, 0.95),
        "first_read_mean_ms": round(statistics.fmean(first), 3),
        **time_large_inputs(),
    }
    if RESOLVE_MS:
        timing["resolve_p50_ms"] = _pct(RESOLVE_MS, 0.5)
        timing["resolve_p95_ms"] = _pct(RESOLVE_MS, 0.95)
        timing["resolve_defined_p50_ms"] = _pct(DEFINED_MS, 0.5)
        timing["resolve_defined_p95_ms"] = _pct(DEFINED_MS, 0.95)
    result = {"snippets": len(snippets), "accuracy": table, "timing": timing, "misses": misses}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    metrics = ["method", "method_http", "role", "name", "path", "found"]
    if engine is not None:
        metrics += ["operation", "parameter", "name_only"]
    print(f"{'style':22}" + "".join(f"{m:>13}" for m in metrics))
    for style in sorted(table, key=lambda s: (s == "overall", s)):
        row = table[style]
        cells = [
            f"{row[m]['accuracy']:.3f} ({row[m]['n']:>3})" if m in row else f"{'-':>12}"
            for m in metrics
        ]
        print(f"{style:22}" + "".join(f"{c:>13}" for c in cells))
    print()
    for key, value in timing.items():
        print(f"{key:34} {value}")
    if misses:
        print("\nmisses:")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
