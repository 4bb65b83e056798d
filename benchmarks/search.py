"""Search speed on a synthetic 100,000-chunk bundle, measured side by side in one run.

    uv run python benchmarks/search.py --json [--chunks 100000] [--workdir DIR]

Builds (or reuses, with --workdir) a bundle of synthetic chunks: text drawn from a Zipfian
vocabulary of invented words, random unit vectors of 384 dimensions, the keyword index from
`write_keyword_index`, and a synthetic identifier table of 100,000 rows. Then measures:

  keyword_p50_ms                BM25 query (tokenise, expand, sum rows, top 10), numpy only
  keyword_engine_p50_ms         the same through Engine.search (diversification, hits, snippets)
  rank_bm25_p50_ms              rank-bm25 BM25Okapi.get_scores + top 10, same chunks and tokens
  keyword_speedup_vs_rank_bm25  rank_bm25_p50_ms / keyword_p50_ms               (goal >= 100)
  vector_p50_ms                 exact cosine top 10 over the matrix, query already embedded
  bandwidth_floor_ms            summing the same float32 matrix once (numpy, one thread)
  vector_vs_bandwidth_floor     vector_p50_ms / bandwidth_floor_ms              (goal <= 2.0)
  hybrid_fusion_p95_ms          Engine.search hybrid with the untrained fusion (hash query model)
  hybrid_learned_p95_ms         the same queries re-scored by a ranking model of the largest
                                size training keeps (3 fits x 60 trees of depth 3)
  ranking_adds_p95_ms           hybrid_learned_p95_ms - hybrid_fusion_p95_ms    (goal <= 3)
  lookup_p95_ms                 identifier lookup, exact and normalised spellings (goal < 1)
  symbols_p95_ms                fuzzy workspace-symbol search over 100,000 identifiers (< 15)
  open_ms                       fresh process: Engine.open to the first lookup's answer (< 300),
                                split into open_bundle_ms (Bundle.open's checks) and
                                open_first_lookup_ms (loading the identifier table); open_cpu_ms
                                is the CPU time of the same span (medians of 3 processes)
  rss_mb                        that process's resident memory after the first lookup
  first_hybrid_after_open_ms    fresh process: Engine.open, the warm-up a server does before it
                                answers hover and keyword search (lookup, symbols, keyword,
                                chunks), then the first hybrid query, timed (goal < 50); the
                                vectors convert and the ranking loads in the background from open
                                (`Engine.prepare_vector_search`, as the MCP server's warm-up does)
  first_hybrid_lazy_ms          the same with nothing prepared in the background: the first query
                                pays the float32 conversion and the ranking's features, as before
  vectors_ready_after_open_ms   from open to the background conversion's end (medians of 3
                                processes of each, interleaved)
  keyword_during_conversion_p50_ms  keyword queries answered while a conversion runs, against
                                keyword_p50_ms when none does: the conversion must not slow them

Not a test: prints one JSON object (with --json) and asserts nothing. Run it once or twice, not
in a loop: the machines it runs on are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.bundle import Bundle, BundleWriter  # noqa: E402
from atlas_core.embed import load_embedder  # noqa: E402
from atlas_core.engine import Engine  # noqa: E402
from atlas_core.identifiers.store.table import write_table  # noqa: E402
from atlas_core.search.dense import DenseIndex  # noqa: E402
from atlas_core.search.keyword import KeywordIndex, top_k, write_keyword_index  # noqa: E402
from atlas_core.search.learn import FEATURES, RankingModel, Tree, write_ranking  # noqa: E402
from atlas_core.search.tokenize import query_terms, tokenize  # noqa: E402
from atlas_core.types import Chunk, Document  # noqa: E402
from benchmarks.synthetic_identifiers import synthetic_entries  # noqa: E402

DIMS = 384
VOCAB = 40_000
WORDS_PER_CHUNK = 60
CHUNKS_PER_FILE = 20
_SYLLABLE_TEXT = "ka lo mi ne ru sa te vi zo bra cle dri fo gu hin jas kel mor nup pla qui rst"
SYLLABLES = tuple(_SYLLABLE_TEXT.split(" "))


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def make_vocabulary(rng: random.Random) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < VOCAB:
        words.setdefault("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))), None)
    return list(words)


def make_chunks(n: int, seed: int = 7) -> tuple[list[Chunk], list[str], np.ndarray]:
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    vocab = make_vocabulary(rng)
    ranks = np.arange(1, VOCAB + 1, dtype=np.float64)
    p = 1.0 / ranks**1.07
    p /= p.sum()
    draws = nrng.choice(VOCAB, size=(n, WORDS_PER_CHUNK), p=p)
    chunks = []
    for i in range(n):
        words = [vocab[j] for j in draws[i]]
        # an identifier per chunk, camelCase, so the tokenizer's split path is exercised too
        words.append(words[3] + words[7].title() + str(i % 100))
        file_no = i // CHUNKS_PER_FILE
        title_words = [vocab[j] for j in draws[file_no * CHUNKS_PER_FILE][:3]]
        chunks.append(
            Chunk(
                chunk_id=f"{i:032x}",
                file=f"pub{file_no % 10}/{title_words[0]}-{file_no}.md",
                publication=f"pub{file_no % 10}",
                title=" ".join(title_words).title(),
                heading=" ".join(title_words).title() + " > " + " ".join(words[:4]).title(),
                anchor="",
                url="",
                line_start=1 + (i % CHUNKS_PER_FILE) * 5,
                line_end=5 + (i % CHUNKS_PER_FILE) * 5,
                text=" ".join(words),
                is_code=i % 9 == 0,
            )
        )
    return chunks, vocab, draws


def build_bundle(out: Path, n: int) -> tuple[Path, list[Chunk], list[str]]:
    chunks, vocab, _ = make_chunks(n)
    if (out / "manifest.json").is_file():
        manifest = json.loads((out / "manifest.json").read_text())
        if manifest.get("counts", {}).get("chunks") == n and "ranking" in manifest:
            log(f"reusing {out}")
            return out, chunks, vocab
    started = time.perf_counter()
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((n, DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    by_file: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_file.setdefault(c.file, []).append(c)
    documents = [
        Document(
            path=f,
            publication=cs[0].publication,
            title=cs[0].title,
            url="",
            text="\n\n".join(c.text for c in cs) + "\n",
        )
        for f, cs in by_file.items()
    ]
    with BundleWriter(out, name="synthetic") as writer:
        writer.write_mirror(documents)
        writer.write_chunks(chunks)
        writer.write_vectors(vectors)
        t = time.perf_counter()
        writer.set_section("keyword", write_keyword_index(chunks, writer.staging))
        log(f"keyword index written in {time.perf_counter() - t:.1f} s")
        writer.set_section(
            "identifiers", write_table(synthetic_entries(100_000), [], writer.staging)
        )
        writer.set_section("ranking", write_ranking(writer.staging, synthetic_ranking()))
        model = load_embedder("hash").stage(writer.staging / "model")
        writer.commit(
            model=model,
            sources=[{"kind": "synthetic", "path": "benchmarks/search.py"}],
            counts={"documents": len(documents)},
        )
    log(f"bundle of {n} chunks built in {time.perf_counter() - started:.1f} s")
    return out, chunks, vocab


def synthetic_ranking(trees: int = 180, seed: int = 13) -> RankingModel:
    """A ranking model as large as training ever keeps: random weights and full depth-3 trees."""
    rng = np.random.default_rng(seed)
    n = len(FEATURES)
    forest = []
    for _ in range(trees):
        # a full tree of depth 3: 7 inner nodes (0-6), 8 leaves (7-14), children after parents
        feature = [int(f) for f in rng.integers(0, n, size=7)] + [-1] * 8
        left = [2 * i + 1 for i in range(7)] + [-1] * 8
        right = [2 * i + 2 for i in range(7)] + [-1] * 8
        threshold = [float(t) for t in rng.normal(size=15)]
        value = [float(v) for v in rng.normal(size=15)]
        forest.append(Tree(feature, threshold, left, right, value))
    weights = np.zeros(n)
    weights[FEATURES.index("fused")] = 5.0
    return RankingModel(np.zeros(n), np.ones(n), weights, 0.0, forest, 0.1 / 3)


def timed(fn: Callable[[], Any], repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def keyword_queries(vocab: list[str], count: int, seed: int = 3) -> list[str]:
    """2-4 word queries mixing frequent and rare words, as people type them."""
    rng = random.Random(seed)
    queries = []
    for _ in range(count):
        words = [vocab[min(VOCAB - 1, int(rng.paretovariate(0.6)) - 1)]]
        words += [vocab[rng.randrange(50, 5000)] for _ in range(rng.randint(1, 3))]
        queries.append(" ".join(words))
    return queries


OPEN_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
from atlas_core.engine import Engine
t1 = time.perf_counter()
c1 = time.process_time()
engine = Engine.open(sys.argv[1])
t_open = time.perf_counter()
engine.lookup(sys.argv[2])
t2 = time.perf_counter()
c2 = time.process_time()
rss = 0
with open("/proc/self/status") as fh:
    for line in fh:
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
print(json.dumps({
    "import_ms": (t1 - t0) * 1000,
    "open_ms": (t2 - t1) * 1000,
    "open_cpu_ms": (c2 - c1) * 1000,
    "open_bundle_ms": (t_open - t1) * 1000,
    "open_first_lookup_ms": (t2 - t_open) * 1000,
    "rss_mb": rss,
}))
"""


