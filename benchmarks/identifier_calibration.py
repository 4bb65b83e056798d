"""Hit@1 of `atlas lookup` on the identifier development set, by class and by confidence bucket.

    uv run python benchmarks/identifier_calibration.py --bundle DIR [--cases FILE] [--misses]

`atlas evaluate` reports hit@1 by class; this adds what the top candidate's confidence means: for
each bucket of top confidence, how many cases landed there and how often the top file was right.
A calibrated ranking has hit@1 rising with the bucket; `--misses` lists the cases it got wrong.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from atlas_core.engine import Engine

BUCKETS = (0.0, 0.3, 0.5, 0.7, 0.85, 0.95, 1.01)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", required=True, type=Path, action="append")
    parser.add_argument(
        "--cases", type=Path, default=Path(__file__).with_name("identifier_cases.jsonl")
    )
    parser.add_argument("--misses", action="store_true", help="list the cases missed at rank 1")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cases = [json.loads(line) for line in args.cases.read_text().splitlines() if line.strip()]
    by_class: dict[str, list[int]] = defaultdict(list)
    by_bucket: dict[str, list[int]] = defaultdict(list)
    misses = []
    with Engine.open(args.bundle) as engine:
        for case in cases:
            found = engine.lookup(case["identifier"], limit=10)
            top = found[0] if found else None
            hit = int(top is not None and top.file in case["expected_files"])
            by_class[case["class"]].append(hit)
            confidence = top.confidence if top else 0.0
            low = max(b for b in BUCKETS if b <= confidence) if top else None
            bucket = "none" if low is None else f">={low:.2f}"
            by_bucket[bucket].append(hit)
            if not hit:
                misses.append((case, top))
    total = [h for hits in by_class.values() for h in hits]
    report = {
        "hit@1": round(sum(total) / len(total), 4),
        "count": len(total),
        "by_class": {k: round(sum(v) / len(v), 4) for k, v in sorted(by_class.items())},
        "by_confidence": {
            k: {"cases": len(v), "hit@1": round(sum(v) / len(v), 4)}
            for k, v in sorted(by_bucket.items())
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"hit@1 {report['hit@1']:.3f} over {report['count']} cases")
        for name, value in report["by_class"].items():
            print(f"  {name:<10} {value:.3f}")
        print("by top confidence:")
        for name, row in report["by_confidence"].items():
            print(f"  {name:<7} {row['cases']:>4} cases  hit@1 {row['hit@1']:.3f}")
    if args.misses:
        for case, top in misses:
            got = (
                f"{top.file} ({top.kind} {top.name!r} {top.confidence:.2f} {top.match})"
                if top
                else "-"
            )
            print(
                f"MISS {case['id']:<14} {case['identifier']!r:<45} want {case['primary']}  got {got}"
            )


if __name__ == "__main__":
    main()
