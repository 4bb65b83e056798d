"""Precision and recall of the API checks on the development set, and what they say about the
code examples in the docs themselves.

    uv run python benchmarks/api_checks.py --bundle DIR [--cases benchmarks/api_cases.jsonl]
        [--docs ../shared/collibra-docs/markdown] [--json]

Cases (`benchmarks/devset/api_cases.py` draws them): each snippet goes through
`Engine.check_code(code, language)`. A finding is a true positive when its case plants that
check, it is on the planted line and its columns overlap the planted text there; one finding per
plant counts, and every other finding is a false positive (a second finding on the same plant
too: the editor would show it twice). A plant with no such finding is a false negative. Per check
and overall: tp, fp, fn, precision = tp / (tp + fp), recall = tp / (tp + fn).

Docs (``--docs``): every fenced code block the language server reads in a code language (its info
string folded by `calls.markdown.block_language`: python/py, javascript/js, typescript/ts, java,
groovy, bash/sh/shell/curl, or none with a body starting with ``curl``) is checked with
`check_code(block, language)`. Reported: the blocks, those where the call scanner (`scan_calls`,
what `check_code` reads) sees at least one HTTP endpoint, every diagnostic with its file and
line, and the unexpected ones: all but ``deprecated`` (the issue asks for none except where the
docs mark the call deprecated).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.engine import Engine  # noqa: E402
from atlas_core.recognize.calls.markdown import block_language, fenced_blocks  # noqa: E402
from atlas_core.recognize.calls.scan import scan_calls  # noqa: E402

CHECKS = (
    "unknown-endpoint",
    "method-not-allowed",
    "unknown-param",
    "bad-value",
    "missing-required",
    "deprecated",
)
CODE_LANGUAGES = frozenset({"python", "javascript", "typescript", "java", "groovy", "shell"})


class Finding(Protocol):
    """What the runner reads of an `ApiFinding`."""

    @property
    def check(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def end_line(self) -> int | None: ...


def covers(case: dict[str, Any], finding: Finding) -> bool:
    """The finding is the planted check, on the planted line, overlapping the planted text."""
    planted = case.get("planted")
    last = finding.line if finding.end_line is None else finding.end_line
    if not planted or finding.check != planted["check"]:
        return False
    if not finding.line <= planted["line"] <= last:
        return False
    # The finding's columns on the planted line (a range over lines covers the lines between).
    start = finding.start if planted["line"] == finding.line else 0
    end = finding.end if planted["line"] == last else 1 << 30
    line = case["code"].split("\n")[planted["line"]]
    text = planted["text"]
    at = line.find(text)
    while at >= 0:
        # An empty finding range still marks a column: it overlaps when it sits inside the text.
        if start < at + len(text) and max(end, start + 1) > at:
            return True
        at = line.find(text, at + 1)
    return False


def _finding_record(finding: Finding) -> dict[str, Any]:
    return {
        "check": finding.check,
        "severity": finding.severity,
        "line": finding.line,
        "start": finding.start,
        "end": finding.end,
        "end_line": finding.line if finding.end_line is None else finding.end_line,
        "message": finding.message,
    }


def _ratio(num: int, den: int) -> float:
    return round(num / den, 4) if den else 1.0


def score(cases: list[dict[str, Any]], findings: dict[str, list[Finding]]) -> dict[str, Any]:
    """Per check and overall counts over the cases, given each case id's findings."""
    counts = {c: {"tp": 0, "fp": 0, "fn": 0} for c in CHECKS}
    false_positives: list[dict[str, Any]] = []
    misses: list[dict[str, Any]] = []
    for case in cases:
        planted = case.get("planted")
        hit = False
        for finding in findings.get(case["id"], []):
            counts.setdefault(finding.check, {"tp": 0, "fp": 0, "fn": 0})
            if not hit and covers(case, finding):
                hit = True
                counts[finding.check]["tp"] += 1
                continue
            counts[finding.check]["fp"] += 1
            false_positives.append(
                {
                    "case": case["id"],
                    "shape": case["shape"],
                    "operation": case["operation"],
                    "planted": planted["check"] if planted else None,
                    "finding": _finding_record(finding),
                }
            )
        if planted and not hit:
            counts[planted["check"]]["fn"] += 1
            misses.append(
                {
                    "case": case["id"],
                    "shape": case["shape"],
                    "operation": case["operation"],
                    "planted": planted,
                    "found": [_finding_record(f) for f in findings.get(case["id"], [])],
                }
            )
    per_check = {
        check: {
            **c,
            "precision": _ratio(c["tp"], c["tp"] + c["fp"]),
            "recall": _ratio(c["tp"], c["tp"] + c["fn"]),
        }
        for check, c in counts.items()
    }
    tp = sum(c["tp"] for c in counts.values())
    fp = sum(c["fp"] for c in counts.values())
    fn = sum(c["fn"] for c in counts.values())
    planted_n = sum(1 for c in cases if c.get("planted"))
    return {
        "cases": len(cases),
        "correct": len(cases) - planted_n,
        "planted": planted_n,
        "per_check": per_check,
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "false_positives": false_positives,
        "misses": misses,
    }


