"""The learned ranking: features of each hybrid candidate and the model that scores them.

Hybrid search fuses the keyword list and the vector list (`candidates` rows each) with the tuned
score fusion. A bundle built with a trained ranking (`ranking.json`, trained on the bundle's own
corpus by `atlas_core.search.train`) then re-scores every fused candidate with a small model: a
linear function of standardised `FEATURES` plus a few shallow regression trees, stored as plain
JSON (see bundle_spec/SPEC.md) and read without pickle. A bundle without the file, or with one this
version cannot use, ranks by the fusion alone, as bundles did before.

The model corrects the fusion; it does not redo it. Its features describe the candidate and its
page, not how strongly the words or the sentence vector matched:

- `fused`, the fusion's own score;
- the file as a whole among the candidates: its best fused score, its number of candidates,
  whether this is the file's best chunk, and the best fused score of the chunks just before and
  after it (a section among its neighbours);
- the chunk: heading depth, length in tokens, code;
- the kind of page (`PAGE_KINDS`: a written guide, an API reference, a generated model page, a
  tutorial, a page generated from an OpenAPI spec);
- whether the query is spelled like an identifier, alone and with a model page.

Match-strength features (each field's BM25 score, cosines of the body and of the heading path,
ranks in each list, the query's terms in the title and headings) were measured and left out:
training queries taken from the docs' own text match their pages word for word, so a model that
sees match strength learns to trust it far more than a question written in other words deserves
(development set, questions: MRR@10 0.815 with them against 0.840 without, linear model).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from atlas_core.errors import BundleError
from atlas_core.safeio import read_json
from atlas_core.types import Problem

if TYPE_CHECKING:
    import numpy as np

RANKING_FILE = "ranking.json"
RANKING_FORMAT = "atlas-ranking-1"

PAGE_KINDS = ("guide", "reference", "model", "tutorial", "spec")

FEATURES = (
    "fused",
    "file_best",
    "file_count",
    "best_in_file",
    "neighbour",
    "depth",
    "length",
    "code",
    *(f"kind_{kind}" for kind in PAGE_KINDS),
    "ident",
    "ident_model",
)
_F = {name: i for i, name in enumerate(FEATURES)}
_MODEL = PAGE_KINDS.index("model")

_RANKING_HINT = (
    "build the bundle again or download it again; until then hybrid search ranks with the "
    "untrained fusion"
)
# Bounds a reader holds a ranking file to: anything larger is not a model this code wrote.
MAX_TREES = 500
MAX_DEPTH = 6

_SPLIT = re.compile(r"[^a-z0-9]+")


def page_kind(file: str, publication: str, spec_publications: frozenset[str]) -> str:
    """What sort of page `file` is, from its path and source: `PAGE_KINDS`.

    A page from an OpenAPI source is `spec` (its schema page `model`); a folder or name that says
    model or schema is `model`, tutorial or quick start `tutorial`, an `-api` or `-reference` page
    or a folder named `api` or `reference` (not `import-api`: a guide to the Import API)
    `reference`; anything else is a written `guide`.
    """
    path = PurePosixPath(file.lower())
    words = [w for part in path.parts[:-1] for w in _SPLIT.split(part) if w]
    stem_words = [w for w in _SPLIT.split(path.stem) if w]
    if publication in spec_publications:
        return "model" if path.stem in ("schemas", "models") else "spec"
    if any(w in ("model", "models", "schema", "schemas") for w in words):
        return "model"
    if any(w in ("tutorial", "tutorials", "quickstart") for w in words + stem_words):
        return "tutorial"
    folders = path.parts[:-1]
    if stem_words[-1:] in (["api"], ["reference"]) or any(
        f in ("api", "reference", "references") for f in folders
    ):
        return "reference"
    return "guide"


def spec_publications(manifest: Mapping[str, Any]) -> frozenset[str]:
    """The chunk-table publications of a bundle's OpenAPI sources."""
    found = set()
    for source in manifest.get("sources") or ():
        if isinstance(source, Mapping) and source.get("kind") == "openapi":
            for key in ("publication", "title"):
                value = source.get(key)
                if isinstance(value, str) and value:
                    found.add(value)
    return frozenset(found)


