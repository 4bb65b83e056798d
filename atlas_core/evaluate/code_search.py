"""Code search on a real package: does cutting source files at definitions find the right function
more often than cutting them into fixed windows?

The set is a JSON file (``benchmarks/data/code_search_click.json``): a package pinned to one
version, and natural-language questions a developer would ask, each with the file and the
qualified name (``Context.invoke``) of the definition that answers it. The questions were written
from reading the package's source and documentation before any search was run, phrased as a user
would (the task, not the function's name, and not the docstring's words), spread over every module
(about one per 3-5 public functions, at most ~12 per file), and are never edited or dropped after
seeing results. Each expected line range is resolved with `ast` from the fetched source when the
run starts, never written down, so a renamed or moved definition (version drift) stops the run.

A run fetches that exact version from the package index with pip into a temporary folder, builds
two bundles of it with the same model (definition-aware chunks and the plain 6,000-character
windows with 800 characters of overlap), asks every question of each with the engine's default
hybrid search, top 10, and counts a result as a hit when it is the expected file and its line range
overlaps the expected definition's. `benchmarks/code_search.py` prints the figures.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas_core.errors import ConfigError, SourceError

CHUNKERS: tuple[str, ...] = ("definition", "window")
TOP_K = 10
FETCH_TIMEOUT_S = 300

# (file, line_start, line_end) of one search result, in rank order.
Located = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class CodeQuestion:
    id: str
    question: str
    file: str  # relative to the package's top folder, e.g. "click/core.py"
    symbol: str  # qualified name, e.g. "Context.invoke"
    line_start: int = 0  # resolved with ast; 0 until resolved
    line_end: int = 0


@dataclass(frozen=True, slots=True)
class CodeSearchSet:
    package: str
    version: str
    questions: tuple[CodeQuestion, ...]
    path: Path


def load_code_set(path: str | Path) -> CodeSearchSet:
    """Read a set file; a missing field, a duplicate id or a duplicate question is a ConfigError."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"code-search set {path} does not exist", path=str(path)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read code-search set {path}: {exc}", path=str(path)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise ConfigError(f"{path}: expected an object with a 'questions' list", path=str(path))
    package, version = data.get("package"), data.get("version")
    if not isinstance(package, str) or not isinstance(version, str) or not package or not version:
        raise ConfigError(f"{path}: 'package' and 'version' must be strings", path=str(path))
    questions: list[CodeQuestion] = []
    seen_ids: set[str] = set()
    seen_text: set[str] = set()
    for number, item in enumerate(data["questions"], start=1):
        fields = [item.get(k) if isinstance(item, dict) else None for k in _QUESTION_KEYS]
        if not all(isinstance(v, str) and v.strip() for v in fields):
            raise ConfigError(
                f"{path}: question {number} needs the strings {', '.join(_QUESTION_KEYS)}",
                path=str(path),
            )
        case_id, text, file, symbol = (str(v).strip() for v in fields)
        normalised = " ".join(text.lower().split())
        if case_id in seen_ids or normalised in seen_text:
            raise ConfigError(
                f"{path}: question {number} ({case_id}) repeats an earlier id or question",
                path=str(path),
            )
        seen_ids.add(case_id)
        seen_text.add(normalised)
        questions.append(CodeQuestion(case_id, text, file, symbol))
    return CodeSearchSet(package, version, tuple(questions), path)


_QUESTION_KEYS = ("id", "question", "file", "symbol")


# -- the expected definitions ----------------------------------------------------------------------


def definition_lines(source: str, qualname: str) -> tuple[int, int] | None:
    """The 1-based line range of ``qualname`` (``Class.method`` or ``function``) in ``source``,
    decorators included; None when it is not defined there.

    When a name is defined more than once in one body (typing overloads), the last definition is
    the implementation and is the one returned."""
    body: list[ast.stmt] = ast.parse(source).body
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None = None
    for part in qualname.split("."):
        named = [
            n
            for n in body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.name == part
        ]
        if not named:
            return None
        node = named[-1]
        body = node.body
    if node is None:
        return None
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return start, node.end_lineno or node.lineno


def resolve_questions(code_set: CodeSearchSet, package_dir: Path) -> list[CodeQuestion]:
    """Every question with its expected line range read from the fetched source. A file that is
    missing or a name that no longer resolves is a ConfigError: the pinned version drifted."""
    resolved: list[CodeQuestion] = []
    sources: dict[str, str] = {}
    for q in code_set.questions:
        where = f"{code_set.path}: {q.id}"
        if q.file not in sources:
            try:
                sources[q.file] = (package_dir / q.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"{where}: cannot read {q.file} in {code_set.package} {code_set.version}: "
                    f"{exc}",
                    hint="the set's file paths no longer match the package: check the version",
                ) from exc
        lines = definition_lines(sources[q.file], q.symbol)
        if lines is None:
            raise ConfigError(
                f"{where}: {q.symbol} is not defined in {q.file} of "
                f"{code_set.package} {code_set.version}",
                hint="the package changed (version drift): fix the set's version or the name",
            )
        resolved.append(
            CodeQuestion(q.id, q.question, q.file, q.symbol, line_start=lines[0], line_end=lines[1])
        )
    return resolved


