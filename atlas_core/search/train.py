"""Training the learned ranking at build time, from the structure of the corpus itself.

No judged questions exist for a new corpus, so the training queries are drawn from the docs, each
judged per file as the development set is:

- `heading`: a section's own heading (one that says something: not "Parameters" or "Example");
- `title`: a page's title;
- `sentence`: the first sentence of a section;
- `row`: the longest cell of a table row (a description, say).

A generated model page is asked for by its type's name, so it gives title queries only: its
headings ("Properties") say nothing, and a sentence describing a type is what the reference and
guide pages about that type also say; the pages of every other kind (`PAGE_KINDS`) give all four.
Each kind gives at most `PER_KIND` queries and each page `PER_FILE` per source, so the 216
generated model pages of the Collibra docs cannot outvote the guides. The draw is seeded, so a
build is repeatable.

The query text is the page's own, and the target its page; the model cannot learn from that to
trust a word-for-word match, because it never sees match strength (see `learn`). Leaving the
query's own chunk out of the candidates, so the answer must come from the rest of the page, was
measured and dropped: development set MRR@10 0.819 against 0.857 with it in.

`fit` starts from the fusion (all weight on `fused`), learns a linear correction by gradient
descent on a listwise softmax loss over each query's candidates, pulled toward that start, then
adds shallow regression trees on the same loss (gradient boosting with Newton leaves). Each of
`BAGS` fits holds out another fifth of the queries and stops each stage where their mean
reciprocal rank stops improving; the fits that beat the fusion on their held-out queries are
averaged (one fit's early stop varies with its split: development set MRR@10 0.833-0.857 over
four seeds for one fit, 0.841-0.849 for three averaged). When none does, no model is kept
(`TrainingResult.model` is None, with the reason), so a bundle never ships a ranking that did
worse than the fusion it would have had.
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from atlas_core.search.learn import (
    FEATURES,
    PAGE_KINDS,
    Candidates,
    RankContext,
    RankingModel,
    Tree,
    gather,
)
from atlas_core.search.limits import looks_like_identifier

log = logging.getLogger(__name__)

PER_KIND = 500  # training queries drawn per page kind at most
PER_FILE = 4  # per page and query source at most
HOLDOUT = 0.2
BAGS = 3  # fits on other held-out fifths, averaged: one fit's early stop varies with its split
SEED = 14
DEPTH = 50  # candidates per list, as the engine takes them
MIN_QUERIES = 40  # fewer usable queries than this and nothing is trained

# Headings that name a part of every page rather than what the page is about.
_GENERIC_TEXT = """
    parameters parameter properties property request response responses example examples
    overview introduction description notes note returns return body see also prerequisites
    summary details syntax usage result results fields options arguments values errors
    related topics contents table of next steps before you begin what next
"""
_GENERIC = frozenset(_GENERIC_TEXT.split())
_MODEL = PAGE_KINDS.index("model")
_MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|`([^`]*)`|[*_#>]+")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)\]])[.!?](?:\s|$)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'-]*")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")


@dataclass(frozen=True, slots=True)
class TrainingQuery:
    text: str
    targets: frozenset[int]  # file codes that answer it
    source: str  # heading | title | sentence | row


@dataclass
class TrainingResult:
    model: RankingModel | None
    reason: str  # why no model was kept, or a summary of the one that was
    stats: dict[str, Any] = field(default_factory=dict)


def _clean(text: str) -> str:
    text = _MARKUP.sub(lambda m: m.group(1) or m.group(2) or " ", text)
    return " ".join(text.replace("|", " ").split())


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _says_something(text: str) -> bool:
    words = [w.lower() for w in _words(text)]
    return len(words) >= 2 and not all(w in _GENERIC for w in words)


def _first_sentence(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "|", "```", "<", "-", "*", ">")) or line[0].isdigit():
            continue
        clean = _clean(line)
        match = _SENTENCE_END.search(clean)
        sentence = clean[: match.start() + 1] if match else clean
        if 6 <= len(_words(sentence)) <= 30:
            return sentence
        return ""
    return ""


def _table_cells(text: str) -> list[str]:
    """The longest cell of each table row that reads like a description."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|") or _TABLE_RULE.match(line):
            continue
        cells = [_clean(c) for c in line.strip("|").split("|")]
        best = max(cells, key=len, default="")
        if 5 <= len(_words(best)) <= 30:
            found.append(best)
    return found


