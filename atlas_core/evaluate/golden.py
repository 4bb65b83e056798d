"""Golden files: JSON Lines of cases, each a query or an identifier with the files that answer it.

    {"id": "q1", "query": "how do I add an asset", "expected_files": ["rest-core/assets-api.md"]}
    {"identifier": "findAssets", "expected_file": "rest-core/assets-api.md"}

Other keys are ignored except "class" or "category", which name the case's group for the
per-group tables; "split" (train, dev, test, ...), which names the frozen part of the set the case
belongs to, for the per-split figures and `--split`; and "primary" on an identifier case, the one
page hover should show first, for primary@1. A bad line is refused naming the file and line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from atlas_core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class GoldenCase:
    id: str
    text: str  # the query or the identifier
    expected: tuple[str, ...]
    kind: str  # "query" | "identifier"
    line: int = 0
    # What the case tests, for a per-group table: the line's "class" (identifier classes such as
    # path, parameter, type) or "category" (question kinds); the kind when it names neither.
    group: str = ""
    split: str = ""  # the frozen part of the set ("train", "dev", "test"); "" when unsplit
    primary: str = ""  # the page an identifier's first result should be; "" when not judged


_SPLIT_NAME = re.compile(r"[a-z][a-z0-9_-]{0,19}")


def load_golden(path: str | Path) -> list[GoldenCase]:
    """Read a golden file; a bad line is a ConfigError naming the file and line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ConfigError(
            f"golden file {path} does not exist", hint="pass --golden FILE (JSON Lines)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read golden file {path}: {exc}", path=str(path)) from exc
    cases: list[GoldenCase] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise ConfigError(f"{where}: not JSON ({exc})", path=str(path)) from exc
        if not isinstance(obj, dict):
            raise ConfigError(f"{where}: each line must be a JSON object", path=str(path))
        if isinstance(obj.get("query"), str) and obj["query"].strip():
            expected = obj.get("expected_files")
            if isinstance(expected, str):
                expected = [expected]
            kind, text = "query", obj["query"]
        elif isinstance(obj.get("identifier"), str) and obj["identifier"].strip():
            expected = obj.get("expected_file", obj.get("expected_files"))
            if isinstance(expected, str):
                expected = [expected]
            kind, text = "identifier", obj["identifier"]
        else:
            raise ConfigError(
                f'{where}: a case needs a non-empty "query" or "identifier"',
                hint='e.g. {"id": "q1", "query": "...", "expected_files": ["a/b.md"]}',
                path=str(path),
            )
        if (
            not isinstance(expected, list)
            or not expected
            or not all(isinstance(e, str) and e for e in expected)
        ):
            raise ConfigError(
                f"{where}: expected_files (or expected_file) must name at least one file",
                path=str(path),
            )
        case_id = str(obj.get("id") or f"line{number}")
        group = obj.get("class") or obj.get("category") or ""
        group = group.strip()[:40] if isinstance(group, str) else ""
        split = obj.get("split", "")
        if not isinstance(split, str) or (split and not _SPLIT_NAME.fullmatch(split)):
            raise ConfigError(
                f'{where}: "split" must be a short lower-case name such as train, dev or test',
                path=str(path),
            )
        primary = obj.get("primary", "")
        if not isinstance(primary, str) or (primary and primary not in expected):
            raise ConfigError(
                f'{where}: "primary" must be one of the case\'s expected files',
                path=str(path),
            )
        cases.append(
            GoldenCase(case_id, text, tuple(expected), kind, number, group, split, primary)
        )
    if not cases:
        raise ConfigError(f"golden file {path} holds no cases", path=str(path))
    return cases


def select_split(cases: list[GoldenCase], split: str) -> list[GoldenCase]:
    """Only the cases of one split; a ConfigError naming the splits the set has when none match."""
    chosen = [case for case in cases if case.split == split]
    if not chosen:
        present = sorted({case.split for case in cases if case.split})
        raise ConfigError(
            f"no case of the golden set is in split {split!r}",
            hint=f"its splits: {', '.join(present)}" if present else 'no line carries "split"',
        )
    return chosen