class RankContext:
    """What the features need of one bundle's chunks, computed once per bundle from the chunk
    table's columns (`file`, `publication`, `heading`, `token_count`, `is_code`)."""

    def __init__(
        self, cols: Mapping[str, Sequence[Any]], file_code: np.ndarray, spec_pubs: frozenset[str]
    ) -> None:
        import numpy as np

        n = len(file_code)
        self.n = n
        self.file_code = np.asarray(file_code, dtype=np.int64)
        # A page's kind is worked out once per (file, publication), not once per chunk.
        kinds: dict[tuple[str, str], int] = {}

        def kind(key: tuple[str, str]) -> int:
            found = kinds.get(key)
            if found is None:
                found = kinds[key] = PAGE_KINDS.index(page_kind(key[0], key[1], spec_pubs))
            return found

        self.kind = np.fromiter(
            map(kind, zip(cols["file"], cols["publication"], strict=True)),
            dtype=np.int64,
            count=n,
        )
        self.depth = np.fromiter(
            (min(str(h or "").count(" > "), 6) / 6.0 for h in cols["heading"]),
            dtype=np.float64,
            count=n,
        )
        self.length = np.fromiter(
            (min(int(t or 0), 512) / 256.0 for t in cols["token_count"]),
            dtype=np.float64,
            count=n,
        )
        self.code = np.fromiter((bool(v) for v in cols["is_code"]), dtype=np.float64, count=n)


@dataclass(slots=True)
class Candidates:
    """One query's fused candidates, best first, and their features: `rows[i]` <-> `x[i]`."""

    rows: np.ndarray  # int64
    x: np.ndarray  # float64 (len(rows), len(FEATURES))

    @property
    def fused(self) -> np.ndarray:
        """The fusion's score of each row (a feature column)."""
        return self.x[:, _F["fused"]]


def gather(
    ctx: RankContext,
    keyword: Any,
    cos: np.ndarray,
    text: str,
    depth: int,
    *,
    vector_weight: float,
    identifier: bool,
    mask: np.ndarray | None = None,
) -> Candidates:
    """One query's candidates as hybrid search fuses them: the keyword index's top `depth` rows
    and the top `depth` cosines of `cos` (one per row of the bundle, masked here), with their
    features. Training calls this too, so the model learns on exactly what it will score."""
    import numpy as np

    from atlas_core.search.fusion import Ranked, fuse
    from atlas_core.search.keyword import top_k

    found = keyword.search(text, depth, mask)
    if mask is not None:
        cos = np.where(mask, cos, -np.inf)
    vec_rows = top_k(cos, depth)
    vec_rows = vec_rows[np.isfinite(cos[vec_rows])]
    vector = Ranked(vec_rows, cos[vec_rows])
    if found.rows.size == 0:
        ranked = vector  # nothing matched a word: the vector list alone, scores kept
    else:
        ranked = fuse(Ranked(found.rows, found.scores), vector, vector_weight=vector_weight)
    return candidate_features(ctx, ranked.rows, ranked.scores, identifier=identifier)


def candidate_features(
    ctx: RankContext, rows: np.ndarray, fused: np.ndarray, *, identifier: bool
) -> Candidates:
    """The features (`FEATURES`) of fused candidates `rows` with their fusion scores `fused`."""
    import numpy as np

    rows = np.asarray(rows, dtype=np.int64)
    fused = np.asarray(fused, dtype=np.float64)
    x = np.zeros((len(rows), len(FEATURES)), dtype=np.float64)
    if len(rows) == 0:
        return Candidates(rows, x)
    x[:, _F["fused"]] = fused
    _file_features(ctx, rows, fused, x)
    x[:, _F["depth"]] = ctx.depth[rows]
    x[:, _F["length"]] = ctx.length[rows]
    x[:, _F["code"]] = ctx.code[rows]
    kinds = ctx.kind[rows]
    for i, kind in enumerate(PAGE_KINDS):
        x[:, _F[f"kind_{kind}"]] = kinds == i
    if identifier:
        x[:, _F["ident"]] = 1.0
        x[:, _F["ident_model"]] = kinds == _MODEL
    return Candidates(rows, x)


