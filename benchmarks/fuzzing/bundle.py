"""Class `bundle`: copies of the base bundle with seeded damage, against `verify_bundle` and an
engine opened on them without verifying (what a server does on start).

Damage is plain (bytes flipped, a file cut short, emptied or deleted) or *resealed*: a value is
edited and the file's SHA-256, size, dtype and shape are written back into manifest.json, so the
hashes pass and only structure can tell. Resealed edits put out-of-range, negative or reordered
indices into `.npy` arrays, change their dtype or shape, put bad UTF-8 or shuffled lines into text
files, give JSON files values of the wrong shape, edit or drop Parquet columns, put absurd numbers
and unsafe names into the manifest, and swap a mirror page for a link to a file outside.

Clean: verify reports the damage (a line naming a file), or every engine request answers or
raises an AtlasError (BundleError, QueryError, ModelError) with a one-line message. Failure: any
other exception from verify or a request (UnicodeDecodeError, IndexError, ValueError, KeyError,
JSONDecodeError, AttributeError, ...), or a hang.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.fuzzing.bundle_damage import PLAIN, RESEALED, Damage
from benchmarks.fuzzing.core import Verdict, case_rng, clip, describe, one_line_error

CLASS = "bundle"
DEFAULT_CASES = 300
TIMEOUT_S = 60.0


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    damages = []
    for _ in range(rng.choice([1, 1, 1, 2])):
        op = rng.choice(PLAIN) if rng.random() < 0.3 else rng.choice(RESEALED)
        damages.append({"op": op, "pick": rng.random(), "seed": rng.random()})
    return {"label": " + ".join(d["op"] for d in damages), "damages": damages}


# --- the case runner ----------------------------------------------------------------------------


def _requests(engine: Any) -> Iterator[tuple[str, Callable[[], object]]]:
    yield "keyword search", lambda: engine.search("find assets", mode="keyword")
    yield "hybrid search", lambda: engine.search("how do I find assets", mode="hybrid")
    yield "vector search", lambda: engine.search("workflow task forms", mode="vector")
    yield "lookup", lambda: engine.lookup("findAssets")
    yield "path lookup", lambda: engine.lookup("GET /rest/2.0/assets/{assetId}")
    yield "fuzzy lookup", lambda: engine.lookup("findAsets")
    yield "keyword lookup", lambda: engine.lookup("page of assets count")
    yield "symbols", lambda: engine.symbols("asset")
    yield "all symbols", lambda: engine.symbols("")
    yield "deprecations", engine.deprecations
    yield "endpoints", lambda: engine.endpoints("/assets")
    yield "get_chunk", lambda: _first_chunk(engine)
    yield "info", engine.info


def _first_chunk(engine: Any) -> object:
    hits = engine.search("assets", mode="keyword", top_k=1)
    return engine.chunk(hits[0].chunk_id) if hits else engine.chunk("0" * 16)


def serve(root: Path) -> tuple[list[str], str | None]:
    """What an engine opened on `root` refused (AtlasErrors, as 'request: message'), and the
    first failure (any other exception, or a refusal that is not one line), or None."""
    from atlas_core.engine import Engine
    from atlas_core.errors import AtlasError

    refused: list[str] = []
    try:
        engine = Engine.open(root)
    except AtlasError as exc:
        why = one_line_error(exc)
        return [f"open: {exc.message}"], f"open refused with {why}" if why else None
    except Exception as exc:
        return refused, f"open raised {describe(exc)}"
    with engine:
        for name, request in _requests(engine):
            try:
                request()
            except AtlasError as exc:
                if why := one_line_error(exc):
                    return refused, f"{name} refused with {why}"
                refused.append(f"{name}: {exc.message}")
            except Exception as exc:
                return refused, f"{name} raised {describe(exc)}"
    return refused, None


class Target:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.base = Path(setup["bundle"])
        self.workdir = Path(setup["workdir"])

    def run(self, spec: dict[str, Any]) -> Verdict:
        from atlas_core.bundle import verify_bundle

        case = self.workdir / "case"
        shutil.rmtree(case, ignore_errors=True)
        outside = case / "outside"
        outside.mkdir(parents=True)
        (outside / "secret.md").write_text("# Secret\n\nATLAS-FUZZ-OUTSIDE-SECRET\n")
        root = Path(shutil.copytree(self.base, case / "bundle"))
        damage = Damage(root, outside)
        done = "; ".join(damage.apply(d) for d in spec["damages"])
        try:
            problems = verify_bundle(root)
        except Exception as exc:
            return Verdict.failure(f"{done}: verify raised {describe(exc)}")
        # Each problem is one line that starts with the file it is about: "rel/path: what".
        if not all(isinstance(p, str) and ": " in p and "\n" not in p for p in problems):
            return Verdict.failure(f"{done}: verify reported {clip(repr(problems))}")
        refused, failure = serve(root)
        shutil.rmtree(case, ignore_errors=True)
        if failure:
            return Verdict.failure(f"{done}: {failure}")
        if problems:
            return Verdict.refused(f"{done}: verify: {clip(problems[0], 160)}")
        if refused:
            return Verdict.refused(f"{done}: engine: {clip(refused[0], 160)}")
        return Verdict.accepted(f"{done}: not detectable, every request answered")