def run_cases(engine: Engine, cases: list[dict[str, Any]]) -> dict[str, Any]:
    findings: dict[str, list[Finding]] = {
        case["id"]: list(engine.check_code(case["code"], case["language"])) for case in cases
    }
    return score(cases, findings)


# --- docs ----------------------------------------------------------------------------------------


def code_blocks(text: str) -> Iterator[tuple[int, str, str]]:
    """(first line of the body, 0-based; language; body) of each fenced block to check: the
    blocks the language server's scan reads (`calls.markdown.fenced_blocks`) in a code language."""
    for info, body_start, body_end in fenced_blocks(text):
        body = text[body_start:body_end]
        language = block_language(info, body)
        if language in CODE_LANGUAGES:
            yield text.count("\n", 0, body_start), language, body


def run_docs(engine: Engine, docs: Path) -> dict[str, Any]:
    blocks = with_calls = 0
    diagnostics: list[dict[str, Any]] = []
    for path in sorted(docs.rglob("*.md")):
        for start, language, body in code_blocks(path.read_text(encoding="utf-8")):
            blocks += 1
            with_calls += any(item.site.role == "endpoint" for item in scan_calls(body, language))
            for finding in engine.check_code(body, language):
                diagnostics.append(
                    {
                        "file": str(path.relative_to(docs)),
                        "line": start + finding.line + 1,
                        "check": finding.check,
                        "severity": finding.severity,
                        "message": finding.message,
                    }
                )
    return {
        "docs_blocks": blocks,
        "docs_blocks_with_calls": with_calls,
        "docs_diagnostics": diagnostics,
        "docs_unexpected": [d for d in diagnostics if d["check"] != "deprecated"],
    }


# --- report --------------------------------------------------------------------------------------


def _rows(result: dict[str, Any]) -> Iterable[str]:
    yield f"{'check':20} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>10} {'recall':>8}"
    for check, c in result["per_check"].items():
        yield (
            f"{check:20} {c['tp']:>4} {c['fp']:>4} {c['fn']:>4} "
            f"{c['precision']:>10.3f} {c['recall']:>8.3f}"
        )
    yield (
        f"{'overall':20} {'':>4} {'':>4} {'':>4} "
        f"{result['precision']:>10.3f} {result['recall']:>8.3f}"
    )
    yield (f"\n{result['cases']} cases: {result['correct']} correct, {result['planted']} planted")
    if result["false_positives"]:
        yield "\nfalse positives:"
        for fp in result["false_positives"]:
            f = fp["finding"]
            yield (
                f"  {fp['case']} {fp['shape']} {fp['operation']} (planted {fp['planted']}): "
                f"{f['check']} line {f['line']}:{f['start']}-{f['end']} {f['message']}"
            )
    if result["misses"]:
        yield "\nmisses:"
        for miss in result["misses"]:
            p = miss["planted"]
            found = "; ".join(
                f"{f['check']} line {f['line']}:{f['start']}-{f['end']}" for f in miss["found"]
            )
            yield (
                f"  {miss['case']} {miss['shape']} {miss['operation']}: {p['check']} "
                f"line {p['line']} {p['text']!r}" + (f" (found: {found})" if found else "")
            )
    if "docs_blocks" in result:
        yield (
            f"\ndocs: {result['docs_blocks']} code blocks, {result['docs_blocks_with_calls']} "
            f"with API calls, {len(result['docs_diagnostics'])} diagnostics, "
            f"{len(result['docs_unexpected'])} unexpected"
        )
        for d in result["docs_diagnostics"]:
            yield f"  {d['file']}:{d['line']} {d['check']} ({d['severity']}) {d['message']}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--bundle", required=True, help="the bundle to check against")
    parser.add_argument("--cases", type=Path, default=ROOT / "benchmarks" / "api_cases.jsonl")
    parser.add_argument("--docs", type=Path, help="also check the code blocks of these docs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.cases.is_file():
        print(f"no cases at {args.cases}; pass --cases FILE", file=sys.stderr)
        return 2
    if args.docs is not None and not args.docs.is_dir():
        print(f"{args.docs}: no such folder; pass --docs DIR", file=sys.stderr)
        return 2
    lines = args.cases.read_text(encoding="utf-8").splitlines()
    cases = [json.loads(line) for line in lines if line.strip()]
    with Engine.open(args.bundle) as engine:
        result = run_cases(engine, cases)
        if args.docs is not None:
            result.update(run_docs(engine, args.docs))
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print("\n".join(_rows(result)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