def _file_features(ctx: RankContext, rows: np.ndarray, fused: np.ndarray, x: np.ndarray) -> None:
    files = ctx.file_code[rows].tolist()
    best: dict[int, float] = {}
    count: dict[int, int] = {}
    for f, s in zip(files, fused.tolist(), strict=True):
        best[f] = max(best.get(f, -math.inf), s)
        count[f] = count.get(f, 0) + 1
    scale = math.log1p(len(rows))
    by_row = dict(zip(rows.tolist(), fused.tolist(), strict=True))
    for i, (row, f, s) in enumerate(zip(rows.tolist(), files, fused.tolist(), strict=True)):
        x[i, _F["file_best"]] = best[f]
        x[i, _F["file_count"]] = math.log1p(count[f]) / scale
        x[i, _F["best_in_file"]] = 1.0 if s >= best[f] else 0.0
        near = 0.0
        for other in (row - 1, row + 1):
            if 0 <= other < ctx.n and ctx.file_code[other] == f:
                near = max(near, by_row.get(other, 0.0))
        x[i, _F["neighbour"]] = near


def rank(model: RankingModel, cands: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """The candidates' rows re-ordered by the model, best first, its scores min-max scaled over
    the candidates as the fusion scales each list: 1.0 for the best, 0.0 for the last (a sigmoid
    of the raw score would show nearly every hit as 1.000)."""
    import numpy as np

    raw = model.score(cands.x)
    spread = float(raw.max() - raw.min()) if len(raw) else 0.0
    scores = (raw - raw.min()) / spread if spread > 1e-12 else np.ones_like(raw)
    order = np.lexsort((cands.rows, -scores))
    return cands.rows[order], scores[order]


@dataclass
class Tree:
    """A regression tree over feature columns, stored as parallel lists (node 0 is the root).
    An inner node has `feature >= 0` and goes left when ``x[feature] <= threshold``; a leaf has
    `feature == -1` and its `value`."""

    feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    value: list[float]
    _cached: Any = field(default=None, init=False, repr=False, compare=False)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The leaf value each row of `x` reaches."""
        feature, threshold, left, right, value, depth = self._arrays()
        stacked = (feature[None], threshold[None], left[None], right[None], value[None])
        return _leaf_values(stacked, depth, x)[0]

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        import numpy as np

        cached = self._cached
        if cached is None:
            depth = [0] * len(self.feature)
            for node, f in enumerate(self.feature):
                if f >= 0:
                    depth[self.left[node]] = depth[self.right[node]] = depth[node] + 1
            cached = (
                np.asarray(self.feature, dtype=np.int64),
                np.asarray(self.threshold, dtype=np.float64),
                np.asarray(self.left, dtype=np.int64),
                np.asarray(self.right, dtype=np.int64),
                np.asarray(self.value, dtype=np.float64),
                max(depth),
            )
            self._cached = cached
        return cached


def _leaf_values(stacked: tuple[np.ndarray, ...], depth: int, z: np.ndarray) -> np.ndarray:
    """(trees, rows): the leaf each row reaches in each tree, the trees given as stacked node
    arrays (feature, threshold, left, right, value; one tree per row) walked a level at a time."""
    import numpy as np

    feature, threshold, left, right, value = stacked
    trees = np.arange(len(feature))[:, None]
    rows = np.arange(len(z))[None, :]
    node = np.zeros((len(feature), len(z)), dtype=np.int64)
    for _ in range(depth):
        f = feature[trees, node]
        go_left = z[rows, np.maximum(f, 0)] <= threshold[trees, node]
        step = np.where(go_left, left[trees, node], right[trees, node])
        node = np.where(f < 0, node, step)
    return value[trees, node]


@dataclass
class RankingModel:
    """Scores candidates: ``w . (x - mean) / scale + bias`` plus the trees' outputs times `rate`."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float = 0.0
    trees: list[Tree] = field(default_factory=list)
    rate: float = 0.1
    info: dict[str, Any] = field(default_factory=dict)
    features: tuple[str, ...] = FEATURES
    _forest: Any = field(default=None, init=False, repr=False, compare=False)

    def score(self, x: np.ndarray) -> np.ndarray:
        import numpy as np

        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        out = z @ self.weights + self.bias
        if self.trees:
            out = out + self.rate * self._forest_sum(z)
        return out

    def _forest_sum(self, z: np.ndarray) -> np.ndarray:
        """Every tree's output summed, all trees walked together a level at a time (one tree at
        a time costs 30 numpy calls per tree and query; this costs 30 per query)."""
        import numpy as np

        if self._forest is None:
            width = max(len(t.feature) for t in self.trees)

            def stack(name: str, fill: float, dtype: Any) -> np.ndarray:
                rows = [getattr(t, name) + [fill] * (width - len(t.feature)) for t in self.trees]
                return np.asarray(rows, dtype=dtype)

            depth = max(t._arrays()[5] for t in self.trees)
            self._forest = (
                stack("feature", -1, np.int64),
                stack("threshold", 0.0, np.float64),
                stack("left", 0, np.int64),
                stack("right", 0, np.int64),
                stack("value", 0.0, np.float64),
                depth,
            )
        *stacked, depth = self._forest
        return _leaf_values(tuple(stacked), depth, z).sum(axis=0)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RANKING_FORMAT,
            "features": list(self.features),
            "mean": [float(v) for v in self.mean],
            "scale": [float(v) for v in self.scale],
            "weights": [float(v) for v in self.weights],
            "bias": float(self.bias),
            "rate": float(self.rate),
            "trees": [
                {
                    "feature": t.feature,
                    "threshold": [float(v) for v in t.threshold],
                    "left": t.left,
                    "right": t.right,
                    "value": [float(v) for v in t.value],
                }
                for t in self.trees
            ],
            "info": self.info,
        }

    @classmethod
    def from_json(cls, obj: Any, *, where: str = RANKING_FILE) -> RankingModel:
        """A model from its JSON form; BundleError naming `where` for anything else."""
        import numpy as np

        problems = model_problems(obj)
        if problems:
            raise BundleError(
                f"{where}: {problems[0]}",
                hint=_RANKING_HINT,
                path=where,
            )
        trees = [
            Tree(
                [int(v) for v in t["feature"]],
                [float(v) for v in t["threshold"]],
                [int(v) for v in t["left"]],
                [int(v) for v in t["right"]],
                [float(v) for v in t["value"]],
            )
            for t in obj["trees"]
        ]
        return cls(
            mean=np.asarray(obj["mean"], dtype=np.float64),
            scale=np.asarray(obj["scale"], dtype=np.float64),
            weights=np.asarray(obj["weights"], dtype=np.float64),
            bias=float(obj["bias"]),
            trees=trees,
            rate=float(obj["rate"]),
            info=dict(obj.get("info") or {}),
        )

    @classmethod
    def load(cls, path: Path) -> RankingModel:
        try:
            obj = read_json(path)
        except (OSError, ValueError) as exc:
            raise BundleError(
                f"{path}: not a readable ranking file ({exc})",
                hint=_RANKING_HINT,
                path=str(path),
            ) from None
        return cls.from_json(obj, where=str(path))


