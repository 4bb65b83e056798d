"""A repeatable adversarial run: seeded hostile inputs against the real components (issue 10).

    uv run python benchmarks/fuzz.py [--seed 0] [--cases N] [--classes a,b] [--json]
                                     [--timeout SECONDS] [--keep DIR]

Each class generates its cases from the seed by composing and mutating hostile pieces, runs them
against the real thing (in-process components in a separate, memory- and file-size-limited case
runner; servers as subprocesses spoken to in raw bytes or through the SDK client), and sorts each
case into one of three outcomes:

  refused_cleanly   the component said no the way it should (one-line error, tool error, 4xx)
  accepted          the component took the input and every invariant held afterwards
  failures          anything else: a traceback-type exception, a hang, a leaked secret or token,
                    a file written outside its folder, a request left without an answer

Classes: archive, release, bundle, sources, client_configs, repositories, queries, mcp_paths,
mcp_wire, lsp_wire, http (see each module in benchmarks/fuzzing/ for what it sends and what it
checks). The same seed, class and case count always build the same cases, and `--cases N` runs the
first N of any larger run, so a failure reported as `#17` comes back with `--classes CLASS --cases
18`.

Prints a table (to stderr with --json) and, with --json, one JSON object:
{"seed", "classes": {CLASS: {"tried", "refused_cleanly", "accepted", "failures",
"failure_examples", "seconds"}}, "total": {...}}. Exits 1 when any case failed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path, and benchmarks/mcp.py would hide
# the `mcp` SDK; the repository root goes there instead, for `benchmarks.fuzzing`.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from benchmarks.fuzzing import CLASSES, run_class  # noqa: E402
from benchmarks.fuzzing.core import Tally  # noqa: E402
from benchmarks.fuzzing.workspace import Workspace, isolate_environment  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="fuzz.py", description="Seeded adversarial run against Atlas's real components."
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every case (default 0)")
    parser.add_argument(
        "--cases", type=int, metavar="N", help="cases per class (default: each class's own)"
    )
    parser.add_argument(
        "--classes",
        default=",".join(CLASSES),
        metavar="A,B",
        help=f"classes to run, comma-separated (default all: {','.join(CLASSES)})",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="per-case time limit for every class (default: each class's own)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="print every case and its outcome to stderr"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="work in DIR and keep it (default: a temporary folder, kept only when a case fails)",
    )
    args = parser.parse_args(argv)
    chosen = [c.strip() for c in args.classes.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in CLASSES]
    if unknown or not chosen:
        parser.error(
            f"unknown class {', '.join(unknown) or '(none)'}; pick from {', '.join(CLASSES)}"
        )
    if args.cases is not None and args.cases < 0:
        parser.error("--cases must be 0 or more")
    if args.timeout is not None and not args.timeout > 0:
        parser.error("--timeout must be a positive number of seconds")
    args.chosen = chosen
    return args


def table(seed: int, tallies: dict[str, Tally], seconds: float) -> str:
    w = max(10, *(len(cls) for cls in tallies))  # the class column fits the longest name
    header = (
        f"{'class':<{w}} {'tried':>6} {'refused':>8} {'accepted':>9} {'failures':>9} {'seconds':>8}"
    )
    lines = [f"atlas fuzz, seed {seed}", header, "-" * len(header)]
    for cls, t in tallies.items():
        lines.append(
            f"{cls:<{w}} {t.tried:>6} {t.refused_cleanly:>8} {t.accepted:>9} {t.failures:>9} "
            f"{t.seconds:>8.1f}"
        )
    total = totals(tallies)
    lines.append("-" * len(header))
    lines.append(
        f"{'total':<{w}} {total['tried']:>6} {total['refused_cleanly']:>8} {total['accepted']:>9} "
        f"{total['failures']:>9} {seconds:>8.1f}"
    )
    for cls, t in tallies.items():
        if t.note:
            lines.append(f"{cls}: {t.note}")
        for example in t.failure_examples:
            lines.append(f"{cls} failure {example}")
    return "\n".join(lines)


def totals(tallies: dict[str, Tally]) -> dict[str, int]:
    keys = ("tried", "refused_cleanly", "accepted", "failures")
    return {key: sum(getattr(t, key) for t in tallies.values()) for key in keys}


def report(
    seed: int, cases: int | None, tallies: dict[str, Tally], seconds: float
) -> dict[str, Any]:
    return {
        "seed": seed,
        "cases": cases,
        "classes": {cls: t.as_json() for cls, t in tallies.items()},
        "total": {**totals(tallies), "seconds": round(seconds, 1)},
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="atlas-fuzz-"))
    root.mkdir(parents=True, exist_ok=True)
    isolate_environment(root / "home")
    workspace = Workspace(seed=args.seed, root=root, timeout=args.timeout, verbose=args.verbose)
    started = time.monotonic()
    tallies: dict[str, Tally] = {}
    try:
        for cls in args.chosen:
            print(f"fuzz: {cls} ...", file=sys.stderr, flush=True)
            tallies[cls] = run_class(cls, workspace, args.cases)
    finally:
        failed = any(t.failures for t in tallies.values())
        if args.keep is None and not failed:
            shutil.rmtree(root, ignore_errors=True)
        elif args.keep is None:
            # The failure messages point at the case runners' and servers' logs in there.
            print(f"fuzz: failures; the logs are kept in {root}", file=sys.stderr)
    seconds = time.monotonic() - started
    print(table(args.seed, tallies, seconds), file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps(report(args.seed, args.cases, tallies, seconds)))
    return 1 if any(t.failures for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
