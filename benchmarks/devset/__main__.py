"""Draw the identifier development set and the client snippets from the real corpus and specs.

    uv run python -m benchmarks.devset --shared ../shared --seed 13 \
        --out benchmarks/identifier_cases.jsonl --snippets-out benchmarks/client_snippets.jsonl

Writes both JSONL files (sorted keys, ASCII) and prints each class's population, sample and
strata, then the snippet styles. The method is in the package docstring (`benchmarks/devset/`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.devset.cases import build_cases
from benchmarks.devset.corpus import load_corpus
from benchmarks.devset.snippets import build_snippets, validate_snippet


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=True) + "\n" for r in records)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.devset", description=__doc__.split("\n", 1)[0]
    )
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/identifier_cases.jsonl"))
    parser.add_argument(
        "--snippets-out", type=Path, default=Path("benchmarks/client_snippets.jsonl")
    )
    args = parser.parse_args(argv)
    corpus = load_corpus(args.shared)
    cases, summary = build_cases(corpus, args.seed)
    snippets = build_snippets(corpus, args.seed)
    problems = [f"{r['id']}: {p}" for r in snippets for p in validate_snippet(r)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    write_jsonl(args.out, cases)
    write_jsonl(args.snippets_out, snippets)
    print(
        f"{'class':<10} {'population':>10} {'sample':>6} {'ambiguous':>9} {'needs_spec':>10}"
        "  strata (population)"
    )
    for row in summary:
        strata = ", ".join(f"{k} {v}" for k, v in row["strata"].items())
        print(
            f"{row['class']:<10} {row['population']:>10} {row['sample']:>6} "
            f"{row['ambiguous']:>9} {row['needs_spec']:>10}  {strata}"
        )
    print(f"{'total':<10} {sum(r['population'] for r in summary):>10} {len(cases):>6}")
    styles = Counter(r["style"] for r in snippets)
    cursors = sum(len(r["cursors"]) for r in snippets)
    print(
        f"\n{len(snippets)} client snippets, {cursors} cursors; styles: "
        + ", ".join(f"{k} {v}" for k, v in sorted(styles.items()))
    )
    print(f"wrote {args.out} and {args.snippets_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