FIRST_HYBRID_SCRIPT = """
import json, sys, time
from atlas_core.engine import Engine
t0 = time.perf_counter()
engine = Engine.open(sys.argv[1])
if sys.argv[3] == "background":
    engine.prepare_vector_search()
engine.warm_up(("lookup", "symbols", "keyword", "chunks"))
t1 = time.perf_counter()
engine.search(sys.argv[2], mode="hybrid")
t2 = time.perf_counter()
dense = engine._parts[0].dense()
while not dense.ready:
    time.sleep(0.001)
print(json.dumps({
    "warm_ms": (t1 - t0) * 1000,
    "first_hybrid_ms": (t2 - t1) * 1000,
    "vectors_ready_ms": (time.perf_counter() - t0) * 1000 if sys.argv[3] == "background" else 0,
}))
"""


def measure_first_hybrid(bundle: Path, query: str, runs: int = 3) -> dict[str, float]:
    """The first hybrid query of a fresh process, with and without the background preparation,
    interleaved so both see the same machine."""
    seen: dict[str, list[dict[str, float]]] = {"background": [], "lazy": []}
    for _ in range(runs):
        for variant in seen:
            out = subprocess.run(
                [sys.executable, "-c", FIRST_HYBRID_SCRIPT, str(bundle), query, variant],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            seen[variant].append(json.loads(out.stdout))

    def median(variant: str, key: str) -> float:
        return round(statistics.median(r[key] for r in seen[variant]), 2)

    return {
        "first_hybrid_after_open_ms": median("background", "first_hybrid_ms"),
        "first_hybrid_lazy_ms": median("lazy", "first_hybrid_ms"),
        "vectors_ready_after_open_ms": median("background", "vectors_ready_ms"),
        "warm_up_ms": median("background", "warm_ms"),
        "warm_up_lazy_ms": median("lazy", "warm_ms"),
    }


def keyword_during_conversion(bundle: Bundle, index: KeywordIndex, queries: list[str]) -> float:
    """Median keyword query time while a fresh float32 conversion runs in the background."""
    dense = DenseIndex.open(bundle)
    dense.start_conversion()
    seen: list[float] = []
    while not dense.ready or len(seen) < 5:
        q = queries[len(seen) % len(queries)]
        seen += timed(lambda q=q: index.search(q, 10), 1)
    dense.close()
    return round(statistics.median(seen), 3)


def measure_open(bundle: Path, identifier: str, runs: int = 3) -> dict[str, float]:
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", OPEN_SCRIPT, str(bundle), identifier],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        results.append(json.loads(out.stdout))
    return {key: round(statistics.median(r[key] for r in results), 2) for key in results[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, help="keep (and reuse) the synthetic bundle here")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="atlas-bench-search-"))
    bundle_path, chunks, vocab = build_bundle(workdir / f"synthetic-{args.chunks}", args.chunks)
    results: dict[str, Any] = {"chunks": args.chunks, "dims": DIMS, "cpu_count": os.cpu_count()}

    # -- open and lookup, in a fresh process -------------------------------------------------
    entries = synthetic_entries(100_000)
    results.update(measure_open(bundle_path, entries[17].name))
    queries = keyword_queries(vocab, args.queries)
    results.update(measure_first_hybrid(bundle_path, " ".join(queries[1].split()[:4])))

    engine = Engine.open(bundle_path)
    bundle = Bundle.open(bundle_path)

    # -- keyword -----------------------------------------------------------------------------
    index = KeywordIndex.open(bundle)
    for q in queries[:5]:
        index.search(q, 10)
    kw = [t for q in queries for t in timed(lambda q=q: index.search(q, 10), 1)]
    results["keyword_p50_ms"] = round(statistics.median(kw), 3)
    results["keyword_p95_ms"] = round(p(kw, 0.95), 3)
    engine.search(queries[0], mode="keyword")
    kw_engine = [t for q in queries for t in timed(lambda q=q: engine.search(q, mode="keyword"), 1)]
    results["keyword_engine_p50_ms"] = round(statistics.median(kw_engine), 3)
    results["keyword_during_conversion_p50_ms"] = keyword_during_conversion(bundle, index, queries)

    log("building rank-bm25 BM25Okapi over the same chunks (slow) ...")
    from rank_bm25 import BM25Okapi

    t = time.perf_counter()
    okapi = BM25Okapi([tokenize(c.text) for c in chunks])
    results["rank_bm25_build_s"] = round(time.perf_counter() - t, 1)

    def okapi_query(q: str) -> np.ndarray:
        scores = okapi.get_scores(query_terms(q))
        return top_k(np.asarray(scores, dtype=np.float32), 10)

    rb = [t for q in queries[:15] for t in timed(lambda q=q: okapi_query(q), 1)]
    results["rank_bm25_p50_ms"] = round(statistics.median(rb), 3)
    results["keyword_speedup_vs_rank_bm25"] = round(
        results["rank_bm25_p50_ms"] / results["keyword_p50_ms"], 1
    )

    # -- vector ------------------------------------------------------------------------------
    dense = DenseIndex.open(bundle)
    t = time.perf_counter()
    matrix = dense.matrix()
    results["vector_convert_once_ms"] = round((time.perf_counter() - t) * 1000, 1)
    rng = np.random.default_rng(5)
    qs = rng.standard_normal((60, DIMS)).astype(np.float32)
    dense.search(qs[0], 10)
    vec = [t for q in qs for t in timed(lambda q=q: dense.search(q, 10), 1)]
    floor = timed(lambda: matrix.sum(), 30)
    results["vector_threads"] = dense.threads
    results["vector_p50_ms"] = round(statistics.median(vec), 3)
    results["bandwidth_floor_ms"] = round(statistics.median(floor), 3)
    results["vector_vs_bandwidth_floor"] = round(
        results["vector_p50_ms"] / results["bandwidth_floor_ms"], 2
    )
    single = DenseIndex(bundle.vectors(), threads=1)
    single.matrix()
    one = [t for q in qs for t in timed(lambda q=q: single.search(q, 10), 1)]
    results["vector_one_thread_p50_ms"] = round(statistics.median(one), 3)
    f16 = np.asarray(bundle.vectors())
    blocks = timed(
        lambda: [f16[s : s + 4096].astype(np.float32) @ qs[0] for s in range(0, len(f16), 4096)],
        5,
    )
    results["vector_float16_blocks_p50_ms"] = round(statistics.median(blocks), 3)
    single.close()
    dense.close()

    # -- hybrid, with and without the learned ranking, side by side ---------------------------
    hybrid_queries = [" ".join(q.split()[:4]) for q in queries[:100]]
    engine.search(hybrid_queries[0], mode="hybrid")
    fusion: list[float] = []
    learned: list[float] = []
    for q in hybrid_queries:
        engine.settings.learned = False
        fusion += timed(lambda q=q: engine.search(q, mode="hybrid"), 1)
        engine.settings.learned = True
        learned += timed(lambda q=q: engine.search(q, mode="hybrid"), 1)
    results["ranking_trees"] = len(synthetic_ranking().trees)
    results["hybrid_fusion_p50_ms"] = round(statistics.median(fusion), 3)
    results["hybrid_fusion_p95_ms"] = round(p(fusion, 0.95), 3)
    results["hybrid_learned_p50_ms"] = round(statistics.median(learned), 3)
    results["hybrid_learned_p95_ms"] = round(p(learned, 0.95), 3)
    results["ranking_adds_p95_ms"] = round(
        results["hybrid_learned_p95_ms"] - results["hybrid_fusion_p95_ms"], 3
    )

    # -- lookup and symbols ------------------------------------------------------------------
    rnd = random.Random(9)
    sample = rnd.sample(entries, 300)
    lookups = []
    for e in sample:
        lookups.append(e.name)
        if e.kind == "endpoint":
            lookups.append(f"/rest/2.0{e.path.replace('{', '<').replace('}', '>')}")
        if e.kind == "operation":
            lookups.append("".join("_" + ch.lower() if ch.isupper() else ch for ch in e.name))
    engine.lookup(lookups[0])
    lk = [t for q in lookups for t in timed(lambda q=q: engine.lookup(q), 1)]
    results["lookup_p50_ms"] = round(statistics.median(lk), 4)
    results["lookup_p95_ms"] = round(p(lk, 0.95), 4)
    sym_queries = []
    for e in sample[:100]:
        name = e.name.split()[-1] if e.kind == "endpoint" else e.name
        sym_queries.append(name[: max(3, len(name) // 2)])
    engine.symbols(sym_queries[0], 50)
    sy = [t for q in sym_queries for t in timed(lambda q=q: engine.symbols(q, 50), 1)]
    results["symbols_p50_ms"] = round(statistics.median(sy), 3)
    results["symbols_p95_ms"] = round(p(sy, 0.95), 3)
    engine.close()

    results["goals"] = {
        "keyword_p50_ms": "< 3",
        "keyword_speedup_vs_rank_bm25": ">= 100",
        "vector_vs_bandwidth_floor": "<= 2.0",
        "ranking_adds_p95_ms": "<= 3",
        "lookup_p95_ms": "< 1",
        "symbols_p95_ms": "< 15",
        "open_ms": "< 300",
        "first_hybrid_after_open_ms": "< 50",
    }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for key, value in results.items():
            print(f"{key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
