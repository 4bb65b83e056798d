"""Every diagnostic the editor would show on a folder of files, one per line, for review by hand.

    uv run python benchmarks/realcode/review_diagnostics.py --bundle DIR FOLDER [--judged TSV]

Each file under FOLDER is read as an editor would send it (language from its name, as the code
walk names it; ``.html``/``.ps1``/``.bal`` by their own ids) and gets what the language server
computes for it: `Engine.check_code` plus the deprecated-term findings (`real_clients.diagnostics`),
less the deprecation hints (struck through, not listed as problems; counted at the end). Printed as tab-separated ``file, line, check, message``. With ``--judged`` (a TSV of ``file, line,
check, message, right|wrong, why`` from an earlier review), each diagnostic is matched to its
judgement by file, line and check, and the totals say how many judged right and wrong are still
shown, and how many were never judged. The folder is code written outside the project: nothing
of it is copied here.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from real_clients import diagnostics  # noqa: E402

from atlas_core.engine import Engine  # noqa: E402
from atlas_core.sources.code_walk import language_of  # noqa: E402

OTHER_LANGUAGES = {
    ".html": "html",
    ".htm": "html",
    ".ps1": "powershell",
    ".psm1": "powershell",
    ".bal": "ballerina",
    ".xml": "xml",
    ".bpmn": "xml",
    ".kt": "kotlin",
    ".rb": "ruby",
    ".cs": "csharp",
}
MAX_BYTES = 2_000_000


def language(path: Path) -> str:
    return OTHER_LANGUAGES.get(path.suffix.lower()) or language_of(path.name)


def review(engine: Engine, folder: Path) -> tuple[list[tuple[str, int, str, str]], int]:
    """The problems shown, and how many deprecation hints (struck through, not listed)."""
    shown, hints = [], 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.stat().st_size > MAX_BYTES or path.suffix.lower() in (".tsv",):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = str(path.relative_to(folder))
        for line, check, message, severity in diagnostics(engine, text, language(path)):
            if severity == "hint":
                hints += 1
                continue
            shown.append((rel, line, check, " ".join(message.split())))
    return shown, hints


def read_judged(path: Path) -> dict[tuple[str, int, str], str]:
    judged: dict[tuple[str, int, str], str] = {}
    with path.open(encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t"):
            if len(row) >= 5 and row[1].isdigit():
                judged[(row[0], int(row[1]), row[2])] = row[4]
    return judged


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bundle", required=True, type=Path)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--judged", type=Path, help="earlier judgements (file, line, check, ...)")
    args = parser.parse_args()
    with Engine.open(args.bundle) as engine:
        shown, hints = review(engine, args.folder)
    judged = read_judged(args.judged) if args.judged else {}
    tally: Counter[str] = Counter()
    for rel, line, check, message in shown:
        verdict = judged.get((rel, line, check), "unjudged") if args.judged else ""
        tally[verdict] += 1
        print("\t".join([rel, str(line), check, message] + ([verdict] if verdict else [])))
    print(f"# {len(shown)} diagnostics; {hints} deprecation hints not listed", file=sys.stderr)
    if args.judged:
        gone = Counter(v for k, v in judged.items() if k not in {s[:3] for s in shown})
        print(
            f"# shown: {dict(tally)}; judged but no longer shown: {dict(gone)}",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