def training_queries(
    cols: Mapping[str, Sequence[Any]], kinds: np.ndarray, file_code: np.ndarray, seed: int = SEED
) -> list[TrainingQuery]:
    """The training queries of a chunk table (see the module's docstring), drawn with `seed`."""
    rng = random.Random(seed)
    files, headings, texts = cols["file"], cols["heading"], cols["text"]
    pools: dict[tuple[int, int, str], list[TrainingQuery]] = defaultdict(list)
    titles_seen: set[int] = set()
    previous = None
    for row in range(len(files)):
        code = int(file_code[row])
        kind = int(kinds[row])
        heading = str(headings[row] or "")
        first_of_section = (files[row], heading) != previous
        previous = (files[row], heading)
        target = frozenset((code,))
        title = _clean(str(cols["title"][row] or ""))
        if code not in titles_seen and _says_something(title):
            titles_seen.add(code)
            pools[(kind, code, "title")].append(TrainingQuery(title, target, "title"))
        if not first_of_section:
            continue
        deepest = _clean(heading.rsplit(" > ", 1)[-1]).rstrip(".")
        if " > " in heading and _says_something(deepest) and deepest.lower() != title.lower():
            pools[(kind, code, "heading")].append(TrainingQuery(deepest, target, "heading"))
        text = str(texts[row] or "")
        sentence = _first_sentence(text)
        if sentence:
            pools[(kind, code, "sentence")].append(TrainingQuery(sentence, target, "sentence"))
        for cell in _table_cells(text)[:2]:
            pools[(kind, code, "row")].append(TrainingQuery(cell, target, "row"))
    by_kind: dict[int, list[TrainingQuery]] = defaultdict(list)
    for (kind, _code, source), pool in sorted(pools.items()):
        if kind == _MODEL and source != "title":
            continue  # a generated model page is asked for by its type's name (see above)
        by_kind[kind] += rng.sample(pool, min(PER_FILE, len(pool)))
    drawn: list[TrainingQuery] = []
    for kind in sorted(by_kind):
        pool = by_kind[kind]
        drawn += rng.sample(pool, min(PER_KIND, len(pool)))
    rng.shuffle(drawn)
    return drawn


def collect(
    ctx: RankContext,
    keyword: Any,
    matrix: np.ndarray,
    queries: Sequence[TrainingQuery],
    vectors: np.ndarray,
    *,
    vector_weight: float,
    identifier_vector_weight: float,
    depth: int = DEPTH,
) -> list[tuple[Candidates, np.ndarray]]:
    """Each query's candidates, as hybrid search gathers them, and their labels (1 where the
    row's file answers the query). A query whose candidates hold no answer, or only answers,
    teaches nothing and is dropped."""
    out = []
    for query, vector in zip(queries, vectors, strict=True):
        identifier = looks_like_identifier(query.text)
        cands = gather(
            ctx,
            keyword,
            matrix @ vector,
            query.text,
            depth,
            vector_weight=identifier_vector_weight if identifier else vector_weight,
            identifier=identifier,
        )
        labels = np.isin(ctx.file_code[cands.rows], list(query.targets)).astype(np.float64)
        if 0 < labels.sum() < len(labels):
            out.append((cands, labels))
    return out


def _pad(data: Sequence[tuple[Candidates, np.ndarray]]) -> tuple[np.ndarray, ...]:
    width = max(len(c.rows) for c, _ in data)
    n_features = len(FEATURES)
    x = np.zeros((len(data), width, n_features))
    y = np.zeros((len(data), width))
    valid = np.zeros((len(data), width), dtype=bool)
    for i, (cands, labels) in enumerate(data):
        k = len(cands.rows)
        x[i, :k] = cands.x
        y[i, :k] = labels
        valid[i, :k] = True
    return x, y, valid


def _softmax(scores: np.ndarray, valid: np.ndarray) -> np.ndarray:
    s = np.where(valid, scores, -np.inf)
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


