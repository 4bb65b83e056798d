"""How the API checks do on real client code: calls recognised and diagnostics right, against the
hand labels of `benchmarks/realcode/labels/` (method: `benchmarks/realcode/LABELS.md`).

    uv run python benchmarks/real_clients.py --bundle DIR [--split dev|test|all] [--json]
        [--clients ../shared/real-clients] [--misses]
    uv run python benchmarks/real_clients.py --bundle DIR --set extra [--clients DIR] [--misses]

`--set extra` scores the extra development set: more public client code, labelled the same way
(`benchmarks/realcode/extra/`, origins and commits in its `sources-*.tsv`), whose files are not
shipped with the project; fetch them to ``--clients`` (default ``/work/extra-clients``) first.
It is development material only: every file counts as dev.

The files are third-party code in ``../shared/real-clients/files/``; the project keeps only the
labels. Each labelled file of the split is read as an editor would send it (the label's
language id) and gets what the language server computes for it:

  calls        every call site `scan_calls` reads (what `Engine.check_code` checks), each
               resolved to an operation through `Engine.resolve_call`. A labelled documented call
               is recognised when a read call on its `line` or `call_line` (or a line between
               them) resolves to the labelled method and path template. Documented calls whose
               endpoint the file does not write (`endpoint_in_file: false`: a path from a
               config file) are counted apart, not in the rate.
  diagnostics  `Engine.check_code` findings plus the deprecated-term findings the editor shows
               (`Engine.deprecated_terms`). One is right when a labelled mistake sits on its line
               and it is the first diagnostic to claim that mistake; every other diagnostic is
               wrong (a second one for the same mistake too: the editor would show it twice).
               Hints (a deprecated parameter that still works, struck through as editors show
               deprecated names, not listed as a problem) are counted apart: `hints`, and
               `hints_on_mistakes` for those on a labelled mistake's line.

Reported overall, per language and per call shape (the label's `shape`, `+helper` kept):
recognised / documented calls, diagnostic precision = right / shown, mistakes found / labelled,
and diagnostics on calls the bundle does not document (any is wrong). The split is the frozen
one of `benchmarks/realcode/split.json`: tune on dev, report test beside it, never read test
misses while tuning.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.engine import Engine, find_terms  # noqa: E402
from atlas_core.identifiers.spelling import path_key  # noqa: E402
from atlas_core.recognize import ENDPOINT, scan_calls  # noqa: E402
from atlas_core.syntax import line_starts  # noqa: E402

BASES = ("/rest/2.0",)  # the base paths the bundled specs declare
REALCODE = ROOT / "benchmarks" / "realcode"
DEFAULT_CLIENTS = ROOT.parent / "shared" / "real-clients"
EXTRA_CLIENTS = Path("/work/extra-clients")


@dataclass
class Tally:
    documented: int = 0
    recognised: int = 0
    shown: int = 0
    right: int = 0
    mistakes: int = 0
    found: int = 0
    on_undocumented: int = 0
    hints: int = 0  # struck-through deprecation hints, not problems: not in `shown`
    hints_on_mistakes: int = 0
    not_in_file: int = 0  # documented calls whose endpoint the file does not write
    errors: int = 0  # files the readers or checks failed on (each counts its calls as missed)

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def figures(self) -> dict[str, Any]:
        return {
            "documented_calls": self.documented,
            "recognised": self.recognised,
            "recognised_rate": _rate(self.recognised, self.documented),
            "diagnostics": self.shown,
            "right": self.right,
            "precision": _rate(self.right, self.shown),
            "mistakes": self.mistakes,
            "mistakes_found": self.found,
            "diagnostics_on_undocumented": self.on_undocumented,
            "hints": self.hints,
            "hints_on_mistakes": self.hints_on_mistakes,
            "documented_not_in_file": self.not_in_file,
            "errors": self.errors,
        }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


@dataclass
class FileResult:
    file: str
    language: str
    tally: Tally = field(default_factory=Tally)
    by_shape: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    missed: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    unfound: list[str] = field(default_factory=list)  # labelled mistakes no diagnostic claimed


def same_path(resolved: str, labelled: str) -> bool:
    """Whether an operation's path (relative to its spec's base) is the labelled template (with
    the base, as the code sends it)."""
    have, want = path_key(resolved), path_key(labelled)
    return have == want or any(want == path_key(base) + have for base in BASES)


def read_calls(engine: Engine, text: str, language: str) -> list[tuple[int, str, str]]:
    """(1-based line, method, path template) of every call the document scan reads and the
    engine resolves to an operation."""
    seen = []
    for item in scan_calls(text, language):
        site = item.site
        if site.role != ENDPOINT and not site.operation:
            continue
        target = engine.resolve_call(site, define=False)
        if target is not None and target.method and target.path:
            seen.append((item.line + 1, target.method.upper(), target.path))
    return seen


def diagnostics(engine: Engine, text: str, language: str) -> list[tuple[int, str, str, str]]:
    """(1-based line, code, message, severity) of what the editor shows for the document."""
    out = [(f.line + 1, f.check, f.message, f.severity) for f in engine.check_code(text, language)]
    matcher = engine.deprecated_terms()
    if matcher:
        starts = line_starts(text)
        # As the editor finds them: in code, a deprecated word only as a name of a call.
        for term in find_terms(matcher, text, language):
            line = bisect.bisect_right(starts, term.start)
            out.append((line, "deprecated", f"'{term.text}' is deprecated", "information"))
    return sorted(out)


def score_file(engine: Engine, label: dict[str, Any], text: str) -> FileResult:
    language = label["language"]
    result = FileResult(label["file"], language)
    try:
        seen = read_calls(engine, text, language)
        shown = diagnostics(engine, text, language)
    except Exception as exc:  # a reader or check failing is a miss, counted in `errors`
        seen, shown = [], []
        result.tally.errors += 1
        result.wrong.append(f"error: {type(exc).__name__}: {exc}")
    for call in label.get("calls", []):
        if not call.get("documented"):
            continue
        if not call.get("endpoint_in_file", True):
            result.tally.not_in_file += 1
            continue
        lines = sorted({call["line"], call.get("call_line", call["line"])})
        span = range(lines[0], lines[-1] + 1)
        hit = any(
            line in span and method == call["method"] and same_path(path, call["path"])
            for line, method, path in seen
        )
        tally = result.by_shape[call.get("shape", "?")]
        for t in (result.tally, tally):
            t.documented += 1
            t.recognised += hit
        if not hit:
            result.missed.append(
                f"{call['line']}: {call['method']} {call['path']} ({call['shape']})"
            )
    mistakes = list(label.get("mistakes", []))
    claimed: set[int] = set()
    undocumented = {
        line
        for c in label.get("calls", [])
        if not c.get("documented")
        for line in (c["line"], c.get("call_line", c["line"]))
    }
    result.tally.mistakes = len(mistakes)
    for line, code, message, severity in shown:
        if severity == "hint":
            result.tally.hints += 1
            result.tally.hints_on_mistakes += any(m["line"] == line for m in mistakes)
            continue
        result.tally.shown += 1
        match = next(
            (i for i, m in enumerate(mistakes) if i not in claimed and m["line"] == line), None
        )
        if match is not None:
            claimed.add(match)
            result.tally.right += 1
            continue
        result.tally.on_undocumented += line in undocumented
        result.wrong.append(f"{line}: [{code}] {message}")
    result.tally.found = len(claimed)
    result.unfound = [
        f"{m['line']}: {m.get('kind', '?')} {m.get('name', '')}".rstrip()
        for i, m in enumerate(mistakes)
        if i not in claimed
    ]
    return result


def load_labels(split: str, labels: Path = REALCODE / "labels") -> Iterable[dict[str, Any]]:
    """The labels of one split of the frozen set, or every label of `labels` when it is another
    set (the extra development set has no split)."""
    frozen = labels == REALCODE / "labels"
    chosen = json.loads((REALCODE / "split.json").read_text(encoding="utf-8"))["files"]
    for path in sorted(labels.glob("*.json")):
        label = json.loads(path.read_text(encoding="utf-8"))
        if not frozen or split == "all" or chosen.get(label["file"]) == split:
            yield label


def evaluate(
    engine: Engine, clients: Path, split: str, labels: Path = REALCODE / "labels"
) -> tuple[dict[str, Any], list[FileResult]]:
    results = []
    for label in load_labels(split, labels):
        file = clients / "files" / label["file"]
        if not file.is_file():
            print(f"skipped {label['file']}: not in {clients / 'files'}", file=sys.stderr)
            continue
        text = file.read_text(encoding="utf-8", errors="replace")
        results.append(score_file(engine, label, text))
    overall = Tally()
    by_language: dict[str, Tally] = defaultdict(Tally)
    by_shape: dict[str, Tally] = defaultdict(Tally)
    for r in results:
        overall.add(r.tally)
        by_language[r.language].add(r.tally)
        for shape, t in r.by_shape.items():
            by_shape[shape].add(t)
    report = {
        "split": split,
        "files": len(results),
        "overall": overall.figures(),
        "by_language": {k: v.figures() for k, v in sorted(by_language.items())},
        "by_shape": {
            k: {"documented_calls": v.documented, "recognised": v.recognised}
            for k, v in sorted(by_shape.items())
        },
    }
    return report, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--set", choices=("realcode", "extra"), default="realcode")
    parser.add_argument("--clients", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--misses",
        action="store_true",
        help="list missed calls, wrong diagnostics, mistakes not found",
    )
    args = parser.parse_args()
    if args.split == "test" and args.misses:
        parser.error("the test split's misses are not shown: tune on dev")
    extra = args.set == "extra"
    clients = args.clients or (EXTRA_CLIENTS if extra else DEFAULT_CLIENTS)
    labels = REALCODE / "extra" / "labels" if extra else REALCODE / "labels"
    split = "extra" if extra else args.split
    with Engine.open(args.bundle) as engine:
        report, results = evaluate(engine, clients, split, labels)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        o = report["overall"]
        print(
            f"{report['split']}: {report['files']} files; recognised {o['recognised']}/"
            f"{o['documented_calls']} ({o['recognised_rate']}); diagnostics {o['diagnostics']}, "
            f"right {o['right']} (precision {o['precision']}); mistakes found "
            f"{o['mistakes_found']}/{o['mistakes']}; on undocumented calls "
            f"{o['diagnostics_on_undocumented']}; deprecation hints {o['hints']} "
            f"({o['hints_on_mistakes']} on a labelled mistake)"
        )
        for name, f in report["by_language"].items():
            print(
                f"  {name:12} recognised {f['recognised']}/{f['documented_calls']}  "
                f"precision {f['right']}/{f['diagnostics']}"
            )
        for name, f in report["by_shape"].items():
            print(f"  shape {name:28} {f['recognised']}/{f['documented_calls']}")
    if args.misses:
        for r in results:
            if r.missed or r.wrong or r.unfound:
                print(f"\n{r.file}")
                for m in r.missed:
                    print(f"  missed {m}")
                for w in r.wrong:
                    print(f"  wrong  {w}")
                for u in r.unfound:
                    print(f"  unfound mistake {u}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
