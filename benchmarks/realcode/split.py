"""Draw (or check) the frozen dev/test split of the real client files, by origin.

    uv run python benchmarks/realcode/split.py [--write] [--clients ../shared/real-clients]

Every file of one origin (a repository or a package) falls in the same split, so no test file
shares an author's habits with a dev file. Origins are grouped by their main language family
(python, javascript: JS/TS/HTML/CoffeeScript, jvm: Java/Groovy/BPMN, other: shell, PowerShell,
Go, Ansible, Ballerina, markdown) and, within each family, ordered by the SHA-256 of
``SALT + origin``; every third origin from the first (positions 0, 3, 6, ...) is test. The salt is
fixed: the split was drawn once, before any reader was changed, and `split.json` keeps it. Without
``--write`` the script recomputes the split and fails if `split.json` differs.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_CLIENTS = ROOT.parent / "shared" / "real-clients"
SALT = "atlas-realcode-split-2026-12-06:"
FAMILY = {
    "Python": "python",
    "JavaScript": "javascript",
    "TypeScript": "javascript",
    "HTML/JavaScript": "javascript",
    "CoffeeScript": "javascript",
    "Java": "jvm",
    "Groovy": "jvm",
    "BPMN/Groovy": "jvm",
}


def draw(clients: Path) -> dict[str, object]:
    with (clients / "SOURCES.tsv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    languages: dict[str, list[str]] = defaultdict(list)
    files: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        languages[row["origin"]].append(row["language"])
        files[row["origin"]].append(row["local_file"])
    families: dict[str, list[str]] = defaultdict(list)
    for origin, langs in languages.items():
        main = max(set(langs), key=lambda lang: (langs.count(lang), lang))
        families[FAMILY.get(main, "other")].append(origin)
    split: dict[str, str] = {}
    for members in families.values():
        ranked = sorted(members, key=lambda o: hashlib.sha256((SALT + o).encode()).hexdigest())
        for index, origin in enumerate(ranked):
            split[origin] = "test" if index % 3 == 0 else "dev"
    return {
        "method": "by origin; within language family, sha256(salt + origin) order, every third "
        "from the first is test",
        "salt": SALT,
        "origins": {o: split[o] for o in sorted(split)},
        "files": {f: split[o] for o in sorted(files) for f in sorted(files[o])},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=Path, default=DEFAULT_CLIENTS)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    drawn = draw(args.clients)
    target = HERE / "split.json"
    if args.write:
        target.write_text(json.dumps(drawn, indent=1) + "\n", encoding="utf-8")
    elif json.loads(target.read_text(encoding="utf-8")) != drawn:
        print("split.json differs from the drawn split", file=sys.stderr)
        return 1
    counts = defaultdict(int)
    for s in drawn["files"].values():  # type: ignore[union-attr]
        counts[s] += 1
    print(json.dumps(dict(counts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
