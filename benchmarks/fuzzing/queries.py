"""Class `queries`: seeded junk for `Engine.search` (every mode), `lookup`, `symbols`,
`endpoints` and `chunk` on the base bundle, in one engine kept open across cases.

Clean: an answer whose shape holds (ranks 1..n, at most the limit, every hit's chunk readable,
confidences in [0, 1]) or a QueryError with a one-line message. Failure: any other exception,
a malformed answer, or a hang.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from benchmarks.fuzzing import junk
from benchmarks.fuzzing.core import Verdict, case_rng, clip, describe, one_line_error

CLASS = "queries"
DEFAULT_CASES = 300
TIMEOUT_S = 30.0
MODES = ["keyword", "vector", "hybrid"]
ODD_MODES: list[Any] = ["KEYWORD", "", "hybrid\x00", "dense", None, 5]
COUNTS: list[Any] = [1, 3, 10, 50, 10**4, 0, -1, -(2**63), 2**63, True, 1.5, "10", None]
MIN_SCORES = [0.0, 0.0, 0.5, -1.0, 1e308, float("nan"), float("inf"), -float("inf")]


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    op = rng.choice(["search", "search", "search", "lookup", "symbols", "endpoints", "chunk"])
    spec: dict[str, Any] = {"op": op, "text": junk.text(rng, long=0.15)}
    if rng.random() < 0.2:
        spec["limit"] = rng.choice(COUNTS)
    if op == "search":
        spec["mode"] = rng.choice(MODES) if rng.random() < 0.9 else rng.choice(ODD_MODES)
        if rng.random() < 0.3:
            spec["filters"] = {
                "publication": rng.choice([None, "rest-core", junk.text(rng, long=0)]),
                "section": rng.choice([None, "rest-core/", junk.text(rng, long=0)]),
                "code_only": rng.random() < 0.3,
                "min_score": rng.choice(MIN_SCORES),
            }
    label = f"{op}({clip(repr(spec['text']), 60)}" + (
        f", mode={spec.get('mode')!r}" if op == "search" else ""
    )
    if "limit" in spec:
        label += f", limit={spec['limit']!r}"
    spec["label"] = label + (", filters" if "filters" in spec else "") + ")"
    return spec


def check_answer(engine: Any, spec: dict[str, Any], answer: Any) -> str | None:
    """Why an answer is malformed, or None."""
    if spec["op"] == "chunk":
        return None if answer is None or getattr(answer, "chunk_id", None) else f"chunk {answer!r}"
    if not isinstance(answer, list):
        return f"answered a {type(answer).__name__}, not a list"
    limit = spec.get("limit", 10 if spec["op"] != "symbols" else 50)
    if isinstance(limit, int) and not isinstance(limit, bool) and len(answer) > max(limit, 1):
        return f"{len(answer)} results for a limit of {limit}"
    if spec["op"] == "search":
        if [hit.rank for hit in answer] != list(range(1, len(answer) + 1)):
            return "ranks are not 1..n"
        for hit in answer:
            if engine.chunk(hit.chunk_id) is None:
                return f"hit {hit.chunk_id!r} names no chunk"
            if not math.isfinite(hit.score):
                return f"hit {hit.chunk_id!r} has score {hit.score}"
    if spec["op"] == "lookup":
        for candidate in answer:
            if not 0.0 <= candidate.confidence <= 1.0:
                return f"confidence {candidate.confidence} outside [0, 1]"
    return None


class Target:
    def __init__(self, setup: dict[str, Any]) -> None:
        from atlas_core.engine import Engine

        self.engine = Engine.open(Path(setup["bundle"]))

    def call(self, spec: dict[str, Any]) -> Any:
        from atlas_core.types import SearchFilters

        engine, text, op = self.engine, spec["text"], spec["op"]
        extra = {"limit": spec["limit"]} if "limit" in spec else {}
        if op == "search":
            filters = SearchFilters(**spec["filters"]) if "filters" in spec else None
            top_k = {"top_k": spec["limit"]} if "limit" in spec else {}
            return engine.search(text, mode=spec["mode"], filters=filters, **top_k)
        if op == "lookup":
            return engine.lookup(text, **extra)
        if op == "symbols":
            return engine.symbols(text, **extra)
        if op == "endpoints":
            return engine.endpoints(text, **extra)
        return engine.chunk(text)

    def run(self, spec: dict[str, Any]) -> Verdict:
        from atlas_core.errors import QueryError

        try:
            answer = self.call(spec)
        except QueryError as exc:
            why = one_line_error(exc)
            return Verdict.failure(f"refused with {why}") if why else Verdict.refused(exc.message)
        except Exception as exc:
            return Verdict.failure(describe(exc))
        problem = check_answer(self.engine, spec, answer)
        return Verdict.failure(problem) if problem else Verdict.accepted()

    def close(self) -> None:
        self.engine.close()