# -- fetching the package --------------------------------------------------------------------------


# Wheels only (nothing to build), and fail fast without a network rather than retry for minutes.
_PIP_FLAGS = ("--no-deps", "--only-binary", ":all:", "--retries", "1", "--timeout", "30", "--quiet")


def _pip_commands() -> list[list[str]]:
    """pip as this interpreter's module, else the pip on PATH. A uv-made environment has no pip;
    any pip can download a pure-Python wheel with --no-deps, whichever Python it belongs to."""
    commands: list[list[str]] = []
    if importlib.util.find_spec("pip") is not None:
        commands.append([sys.executable, "-m", "pip"])
    for name in ("pip3", "pip"):
        found = shutil.which(name)
        if found:
            commands.append([found])
            break
    return commands


def _run(command: list[str]) -> str:
    """Run a fetch command; its last line of error output when it fails, "" when it succeeds."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return ""
    tail = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    return tail[-1] if tail else f"exit status {done.returncode}"


def fetch_package(package: str, version: str, workdir: Path) -> Path:
    """Install ``package==version`` (no dependencies) from the package index under ``workdir`` and
    return the folder holding its top-level package, without the ``.dist-info`` metadata (not code
    anyone searches). Tries pip (download the wheel, unzip it), then ``uv pip install --target``.
    Failing everywhere (no network, no such version) is a SourceError with the last reason."""
    spec = f"{package}=={version}"
    tree = workdir / "package"
    wheels = workdir / "wheels"
    reasons: list[str] = []
    for pip in _pip_commands():
        shutil.rmtree(wheels, ignore_errors=True)
        reason = _run([*pip, "download", spec, "-d", str(wheels), *_PIP_FLAGS])
        found = sorted(wheels.glob("*.whl")) if not reason else []
        if found:
            shutil.rmtree(tree, ignore_errors=True)  # a reused workdir holds an earlier copy
            with zipfile.ZipFile(found[0]) as wheel:
                wheel.extractall(tree)
            return _without_metadata(tree)
        reasons.append(reason or "pip downloaded no wheel")
    uv = shutil.which("uv")
    if uv:
        shutil.rmtree(tree, ignore_errors=True)
        reason = _run([uv, "pip", "install", "--no-deps", "--quiet", "--target", str(tree), spec])
        if not reason:
            return _without_metadata(tree)
        reasons.append(reason)
    raise SourceError(
        f"cannot fetch {spec} from the package index: {reasons[-1] if reasons else 'no pip or uv'}",
        hint="this needs network access to the package index, and pip or uv on PATH",
    )


def _without_metadata(tree: Path) -> Path:
    """The tree without what installing left beside the code: the .dist-info folder and the
    lock file uv writes into a --target folder."""
    for meta in tree.glob("*.dist-info"):
        shutil.rmtree(meta)
    (tree / ".lock").unlink(missing_ok=True)
    return tree


# -- scoring ---------------------------------------------------------------------------------------


def first_hit_rank(results: Sequence[Located], question: CodeQuestion) -> int | None:
    """The 1-based rank of the first result in the expected file whose lines overlap the expected
    definition's, within the top `TOP_K`; None when there is none."""
    for rank, (file, start, end) in enumerate(results[:TOP_K], start=1):
        if file == question.file and start <= question.line_end and end >= question.line_start:
            return rank
    return None


def score(ranks: Sequence[int | None]) -> dict[str, float]:
    """MRR@10, Recall@5 and Hit@1 over the questions' first-hit ranks."""
    if not ranks:
        return {"mrr_at_10": 0.0, "recall_at_5": 0.0, "hit_at_1": 0.0}
    n = len(ranks)
    return {
        "mrr_at_10": round(sum(1.0 / r for r in ranks if r is not None and r <= TOP_K) / n, 4),
        "recall_at_5": round(sum(1 for r in ranks if r is not None and r <= 5) / n, 4),
        "hit_at_1": round(sum(1 for r in ranks if r == 1) / n, 4),
    }


@dataclass(frozen=True, slots=True)
class ChunkerRun:
    """One chunker's bundle and every question's first-hit rank (None: not in the top 10)."""

    chunker: str
    chunks: int
    build_seconds: float
    ranks: tuple[int | None, ...]
    top: tuple[tuple[Located, ...], ...]  # each question's results, for --verbose

    def metrics(self) -> dict[str, float]:
        return score(self.ranks)