def _gradient(
    scores: np.ndarray, y: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The softmax over each query's candidates and the gradient per score of the listwise loss
    -log(probability mass on the answers)."""
    p = _softmax(scores, valid)
    mass = (p * y).sum(axis=1)
    target = p * y / np.maximum(mass, 1e-300)[:, None]
    return p, (p - target) / len(scores)


def mrr(scores: np.ndarray, y: np.ndarray, valid: np.ndarray) -> float:
    """Mean reciprocal rank of the first answer, ties broken against it."""
    s = np.where(valid, scores, -np.inf)
    best_answer = np.where(y > 0, s, -np.inf).max(axis=1)
    rank = 1 + ((s >= best_answer[:, None]) & (y == 0) & valid).sum(axis=1)
    return float((1.0 / rank).mean())


def _fit_tree(
    z: np.ndarray, g: np.ndarray, h: np.ndarray, depth: int, min_leaf: float, lam: float
) -> Tree:
    """One regression tree on quantile thresholds, Newton leaves ``-sum g / (sum h + lam)``."""
    tree = Tree([], [], [], [], [])
    bins = [np.unique(np.quantile(z[:, f], np.linspace(0.05, 0.95, 16))) for f in range(z.shape[1])]

    def grow(index: np.ndarray, level: int) -> int:
        node = len(tree.feature)
        tree.feature.append(-1)
        tree.threshold.append(0.0)
        tree.left.append(-1)
        tree.right.append(-1)
        gs, hs = float(g[index].sum()), float(h[index].sum())
        tree.value.append(-gs / (hs + lam))
        if level >= depth or len(index) < 2 * min_leaf:
            return node
        base = gs * gs / (hs + lam)
        best = (0.0, -1, 0.0)
        for f, cuts in enumerate(bins):
            column = z[index, f]
            for cut in cuts:
                left = column <= cut
                hl = float(h[index][left].sum())
                hr = hs - hl
                if hl < min_leaf or hr < min_leaf:
                    continue
                gl = float(g[index][left].sum())
                gain = gl * gl / (hl + lam) + (gs - gl) ** 2 / (hr + lam) - base
                if gain > best[0]:
                    best = (gain, f, float(cut))
        if best[1] < 0:
            return node
        _, f, cut = best
        tree.feature[node] = f
        tree.threshold[node] = cut
        go_left = z[index, f] <= cut
        tree.left[node] = grow(index[go_left], level + 1)
        tree.right[node] = grow(index[~go_left], level + 1)
        return node

    grow(np.arange(len(z)), 0)
    return tree


@dataclass
class _Fitted:
    weights: np.ndarray
    trees: list[Tree]
    baseline: float  # held-out MRR of the fusion
    linear: float  # ... of the linear stage
    final: float  # ... with the trees
    epochs: int


def fit(
    data: Sequence[tuple[Candidates, np.ndarray]],
    *,
    seed: int = SEED,
    bags: int = BAGS,
    epochs: int = 400,
    trees: int = 60,
    tree_depth: int = 3,
    rate: float = 0.1,
    l2: float = 0.03,
    say: Callable[[str], None] = log.info,
) -> TrainingResult:
    """Fit the ranking on `data`: `bags` models, each holding out another fifth of the queries,
    averaged. A model that does not beat the fusion on its held-out queries is left out; None
    when none does."""
    started = time.perf_counter()
    if len(data) < MIN_QUERIES:
        return TrainingResult(
            None, f"only {len(data)} usable training queries (at least {MIN_QUERIES} needed)"
        )
    x, y, valid = _pad(data)
    flat = x[valid]
    mean = flat.mean(axis=0)
    scale = flat.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.where(valid[..., None], (x - mean) / scale, 0.0)
    fitted = []
    for bag in range(bags):
        order = np.random.default_rng(seed + bag).permutation(len(data))
        cut = max(1, int(len(order) * HOLDOUT))
        held, train = order[:cut], order[cut:]
        fitted.append(
            _fit_one(
                (z[train], y[train], valid[train]),
                (z[held], y[held], valid[held], x[held]),
                epochs=epochs,
                trees=trees,
                tree_depth=tree_depth,
                rate=rate,
                l2=l2,
            )
        )
    kept = [f for f in fitted if f.final > f.baseline + 0.005 and np.isfinite(f.weights).all()]

    def average(values: list[float]) -> float:
        return round(float(np.mean(values)), 4) if values else 0.0

    stats = {
        "queries": len(data),
        "holdout": max(1, int(len(data) * HOLDOUT)),
        "bags": len(fitted),
        "kept": len(kept),
        "holdout_mrr_fusion": average([f.baseline for f in fitted]),
        "holdout_mrr_linear": average([f.linear for f in fitted]),
        "holdout_mrr": average([f.final for f in fitted]),
        "epochs": [f.epochs for f in fitted],
        "trees": sum(len(f.trees) for f in kept),
        "seconds": round(time.perf_counter() - started, 2),
    }
    if not kept:
        return TrainingResult(
            None,
            "no gain over the fusion on held-out training queries: MRR "
            f"{stats['holdout_mrr']:.3f} trained against {stats['holdout_mrr_fusion']:.3f}",
            stats,
        )
    weights = np.mean([f.weights for f in kept], axis=0)
    forest = [tree for f in kept for tree in f.trees]
    model = RankingModel(mean, scale, weights, 0.0, forest, rate / len(kept), info=stats)
    say(
        f"ranking trained on {len(data)} queries ({len(kept)} of {len(fitted)} fits kept): "
        f"held-out MRR {stats['holdout_mrr_fusion']:.3f} untrained, "
        f"{stats['holdout_mrr_linear']:.3f} linear, {stats['holdout_mrr']:.3f} with trees"
    )
    return TrainingResult(model, "trained", stats)


def _fit_one(
    train: tuple[np.ndarray, np.ndarray, np.ndarray],
    held: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    *,
    epochs: int,
    trees: int,
    tree_depth: int,
    rate: float,
    l2: float,
) -> _Fitted:
    z, y, valid = train
    hz, hy, hvalid, hx = held
    fused = FEATURES.index("fused")
    baseline = mrr(hx[..., fused], hy, hvalid)
    # Start from the untrained fusion, sharpened: the softmax needs a spread of a few units.
    # The pull back toward that start (l2) was chosen on the development set among 0.001, 0.01,
    # 0.03 and 0.1.
    w0 = np.zeros(len(FEATURES))
    w0[fused] = 5.0
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    best = (mrr(hz @ w, hy, hvalid), w.copy(), 0)
    for epoch in range(1, epochs + 1):
        _, grad_s = _gradient(z @ w, y, valid)
        grad = np.einsum("qc,qcf->f", grad_s, z) + l2 * (w - w0)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= 0.05 * (m / (1 - 0.9**epoch)) / (np.sqrt(v / (1 - 0.999**epoch)) + 1e-8)
        if epoch % 10 == 0:
            score = mrr(hz @ w, hy, hvalid)
            if score > best[0] + 1e-6:
                best = (score, w.copy(), epoch)
            elif epoch - best[2] >= 100:
                break
    linear, w, stopped = best
    forest: list[Tree] = []
    final = linear
    if trees:
        train_s = z @ w
        held_s = hz @ w
        flat_z = z[valid]
        best_count = 0
        for number in range(1, trees + 1):
            p, grad_s = _gradient(train_s, y, valid)
            hess = np.maximum(p * (1 - p), 1e-6) / len(train_s)
            tree = _fit_tree(
                flat_z, grad_s[valid], hess[valid], tree_depth, min_leaf=20 / len(train_s), lam=1e-3
            )
            forest.append(tree)
            step = np.zeros_like(train_s)
            step[valid] = tree.predict(flat_z)
            train_s = train_s + rate * step
            hstep = np.zeros_like(held_s)
            hstep[hvalid] = tree.predict(hz[hvalid])
            held_s = held_s + rate * hstep
            score = mrr(held_s, hy, hvalid)
            if score > final + 1e-6:
                final, best_count = score, number
            elif number - best_count >= 15:
                break
        forest = forest[:best_count]
    return _Fitted(w, forest, baseline, linear, final, stopped)


def train_ranking(
    chunks: Any,
    matrix: np.ndarray,
    keyword: Any,
    embedder: Any,
    spec_pubs: frozenset[str],
    *,
    vector_weight: float,
    identifier_vector_weight: float,
    say: Callable[[str], None] = log.info,
) -> TrainingResult:
    """Train the ranking of a bundle being built: its chunks (Chunk objects or columns), their
    float32 vectors, its keyword index and the embedder that embeds its queries."""
    from atlas_core.search.chunks import ChunkTable

    table = ChunkTable(chunks)
    ctx = RankContext(table.cols, table.file_code, spec_pubs)
    queries = training_queries(table.cols, ctx.kind, table.file_code)
    if len(queries) < MIN_QUERIES:
        return TrainingResult(
            None,
            f"the docs give only {len(queries)} training queries (at least {MIN_QUERIES} needed)",
        )
    say(f"embedding {len(queries)} training queries")
    vectors = embedder.embed_queries([q.text for q in queries])
    data = collect(
        ctx,
        keyword,
        matrix,
        queries,
        vectors,
        vector_weight=vector_weight,
        identifier_vector_weight=identifier_vector_weight,
    )
    result = fit(data, say=say)
    result.stats["sources"] = dict(sorted(Counter(q.source for q in queries).items()))
    return result
