"""Identifier-table speed on 100,000 synthetic identifiers, in wall time and CPU time.

Wall time on a shared machine is inflated by other processes; CPU time (`time.process_time`) is
what the code itself costs. Both are printed, as one JSON object:

  open_wall_ms / open_cpu_ms         fresh process: import atlas_core.identifiers.lookup.identifier_index, open the table,
                                     answer the first lookup (goal < 300)
  symbols_first_wall_ms / _cpu_ms    that process's first symbol search (reads the key files)
  symbols_p50/p95_wall_ms / _cpu_ms  workspace-symbol queries: prefixes, whole names, typos,
                                     camel-hump initials (goal p95 < 15)
  lookup_p50/p95_wall_ms / _cpu_ms   lookups of names and their other spellings, ranked over the
                                     table and a mention index of --mentions rows (goal p95 < 1)
  lookup_table_p50/p95_wall_ms / ... the same lookups on the table alone (a bundle before 1.1)
  mention_lookup_p50/p95_*           names only the mention index knows (constants)

    uv run python benchmarks/identifiers.py [--workdir DIR] [--rows 100000]
        [--mentions 1000000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.identifiers.lookup.identifier_index import IdentifierIndex  # noqa: E402
from benchmarks.synthetic_identifiers import (  # noqa: E402
    synthetic_entries,
    write_synthetic_mentions,
    write_synthetic_table,
)

OPEN_SCRIPT = """
import json, sys, time
w0, c0 = time.perf_counter(), time.process_time()
from atlas_core.identifiers.lookup.identifier_index import IdentifierIndex
index = IdentifierIndex.open(sys.argv[1])
index.lookup(sys.argv[2])
w1, c1 = time.perf_counter(), time.process_time()
index.symbols(sys.argv[2][:5], 50)
w2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({
    "wall": (w1 - w0) * 1000, "cpu": (c1 - c0) * 1000,
    "symbols_wall": (w2 - w1) * 1000, "symbols_cpu": (c2 - c1) * 1000,
}))
"""


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 3)


def _summarise(name: str, samples: list[tuple[float, float]]) -> dict[str, float]:
    wall = [w for w, _ in samples]
    cpu = [c for _, c in samples]
    return {
        f"{name}_p50_wall_ms": round(statistics.median(wall), 3),
        f"{name}_p95_wall_ms": _pct(wall, 0.95),
        f"{name}_p50_cpu_ms": round(statistics.median(cpu), 3),
        f"{name}_p95_cpu_ms": _pct(cpu, 0.95),
    }


def symbol_queries(rows: int, seed: int = 9) -> list[str]:
    """What people type into workspace-symbol search: half names, whole names, typos, humps."""
    rnd = random.Random(seed)
    entries = rnd.sample(synthetic_entries(rows), 200)
    queries = []
    for n, e in enumerate(entries):
        name = e.name.split()[-1] if e.kind == "endpoint" else e.name
        style = n % 4
        if style == 0:
            queries.append(name[: max(3, len(name) // 2)])
        elif style == 1:
            queries.append(name)
        elif style == 2 and len(name) > 4:
            i = rnd.randrange(1, len(name) - 1)
            queries.append(name[:i] + name[i + 1 :])  # one character dropped
        else:
            queries.append("".join(w[0] for w in e.name.replace("_", " ").split()) or name[:2])
    return queries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, help="keep (and reuse) the synthetic table here")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--mentions", type=int, default=1_000_000, help="(key, page) rows")
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="atlas-identifiers-"))
    table = write_synthetic_table(workdir / f"table-{args.rows}", n=args.rows)
    # The same table beside a mention index, as in a bundle of format 1.1.
    ranked = write_synthetic_table(workdir / f"ranked-{args.rows}-{args.mentions}", n=args.rows)
    write_synthetic_mentions(ranked, synthetic_entries(args.rows), n=args.mentions)
    first = synthetic_entries(args.rows)[args.rows // 2].name

    opens = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", OPEN_SCRIPT, str(table), first],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        opens.append(json.loads(out.stdout))
    results: dict[str, object] = {
        "rows": args.rows,
        "open_wall_ms": round(statistics.median(o["wall"] for o in opens), 2),
        "open_cpu_ms": round(statistics.median(o["cpu"] for o in opens), 2),
        # The first symbol search of a process reads the sorted key files it needs.
        "symbols_first_wall_ms": round(statistics.median(o["symbols_wall"] for o in opens), 2),
        "symbols_first_cpu_ms": round(statistics.median(o["symbols_cpu"] for o in opens), 2),
    }

    index = IdentifierIndex.open(table)
    queries = symbol_queries(args.rows)
    index.symbols(queries[0], 50)  # first use loads the key families, as an editor's first query
    results.update(
        _summarise("symbols", [_timed(lambda q=q: index.symbols(q, 50)) for q in queries])
    )
    lookups = []
    for e in random.Random(5).sample(synthetic_entries(args.rows), 300):
        lookups.append(e.name)
        if e.kind == "endpoint":
            lookups.append(f"/rest/2.0{e.path.replace('{', '<').replace('}', '>')}")
        if e.kind == "operation":
            lookups.append("".join("_" + c.lower() if c.isupper() else c for c in e.name))
    results.update(
        _summarise("lookup_table", [_timed(lambda q=q: index.lookup(q)) for q in lookups])
    )
    index.close()
    index = IdentifierIndex.open(ranked)
    index.lookup(lookups[0])  # first use reads the mention keys, as an editor's first hover
    results["mention_rows"] = index.mentions().meta["rows"] if index.mentions() else 0
    results.update(_summarise("lookup", [_timed(lambda q=q: index.lookup(q)) for q in lookups]))
    constants = [f"SYNTHETIC_CONSTANT_{i}" for i in random.Random(6).sample(range(1000), 200)]
    results.update(
        _summarise("mention_lookup", [_timed(lambda q=q: index.lookup(q)) for q in constants])
    )
    index.close()
    results["goals"] = {"open_ms": "< 300", "symbols_p95_ms": "< 15", "lookup_p95_ms": "< 1"}
    results["mentions"] = args.mentions
    print(json.dumps(results, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
