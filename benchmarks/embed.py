"""Embedding throughput: Atlas's Embedder against raw onnxruntime on the same batches, in one run.

    uv run python benchmarks/embed.py [--n 512] [--batch-size 32] [--mlx-n 64] [--json]

Texts are chunk-sized passages cut from ../shared/collibra-docs when present (ATLAS_SHARED
overrides the location), else generated. Texts are sorted by token length and cut into batches;
each batch goes through both paths, interleaved so that load from other processes hits both alike.
"raw" is the floor: the same tokenizer output fed straight to an InferenceSession with the same
thread count, then mean pooling and normalisation in numpy; "ours" is `Embedder.embed_documents`
on the same batch. Target: ours within 20% of raw. Also reports single-query latency and, when mlx imports, MLX throughput on the first
``--mlx-n`` texts (mlx[cpu] on Linux uses a reference BLAS, so expect it far below ONNX there).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.embed import load_embedder  # noqa: E402
from atlas_core.embed.backends import mlx_status  # noqa: E402
from atlas_core.embed.embedder import l2_normalize, length_batches, pool  # noqa: E402
from atlas_core.embed.onnx_backend import document_threads  # noqa: E402

CHUNK_CHARS = 900


def shared_texts(n: int) -> tuple[list[str], str]:
    shared = Path(os.environ.get("ATLAS_SHARED", ROOT.parent / "shared"))
    docs = shared / "collibra-docs" / "markdown"
    if not docs.is_dir():
        return generated_texts(n), "generated"
    texts: list[str] = []
    for path in sorted(docs.rglob("*.md")):
        body = re.sub(r"\A---\n.*?\n---\n", "", path.read_text(encoding="utf-8"), flags=re.S)
        piece = ""
        for para in re.split(r"\n\s*\n", body):
            piece = f"{piece}\n\n{para}" if piece else para
            if len(piece) >= CHUNK_CHARS:
                texts.append(piece[: CHUNK_CHARS * 2])
                piece = ""
                if len(texts) == n:
                    return texts, f"{docs} ({n} passages)"
    return (texts + generated_texts(n - len(texts))), f"{docs} + generated"


def generated_texts(n: int) -> list[str]:
    rng = random.Random(7)
    words = [
        "asset",
        "domain",
        "community",
        "relation",
        "attribute",
        "workflow",
        "import",
        "export",
        "lineage",
        "schema",
        "table",
        "column",
        "request",
        "response",
        "endpoint",
        "parameter",
        "token",
        "user",
        "role",
        "permission",
        "responsibility",
        "status",
        "type",
        "view",
        "diagram",
        "harvester",
        "catalog",
        "glossary",
        "business",
        "technical",
        "data",
        "quality",
    ]
    return [
        " ".join(rng.choice(words) for _ in range(rng.randint(20, 180))).capitalize() + "."
        for _ in range(n)
    ]


def raw_session(embedder):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = document_threads()
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        str(embedder.model_path), options, providers=["CPUExecutionProvider"]
    )
    return session, {i.name for i in session.get_inputs()}


def raw_batch(session, names: set[str], tokenizer, texts: list[str], pad_id: int) -> np.ndarray:
    """One batch with nothing of Atlas in the loop: tokenizer -> InferenceSession -> pool."""
    encodings = tokenizer.encode_batch(texts)
    width = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, enc in enumerate(encodings):
        ids[row, : len(enc.ids)] = enc.ids
        mask[row, : len(enc.ids)] = 1
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    states = session.run(["last_hidden_state"], {k: v for k, v in feed.items() if k in names})[0]
    return l2_normalize(pool(states, mask, "mean"))


def side_by_side(
    embedder, texts: list[str], batch_size: int
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Both paths over the same batches, interleaved batch by batch (alternating which goes first)
    so that load from other processes hits both alike."""
    session, names = raw_session(embedder)
    tokenizer = embedder._tokenizer  # the same truncating tokenizer, so the same token ids
    # Warm both: session creation and first-run allocation are not throughput.
    raw_batch(session, names, tokenizer, texts[:2], embedder._pad_id)
    embedder.embed_documents(texts[:2], progress=False)
    lengths = np.asarray([len(e.ids) for e in tokenizer.encode_batch(texts)])
    raw = np.empty((len(texts), embedder.info.dims), dtype=np.float32)
    ours = np.empty_like(raw)
    raw_s = ours_s = 0.0
    # The embedder's own batches (by rows and tokens), so that it embeds each one in one go.
    for n, rows in enumerate(length_batches(lengths, batch_size, embedder.batch_tokens)):
        batch = [texts[r] for r in rows]
        for which in ("raw", "ours") if n % 2 == 0 else ("ours", "raw"):
            start = time.perf_counter()
            if which == "raw":
                raw[rows] = raw_batch(session, names, tokenizer, batch, embedder._pad_id)
                raw_s += time.perf_counter() - start
            else:
                ours[rows] = embedder.embed_documents(batch, batch_size=batch_size, progress=False)
                ours_s += time.perf_counter() - start
    return raw, ours, raw_s, ours_s


def timed_embed(embedder, texts: list[str], batch_size: int) -> tuple[np.ndarray, float]:
    embedder.embed_documents(texts[:2], progress=False)  # session creation is not throughput
    start = time.perf_counter()
    vectors = embedder.embed_documents(texts, batch_size=batch_size, progress=False)
    return vectors, time.perf_counter() - start


def query_latency_ms(embedder, repeats: int = 30) -> float:
    embedder.embed_query("warm up")
    samples = []
    for i in range(repeats):
        start = time.perf_counter()
        embedder.embed_query(f"how do I create an asset in a domain {i}")
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512, help="passages to embed (default 512)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--mlx-n", type=int, default=32, help="passages for MLX (0 to skip)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    texts, origin = shared_texts(args.n)
    ours = load_embedder("default", prefer="cpu")
    tokens = [min(ours.count_tokens(t), ours.info.max_length) for t in texts]

    raw_vectors, our_vectors, raw_s, our_s = side_by_side(ours, texts, args.batch_size)
    agreement = float((raw_vectors * our_vectors).sum(axis=1).min())
    result: dict[str, object] = {
        "texts": len(texts),
        "source": origin,
        "mean_tokens": round(float(np.mean(tokens)), 1),
        "batch_size": args.batch_size,
        "threads": document_threads(),
        "raw_onnx_chunks_per_s": round(len(texts) / raw_s, 2),
        "ours_chunks_per_s": round(len(texts) / our_s, 2),
        "ours_over_raw": round(raw_s / our_s, 3),
        "min_cosine_ours_vs_raw": round(agreement, 6),
        "query_ms_median": round(query_latency_ms(ours), 2),
        "model": ours.info.name,
    }
    ok, why = mlx_status()
    if args.mlx_n > 0 and ok:
        mlx = load_embedder("default", prefer="apple")
        subset = texts[: args.mlx_n]
        mlx_vectors, mlx_s = timed_embed(mlx, subset, args.batch_size)
        result["mlx_texts"] = len(subset)
        result["mlx_chunks_per_s"] = round(len(subset) / mlx_s, 2)
        result["mlx_min_cosine_vs_ours"] = round(
            float((mlx_vectors * our_vectors[: len(subset)]).sum(axis=1).min()), 6
        )
        result["mlx_device"] = str(__import__("mlx.core").core.default_device())
    else:
        result["mlx"] = f"skipped: {why}" if not ok else "skipped: --mlx-n 0"

    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:>26}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
