"""A saved run of `atlas evaluate`: what `--save` writes and `--compare` reads back.

A run is the JSON object `atlas evaluate --json` prints: one key per mode, each with its cases (id,
group, query, expected files, first relevant rank and the four per-case figures), plus "compare"
when that run was itself a comparison (ignored on reading). A run saved before per-case figures
existed has them estimated from the first relevant rank, which is exact for a case with one
expected file. Anything else is refused with a ConfigError naming the file and the case.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas_core.errors import ConfigError
from atlas_core.evaluate.metrics import METRICS
from atlas_core.types import SEARCH_MODES

MAX_RUN_BYTES = 64 * 1024 * 1024  # far above any golden set; a larger file is not a run
MAX_GROUP_CHARS = 40  # as `load_golden` caps the current run's
RUN_HINT = "pass a file that `atlas evaluate --json` printed or `atlas evaluate --save` wrote"


@dataclass(frozen=True, slots=True)
class RunCase:
    id: str
    occurrence: int  # 0 for the first case with this id, 1 for the second, ...
    group: str
    query: str
    expected: tuple[str, ...]
    rank: int | None
    metrics: Mapping[str, float]
    estimated: bool  # metrics derived from the rank: the run predates per-case figures


@dataclass(frozen=True, slots=True)
class Run:
    source: str
    modes: Mapping[str, tuple[RunCase, ...]]
    top_k: Mapping[str, int]
    # the run's own figures per mode: "all" and each group, where the file gives them whole
    figures: Mapping[str, Mapping[str, Mapping[str, float]]] = field(default_factory=dict)


def load_run(path: str | Path) -> Run:
    """Read a saved run; anything that is not one is a ConfigError naming the file."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_RUN_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"compare file {path} does not exist", hint=RUN_HINT) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot read compare file {path}: {exc.strerror or exc}", hint=RUN_HINT
        ) from exc
    if len(raw) > MAX_RUN_BYTES:
        raise ConfigError(
            f"compare file {path} is over {MAX_RUN_BYTES // 2**20} MiB, too large for a run",
            hint=RUN_HINT,
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"compare file {path} is not UTF-8 text", hint=RUN_HINT) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"compare file {path} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            hint=RUN_HINT,
        ) from None
    return parse_run(data, str(path))


def parse_run(data: object, source: str) -> Run:
    """Check the shape of a run read from `source` and keep what a comparison needs."""
    if not isinstance(data, dict):
        raise _bad_run(source, f"holds a JSON {type(data).__name__}, not an evaluation run")
    modes: dict[str, tuple[RunCase, ...]] = {}
    top_k: dict[str, int] = {}
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for mode in SEARCH_MODES:
        report = data.get(mode)
        if report is None:
            continue
        if not isinstance(report, dict) or not isinstance(report.get("cases"), list):
            raise _bad_run(source, f'mode {mode!r} needs an object with a "cases" list')
        k = report.get("top_k", 10)
        top_k[mode] = k if isinstance(k, int) and not isinstance(k, bool) else 10
        figures[mode] = _run_figures(report)
        seen: dict[str, int] = {}
        modes[mode] = tuple(
            _parse_case(item, seen, f"{mode} case {number}", source)
            for number, item in enumerate(report["cases"], start=1)
        )
    if not modes:
        raise _bad_run(source, f"holds no evaluation run (no {', '.join(SEARCH_MODES)} key)")
    return Run(source, modes, top_k, figures)


def _run_figures(report: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """The summary and per-group figures a run printed, those that hold all four metrics."""
    found: dict[str, dict[str, float]] = {}
    by_group = report.get("by_group")
    rows = [("all", report)]
    if isinstance(by_group, dict):
        rows += [(str(name)[:MAX_GROUP_CHARS], row) for name, row in by_group.items()]
    for name, row in rows:
        if isinstance(row, dict) and all(_is_fraction(row.get(m)) for m in METRICS):
            found[name] = {m: float(row[m]) for m in METRICS}
    return found


def _is_fraction(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1


def _bad_run(source: str, what: str) -> ConfigError:
    return ConfigError(f"compare file {source}: {what}", hint=RUN_HINT, path=source)


def _parse_case(item: object, seen: dict[str, int], where: str, source: str) -> RunCase:
    if not isinstance(item, dict):
        raise _bad_run(source, f"{where} is not an object")
    case_id = item.get("id")
    if not isinstance(case_id, str) or not case_id:
        raise _bad_run(source, f'{where} needs a non-empty "id"')
    rank = item.get("rank")
    if rank is not None and (not isinstance(rank, int) or isinstance(rank, bool) or rank < 1):
        raise _bad_run(source, f'{where}: "rank" must be a whole number from 1, or null')
    expected = item.get("expected", [])
    if not isinstance(expected, list) or not all(isinstance(e, str) for e in expected):
        raise _bad_run(source, f'{where}: "expected" must be a list of file names')
    metrics = item.get("metrics")
    estimated = metrics is None
    if metrics is None:
        if not expected:
            raise _bad_run(source, f'{where} needs "metrics" or "expected" files')
        metrics = _metrics_from_rank(rank, len(expected))
    elif not isinstance(metrics, dict) or not all(_is_fraction(metrics.get(m)) for m in METRICS):
        raise _bad_run(source, f'{where}: "metrics" must give {", ".join(METRICS)} from 0 to 1')
    group = item.get("group") or item.get("kind") or ""
    query = item.get("query")
    occurrence = seen.get(case_id, 0)
    seen[case_id] = occurrence + 1
    return RunCase(
        id=case_id,
        occurrence=occurrence,
        group=group[:MAX_GROUP_CHARS] if isinstance(group, str) else "",
        query=query if isinstance(query, str) else "",
        expected=tuple(expected),
        rank=rank,
        metrics={m: float(metrics[m]) for m in METRICS},
        estimated=estimated,
    )


def _metrics_from_rank(rank: int | None, expected: int) -> dict[str, float]:
    """A case's figures as if its first relevant file were the only one found (exact for one)."""
    if rank is None:
        return dict.fromkeys(METRICS, 0.0)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(expected, 10) + 1))
    return {
        "mrr@10": 1.0 / rank if rank <= 10 else 0.0,
        "recall@5": (1.0 if rank <= 5 else 0.0) / expected,
        "hit@1": 1.0 if rank == 1 else 0.0,
        "ndcg@10": (1.0 / math.log2(rank + 1) if rank <= 10 else 0.0) / ideal,
    }


def save_run(path: str | Path, data: Mapping[str, Any]) -> None:
    """Write a run as `--json` prints it; a temporary file renamed into place, so a failed write
    never leaves half a run to compare against."""
    path = Path(path)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or Path("."))
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConfigError(
            f"cannot write {path}: {exc.strerror or exc}", hint="choose a writable --save path"
        ) from exc