def _finite_list(value: Any, length: int | None = None) -> bool:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        return False
    return all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value
    )


def model_problems(obj: Any) -> list[str]:
    """What is wrong with a ranking file's JSON, empty when nothing is."""
    if not isinstance(obj, dict):
        return ["not a JSON object"]
    if obj.get("format") != RANKING_FORMAT:
        return [f"format is {obj.get('format')!r}, expected {RANKING_FORMAT!r}"]
    if obj.get("features") != list(FEATURES):
        return ["its features are not the ones this version of Atlas computes"]
    n = len(FEATURES)
    for key in ("mean", "scale", "weights"):
        if not _finite_list(obj.get(key), n):
            return [f"{key!r} is not {n} finite numbers"]
    if any(v <= 0 for v in obj["scale"]):
        return ["'scale' has a value that is not positive"]
    for key in ("bias", "rate"):
        if not _finite_list([obj.get(key)]):
            return [f"{key!r} is not a finite number"]
    trees = obj.get("trees")
    if not isinstance(trees, list) or len(trees) > MAX_TREES:
        return [f"'trees' is not a list of at most {MAX_TREES} trees"]
    for number, tree in enumerate(trees):
        problem = _tree_problem(tree, n)
        if problem:
            return [f"tree {number}: {problem}"]
    return []


