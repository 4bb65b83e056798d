"""Draw the pages the held-out question set is written from, and the split each falls in.

    uv run python benchmarks/questions/sample_pages.py [--docs ../shared/collibra-docs/markdown]
        [--write]

Method (fixed before any question was written or any ranking changed):
- Every markdown page of the docs mirror is put in a stratum: its publication (the top folder:
  rest-core, import-api, tutorials, ...) and its kind (`index` when the file name says readme,
  index or overview, `reference` for API and model reference pages, `guide` otherwise).
- Within a stratum pages are ordered by SHA-256 of ``SALT + path`` and the first
  ``max(1, round(0.6 * n))`` are taken; the third-party client's generated model pages
  (rest-core-models, 216 pages of one template) are capped at 50.
- Each page's split is decided by SHA-256 of ``SPLIT_SALT + path``: 2 in 10 test, 2 in 10 dev, the
  rest train. Questions inherit their source page's split, so no test question shares a page with
  a tuned one.
- Writers: page i goes to writer ``i % 3`` (A, B, C).
Without ``--write`` the draw is recomputed and compared with `pages.json`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DOCS = HERE.parent.parent.parent / "shared" / "collibra-docs" / "markdown"
SALT = "atlas-questions-pages-2026-12-06:"
SPLIT_SALT = "atlas-questions-split-2026-12-06:"
FRACTION = 0.6
CAPS = {("rest-core-models", "reference"): 50}
REFERENCE = frozenset({"rest-core", "rest-core-models", "api"})


def kind_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    if any(word in name for word in ("readme", "index", "overview")):
        return "index"
    return "reference" if path.split("/", 1)[0] in REFERENCE else "guide"


def split_of(path: str) -> str:
    bucket = int(hashlib.sha256((SPLIT_SALT + path).encode()).hexdigest(), 16) % 10
    return "test" if bucket < 2 else "dev" if bucket < 4 else "train"


def draw(docs: Path) -> dict[str, object]:
    pages = sorted(str(p.relative_to(docs)) for p in docs.rglob("*.md"))
    strata: dict[tuple[str, str], list[str]] = defaultdict(list)
    for page in pages:
        strata[(page.split("/", 1)[0] if "/" in page else "", kind_of(page))].append(page)
    chosen: list[str] = []
    for key in sorted(strata):
        members = sorted(strata[key], key=lambda p: hashlib.sha256((SALT + p).encode()).hexdigest())
        take = min(len(members), max(1, round(FRACTION * len(members))), CAPS.get(key, 10**6))
        chosen += members[:take]
    chosen.sort()
    return {
        "method": "see sample_pages.py",
        "pages": [
            {
                "page": page,
                "publication": page.split("/", 1)[0],
                "kind": kind_of(page),
                "split": split_of(page),
                "writer": "ABC"[index % 3],
            }
            for index, page in enumerate(chosen)
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    drawn = draw(args.docs)
    target = HERE / "pages.json"
    if args.write:
        target.write_text(json.dumps(drawn, indent=1) + "\n", encoding="utf-8")
    elif json.loads(target.read_text(encoding="utf-8")) != drawn:
        print("pages.json differs from the drawn sample", file=sys.stderr)
        return 1
    counts: dict[str, int] = defaultdict(int)
    for p in drawn["pages"]:  # type: ignore[union-attr]
        counts[p["split"]] += 1  # type: ignore[index]
        counts[p["kind"]] += 1  # type: ignore[index]
    print(len(drawn["pages"]), dict(counts))  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
