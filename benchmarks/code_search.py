"""Code search on a real package: definition-aware chunks against fixed windows, side by side.

    uv run python benchmarks/code_search.py [--json] [--verbose] [--set FILE] [--model default]
        [--workdir DIR]

Fetches the set's pinned package (click 8.1.8 for the default set,
benchmarks/data/code_search_click.json) from the package index with pip into a temporary folder,
builds two bundles of it with the same model, the definition-aware code chunker and the plain
fixed-window chunker (6,000 characters, 800 overlap), asks each every question with the engine's
default hybrid search (top 10), and prints per chunker:

  mrr_at_10      mean of 1/rank of the first hit (a result in the expected file whose lines
                 overlap the expected definition's), 0 when none is in the top 10
  recall_at_5    share of questions with a hit in the top 5
  hit_at_1       share of questions whose first result is a hit
  chunks         chunks in the bundle
  build_seconds  wall time of the build (chunking, embedding, indexes)

and mrr_gain = definition's MRR@10 minus window's (issue 15's goal: >= 0.05). `--json` prints one
JSON object with those keys (plus `package`, `version`, `questions`); `--verbose` adds each
chunker's misses by file (and, with --json, every question's rank and top 3 results). Without
network access to the package index it exits with a one-line error.

Not a test: asserts nothing. tests/evaluate/test_code_search.py checks the same comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.errors import AtlasError  # noqa: E402
from atlas_core.evaluate.code_search import format_report, run_code_search  # noqa: E402

DEFAULT_SET = ROOT / "benchmarks" / "data" / "code_search_click.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, help="the question file")
    parser.add_argument("--model", default="default", help="embedding model for both bundles")
    parser.add_argument("--workdir", type=Path, help="keep the package and bundles here")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", action="store_true", help="add the misses by file")
    args = parser.parse_args()
    try:
        if args.workdir is not None:
            args.workdir.mkdir(parents=True, exist_ok=True)
            comparison = run_code_search(args.set, args.workdir, args.model)
        else:
            with tempfile.TemporaryDirectory(prefix="atlas-code-search-") as tmp:
                comparison = run_code_search(args.set, Path(tmp), args.model)
    except AtlasError as exc:
        print(f"code_search: {exc.one_line()}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(comparison.as_dict(verbose=args.verbose), indent=2))
    else:
        print(format_report(comparison, verbose=args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