@dataclass(frozen=True, slots=True)
class Comparison:
    package: str
    version: str
    questions: tuple[CodeQuestion, ...]
    runs: dict[str, ChunkerRun]

    @property
    def mrr_gain(self) -> float:
        return round(
            self.runs["definition"].metrics()["mrr_at_10"]
            - self.runs["window"].metrics()["mrr_at_10"],
            4,
        )

    def misses_by_file(self, chunker: str) -> dict[str, list[str]]:
        """The ids of the questions a chunker missed, grouped by expected file."""
        misses: dict[str, list[str]] = {}
        for q, rank in zip(self.questions, self.runs[chunker].ranks, strict=True):
            if rank is None:
                misses.setdefault(q.file, []).append(q.id)
        return misses

    def as_dict(self, *, verbose: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "package": self.package,
            "version": self.version,
            "questions": len(self.questions),
        }
        for name, run in self.runs.items():
            entry: dict[str, Any] = {
                **run.metrics(),
                "chunks": run.chunks,
                "build_seconds": round(run.build_seconds, 2),
            }
            if verbose:
                entry["misses_by_file"] = self.misses_by_file(name)
                entry["cases"] = [
                    {
                        "id": q.id,
                        "expected": f"{q.file}:{q.line_start}-{q.line_end} {q.symbol}",
                        "rank": rank,
                        "top_3": [f"{f}:{s}-{e}" for f, s, e in top[:3]],
                    }
                    for q, rank, top in zip(self.questions, run.ranks, run.top, strict=True)
                ]
            out[name] = entry
        out["mrr_gain"] = self.mrr_gain
        return out


def format_report(comparison: Comparison, *, verbose: bool = False) -> str:
    """The two chunkers side by side; with ``verbose``, each chunker's misses by file."""
    lines = [
        f"{comparison.package} {comparison.version}: {len(comparison.questions)} questions, "
        f"hybrid search, top {TOP_K}",
        f"{'chunker':<11} {'MRR@10':>7} {'R@5':>6} {'Hit@1':>6} {'chunks':>7} {'build s':>8}",
    ]
    for name, run in comparison.runs.items():
        m = run.metrics()
        lines.append(
            f"{name:<11} {m['mrr_at_10']:>7.3f} {m['recall_at_5']:>6.3f} {m['hit_at_1']:>6.3f} "
            f"{run.chunks:>7} {run.build_seconds:>8.1f}"
        )
    lines.append(f"mrr_gain (definition - window): {comparison.mrr_gain:+.3f}")
    if verbose:
        for name in comparison.runs:
            misses = comparison.misses_by_file(name)
            total = sum(len(ids) for ids in misses.values())
            lines.append("")
            lines.append(f"{name}: {total} not in the top {TOP_K}")
            for file, ids in sorted(misses.items()):
                lines.append(f"  {file:<28} {len(ids):>3}  {' '.join(ids)}")
    return "\n".join(lines)


# -- the run ---------------------------------------------------------------------------------------


def run_chunker(
    chunker: str,
    package_dir: Path,
    questions: Sequence[CodeQuestion],
    workdir: Path,
    model: str = "default",
) -> ChunkerRun:
    """Build a bundle of ``package_dir`` with one chunker and ask it every question."""
    from atlas_core.build import build_bundle
    from atlas_core.engine import Engine

    out = workdir / f"bundle-{chunker}"
    started = time.perf_counter()
    report = build_bundle(
        ["code=" + str(package_dir)],
        out,
        model=model,
        code_chunking=chunker,
        ranking=False,
        progress=False,
    )
    seconds = time.perf_counter() - started
    tops: list[tuple[Located, ...]] = []
    ranks: list[int | None] = []
    with Engine.open(out) as engine:
        for q in questions:
            hits = engine.search(q.question, top_k=TOP_K)
            top = tuple((h.file, h.line_start, h.line_end) for h in hits)
            tops.append(top)
            ranks.append(first_hit_rank(top, q))
    return ChunkerRun(chunker, report.chunks, seconds, tuple(ranks), tuple(tops))


def compare_chunkers(
    code_set: CodeSearchSet, package_dir: Path, workdir: Path, model: str = "default"
) -> Comparison:
    """Resolve the set against the fetched package, then run both chunkers with the same model."""
    questions = resolve_questions(code_set, package_dir)
    runs = {name: run_chunker(name, package_dir, questions, workdir, model) for name in CHUNKERS}
    return Comparison(code_set.package, code_set.version, tuple(questions), runs)


def run_code_search(set_path: str | Path, workdir: Path, model: str = "default") -> Comparison:
    """Load the set, fetch its package into ``workdir`` and compare the chunkers. Raises the
    AtlasError of the step that failed (SourceError: the package could not be fetched)."""
    code_set = load_code_set(set_path)
    package_dir = fetch_package(code_set.package, code_set.version, workdir)
    return compare_chunkers(code_set, package_dir, workdir, model)


__all__ = [
    "CHUNKERS",
    "ChunkerRun",
    "CodeQuestion",
    "CodeSearchSet",
    "Comparison",
    "compare_chunkers",
    "definition_lines",
    "fetch_package",
    "first_hit_rank",
    "format_report",
    "load_code_set",
    "resolve_questions",
    "run_chunker",
    "run_code_search",
    "score",
]
