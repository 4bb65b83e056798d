"""Class `sources`: hostile source folders for `atlas_core.build.build_bundle` with `--model hash`.

Each case is a source (a local folder, a crawled mirror, a git repository or an OpenAPI file)
holding one honest page and a few hostile ingredients: links that leave the root (files, folders,
chains, loops), YAML alias bombs, recursive aliases, deep nesting and `!!python` tags in front
matter, heading floods, file names and contents that are not UTF-8, NUL bytes, huge lines,
GitBook markup that was quadratic to clean, and OpenAPI specs nested thousands deep, with `$ref`
cycles and chains, external `$ref`s and thousands of tags. Every link, external `$ref` and tag
that reaches outside points at the case's `outside/` folder, whose files hold a unique marker.

Clean: an AtlasError (SourceError, OpenAPIError, BuildError) with a one-line message and no
output folder, or a build whose bundle holds no trace of the marker and passes `verify_bundle`.
Failure: any other exception, the marker in the bundle, a `!!python` tag run, a bundle verify
refuses, or a hang past the per-case limit (a bomb or a quadratic pass).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from benchmarks.fuzzing.core import Verdict, case_rng, clip, describe, one_line_error
from benchmarks.fuzzing.source_trees import LINKS, MARKDOWN, MARKER, MIRROR_ONLY, OPENAPI, Source

CLASS = "sources"
DEFAULT_CASES = 100
TIMEOUT_S = 60.0


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    kind = rng.choice(["local", "local", "mirror", "git", "openapi", "openapi"])
    pool = (
        OPENAPI
        if kind == "openapi"
        else LINKS + MARKDOWN + (MIRROR_ONLY if kind == "mirror" else [])
    )
    # Each ingredient once: two of the same would write the same file twice.
    ingredients = list(dict.fromkeys(rng.choice(pool) for _ in range(rng.choice([1, 1, 2, 3]))))
    return {
        "label": f"{kind}: {', '.join(ingredients)}",
        "kind": kind,
        "ingredients": ingredients,
        "seed": rng.random(),
    }


# --- the case runner ----------------------------------------------------------------------------


def mentions(root: Path, text: str) -> list[str]:
    """Files under `root` holding `text`, raw or inside a decoded Parquet column."""
    import pyarrow.parquet as pq

    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        hit = text.encode() in path.read_bytes()
        if not hit and path.suffix == ".parquet":
            hit = text in json.dumps(pq.read_table(path).to_pylist(), default=str)
        if hit:
            found.append(str(path.relative_to(root)))
    return found


class Target:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.workdir = Path(setup["workdir"])
        self.has_git = shutil.which("git") is not None

    def run(self, spec: dict[str, Any]) -> Verdict:
        from atlas_core.build import build_bundle
        from atlas_core.bundle import verify_bundle
        from atlas_core.errors import AtlasError

        if spec["kind"] == "git" and not self.has_git:
            spec = {**spec, "kind": "local"}
        case = self.workdir / "case"
        shutil.rmtree(case, ignore_errors=True)
        case.mkdir(parents=True)
        source = Source(case, spec).write(spec["ingredients"])
        out = case / "bundle"
        try:
            build_bundle([source], out, model="hash", progress=False)
        except AtlasError as exc:
            verdict = Verdict.refused(exc.message)
            if why := one_line_error(exc):
                verdict = Verdict.failure(f"refused with {why}")
            elif out.exists():
                verdict = Verdict.failure(
                    f"refused ({clip(exc.message, 120)}) but left {out.name}/"
                )
        except Exception as exc:
            verdict = Verdict.failure(describe(exc))
        else:
            leaked = mentions(out, MARKER)
            problems = verify_bundle(out)
            if leaked:
                verdict = Verdict.failure(f"outside content reached the bundle: {leaked[:3]}")
            elif problems:
                verdict = Verdict.failure(
                    f"built a bundle verify refuses: {clip(problems[0], 200)}"
                )
            else:
                verdict = Verdict.accepted()
        if (case / "outside" / "pwned").exists():
            verdict = Verdict.failure("a !!python tag in YAML was run")
        shutil.rmtree(case, ignore_errors=True)
        return verdict