def _tree_problem(tree: Any, n_features: int) -> str:
    if not isinstance(tree, dict):
        return "not an object"
    parts: list[list[Any]] = []
    for key in ("feature", "threshold", "left", "right", "value"):
        part = tree.get(key)
        if not isinstance(part, list):
            return f"{key!r} is missing or not a list"
        parts.append(part)
    if len({len(p) for p in parts}) != 1:
        return "its five lists are of different lengths"
    feature, threshold, left, right, value = parts
    size = len(feature)
    if not 1 <= size < 2 ** (MAX_DEPTH + 1):
        return f"{size} nodes"
    if not (_finite_list(threshold) and _finite_list(value)):
        return "a threshold or value is not a finite number"
    for node in range(size):
        f, lo, hi = feature[node], left[node], right[node]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (f, lo, hi)):
            return "a node index is not an integer"
        if f == -1:
            continue
        # children come after their parent, so walking down always ends at a leaf
        if not (0 <= f < n_features and node < lo < size and node < hi < size):
            return f"node {node} points outside the tree"
    depth = [0] * size
    for node in range(size):
        if feature[node] >= 0:
            for child in (left[node], right[node]):
                depth[child] = depth[node] + 1
    if max(depth) > MAX_DEPTH:
        return f"deeper than {MAX_DEPTH}"
    return ""


def write_ranking(root: Path, model: RankingModel) -> dict[str, Any]:
    """Write `model` to ``root/ranking.json``; the manifest's ``ranking`` section."""
    (root / RANKING_FILE).write_text(
        json.dumps(model.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return {
        "format": RANKING_FORMAT,
        "file": RANKING_FILE,
        "features": len(FEATURES),
        "trees": len(model.trees),
        "training": dict(model.info),
    }


def describe_ranking(manifest: Mapping[str, Any]) -> str:
    """One line on how a bundle ranks hybrid results, from its manifest (`atlas info`)."""
    section = manifest.get("ranking")
    if isinstance(section, Mapping):
        training = section.get("training")
        training = training if isinstance(training, Mapping) else {}
        before, after = training.get("holdout_mrr_fusion"), training.get("holdout_mrr")
        gain = f"; held-out MRR {before} untrained, {after} trained" if before and after else ""
        return f"trained ({section.get('features')} features, {section.get('trees')} trees{gain})"
    reason = (manifest.get("build") or {}).get("ranking") if isinstance(manifest, Mapping) else ""
    return str(reason or "untrained fusion: built before rankings were trained")


def ranking_problems(root: Path, manifest: Mapping[str, Any]) -> list[Problem]:
    """`atlas verify`'s check of the ranking file against this version and the manifest's
    ``ranking`` section (its hash and size are checked with every other file)."""
    section = manifest.get("ranking")
    if not isinstance(section, Mapping):
        return []
    if section.get("format") != RANKING_FORMAT or section.get("file") != RANKING_FILE:
        return [
            Problem(
                RANKING_FILE,
                f"the manifest's ranking section names format {section.get('format')!r} and file "
                f"{section.get('file')!r}; this version reads {RANKING_FORMAT!r} from "
                f"{RANKING_FILE!r}",
            )
        ]
    if RANKING_FILE not in (manifest.get("files") or {}):
        return [Problem(RANKING_FILE, "the manifest has a ranking section but does not list it")]
    try:
        obj = read_json(root / RANKING_FILE)
    except (OSError, ValueError) as exc:
        return [Problem(RANKING_FILE, f"not a readable ranking file ({exc})")]
    problems = [Problem(RANKING_FILE, message) for message in model_problems(obj)]
    if not problems and len(obj["trees"]) != section.get("trees"):
        problems.append(
            Problem(
                RANKING_FILE,
                f"holds {len(obj['trees'])} trees, manifest.json says {section.get('trees')!r}",
            )
        )
    return problems
