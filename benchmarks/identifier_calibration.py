"""Hit@1 of `atlas lookup` on the identifier development set, by class and by confidence bucket.

    uv run python benchmarks/identifier_calibration.py --bundle DIR [--cases FILE] [--misses]

`atlas evaluate` reports hit@1 by class; this adds what the top candidate's confidence means: for
each bucket of top confidence, how many cases landed there and how often the top file was right.
A calibrated ranking has hit@1 rising with the bucket; `--misses` lists the cases it got wrong.
It also ranks the bundle's mirror pages by a plain count of the identifier's verbatim occurrences
(as `grep -cw` would, quotes around the identifier removed) and counts the cases that count gets
right at rank 1 and lookup does not ("lost to grep"), which should be none.
"""

from __future__ import annotations

import argparse
import json
import re
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
    pages = {
        str(p.relative_to(root / "mirror")): p.read_text(encoding="utf-8", errors="replace")
        for root in args.bundle
        for p in sorted((root / "mirror").rglob("*.md"))
    }
    lost_to_grep = []
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
                if _grep_top(pages, case["identifier"]) in case["expected_files"]:
                    lost_to_grep.append(case["id"])
    total = [h for hits in by_class.values() for h in hits]
    report = {
        "hit@1": round(sum(total) / len(total), 4),
        "count": len(total),
        "by_class": {k: round(sum(v) / len(v), 4) for k, v in sorted(by_class.items())},
        "lost_to_grep": lost_to_grep,
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
        print(f"lost to a per-file verbatim count: {len(lost_to_grep)} {lost_to_grep}")
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


def _grep_top(pages: dict[str, str], identifier: str) -> str | None:
    """The page with the most verbatim occurrences of `identifier` (first by name on a tie)."""
    needle = identifier.strip().strip("\"'`")
    if not needle:
        return None
    # Whole words, as `grep -cw`: `id` inside `valid` is not an occurrence of `id`.
    pattern = re.compile(rf"(?<![\w-]){re.escape(needle)}(?![\w-])")
    counts = {name: len(pattern.findall(text)) for name, text in pages.items()}
    best = max(counts.values(), default=0)
    return min(name for name, n in counts.items() if n == best) if best else None


if __name__ == "__main__":
    main()
