"""Build benchmark: the real Collibra docs with the default model, and opening a 100,000-chunk bundle.

    uv run python benchmarks/build.py [--json] [--shared DIR] [--sample N] [--open-chunks N] [--limit N]

1. Builds ../shared/collibra-docs plus both OpenAPI specs with the default model in a child process
   and reports documents, chunks, wall time, chunks/s and the child's peak RSS; `ranking_s` is
   the part spent training the learned ranking and `ranking_adds` its share of the rest of the
   build (goal <= 0.20), `ranking_file_share` what ranking.json adds to the bundle's bytes.
   The same build runs again the way Atlas embedded before it bounded batches by tokens (32 texts
   a batch, ONNX Runtime's default session options) in the same run, and once more on half the
   documents: `chunks_per_s_vs_count_batches` (goal >= 0.95), `peak_rss_vs_count_batches`, and
   `peak_rss_mb` (goal < 600) against `peak_rss_mb_half_corpus` (flat: about equal).
2. Embeds a sample of the built chunks twice on the same batches: through Atlas's embedder and
   through a bare onnxruntime session (same model file, tokenizer, truncation, batches, session
   options and thread count), and reports both throughputs and their ratio.
3. Writes a synthetic bundle with N chunks (default 100,000) and reports how long `Bundle.open`
   takes (page cache warm: the files were just written), the first memory map and the chunk table.

Takes minutes on a 2-core machine. Run it once; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _shared_dir(arg: str | None) -> Path:
    path = Path(arg or os.environ.get("ATLAS_SHARED", ROOT.parent / "shared"))
    if not (path / "collibra-docs" / "markdown").is_dir():
        sys.exit(f"benchmarks/build.py: {path}/collibra-docs is absent; pass --shared DIR")
    return path


def _sources(shared: Path) -> list[str]:
    return [
        f"mirror={shared / 'collibra-docs'}",
        f"openapi={shared / 'collibra-openapi' / 'dgc-rest.json'}",
        f"openapi={shared / 'collibra-openapi' / 'dgc-importer-rest.json'}",
    ]


def _count_batches_embedder() -> Any:
    """The default model embedding as Atlas did before token-bounded batches: 32 texts a batch
    whatever their length, ONNX Runtime's default session options."""
    from atlas_core.embed.embedder import TransformerEmbedder
    from atlas_core.embed.model_config import default_info, default_model_files
    from atlas_core.embed.onnx_backend import OnnxRunner

    info = default_info()
    model, tokenizer, sha256 = default_model_files()
    runner = OnnxRunner(model, info.output, memory_pattern=True)
    return TransformerEmbedder(
        info, model, tokenizer, runner, "onnx-cpu", "count batches", sha256, batch_tokens=None
    )


def _child_build(mode: str, limit: str, output: str, sources: list[str]) -> None:
    """Runs in the child: one build, its report and this process's peak RSS as JSON on stdout."""
    from atlas_core.build import build_bundle

    embedder = _count_batches_embedder() if mode == "count" else None
    report = build_bundle(
        sources,
        Path(output),
        model="default",
        progress=True,
        limit=int(limit) or None,
        embedder=embedder,
    )
    if embedder is not None:
        embedder.close()
    # Linux reports ru_maxrss in KiB.
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({**report.as_dict(), "peak_rss_kib": peak_kib}))


def bench_build(
    shared: Path, workdir: Path, mode: str = "tokens", limit: int = 0
) -> dict[str, Any]:
    """One build in a child process; ``mode`` "count" embeds as Atlas did before token batches,
    ``limit`` keeps that many documents (0: all)."""
    output = workdir / f"collibra-{mode}-{limit}"
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child-build",
            mode,
            str(limit),
            str(output),
            *_sources(shared),
        ],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    peak_kib = report["peak_rss_kib"]
    return {
        "documents": report["documents"],
        "chunks": report["chunks"],
        "wall_s": round(wall, 2),
        "build_s": report["seconds"],
        "chunks_per_s": round(report["chunks"] / wall, 2),
        "embed_s": report["embed_seconds"],
        # Training the ranking, inside the same build: its share of the rest of the build.
        "ranking": report["ranking"],
        "ranking_s": report["ranking_seconds"],
        "ranking_adds": round(report["ranking_seconds"] / (wall - report["ranking_seconds"]), 3),
        "embedded_per_s": report["embedded_per_s"],
        "peak_rss_mb": round(peak_kib / 1024, 1),
        "backend": report["backend"],
        "model": report["model"],
        "files": report["files"],
        "size_mb": round(report["size"] / 2**20, 1),
        "ranking_file_share": round(
            (Path(output) / "ranking.json").stat().st_size / report["size"]
            if (Path(output) / "ranking.json").is_file()
            else 0.0,
            4,
        ),
        "output": str(output),
    }


def _raw_onnx(
    model_dir: Path, texts: list[str], batch_size: int, threads: int
) -> tuple[Any, float]:
    """The same computation as the embedder, written directly against onnxruntime."""
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from atlas_core.embed.embedder import BATCH_TOKENS, length_batches

    config = json.loads((model_dir / "atlas_model.json").read_text())
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=int(config["max_length"]))
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.enable_mem_pattern = False  # as Atlas's documents session
    session = ort.InferenceSession(
        str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
    )
    names = {i.name for i in session.get_inputs()}
    prefix = config.get("document_prefix", "")
    started = time.perf_counter()
    encodings = tokenizer.encode_batch([prefix + t for t in texts])
    lengths = np.array([len(e.ids) for e in encodings])
    out = np.empty((len(texts), int(config["dims"])), dtype=np.float32)
    for rows in length_batches(lengths, batch_size, BATCH_TOKENS):
        width = max(len(encodings[i].ids) for i in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for r, i in enumerate(rows):
            n = len(encodings[i].ids)
            ids[r, :n] = encodings[i].ids
            mask[r, :n] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        states = session.run(None, feed)[0]
        m = mask[..., None].astype(np.float32)
        pooled = (states * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out, time.perf_counter() - started


def bench_embed(bundle_dir: Path, sample: int, batch_size: int = 32) -> dict[str, Any]:
    import numpy as np

    from atlas_core.bundle import Bundle
    from atlas_core.embed import load_bundle_embedder
    from atlas_core.embed.onnx_backend import document_threads

    bundle = Bundle.open(bundle_dir)
    texts = bundle.chunks().column("embed_text").to_pylist()
    step = max(1, len(texts) // sample)
    texts = texts[::step][:sample]
    threads = document_threads()
    with load_bundle_embedder(bundle.model_dir, prefer="cpu") as embedder:
        embedder.embed_documents(texts[:batch_size], batch_size=batch_size, progress=False)  # warm
        started = time.perf_counter()
        ours = embedder.embed_documents(texts, batch_size=batch_size, progress=False)
        ours_s = time.perf_counter() - started
        backend = embedder.backend
    _raw_onnx(bundle.model_dir, texts[:batch_size], batch_size, threads)  # warm
    raw, raw_s = _raw_onnx(bundle.model_dir, texts, batch_size, threads)
    cosine = (ours * raw).sum(axis=1)
    return {
        "sample": len(texts),
        "batch_size": batch_size,
        "threads": threads,
        "backend": backend,
        "atlas_chunks_per_s": round(len(texts) / ours_s, 2),
        "raw_onnxruntime_chunks_per_s": round(len(texts) / raw_s, 2),
        "atlas_vs_raw": round(raw_s / ours_s, 3),
        "min_cosine_atlas_vs_raw": round(float(np.min(cosine)), 5),
    }


def _synthetic_bundle(output: Path, n_chunks: int, dims: int = 384) -> Path:
    import numpy as np

    from atlas_core.bundle import BundleWriter
    from atlas_core.types import Chunk, Document

    n_files = max(1, n_chunks // 100)
    body = "Synthetic paragraph about assets, domains and workflows. " * 8
    documents = [
        Document(
            path=f"section-{i % 20}/page-{i}.md",
            publication=f"section-{i % 20}",
            title=f"Page {i}",
            url="",
            text=f"# Page {i}\n\n" + "\n\n".join(f"## Part {j}\n\n{body}" for j in range(100)),
        )
        for i in range(n_files)
    ]
    chunks = [
        Chunk(
            chunk_id=f"{k:016x}",
            file=documents[k // 100].path,
            publication=documents[k // 100].publication,
            title=documents[k // 100].title,
            heading=f"Page {k // 100} > Part {k % 100}",
            anchor=f"part-{k % 100}",
            url="",
            line_start=3 + 4 * (k % 100),
            line_end=5 + 4 * (k % 100),
            text=body,
            embed_text=body,
            token_count=80,
        )
        for k in range(n_files * 100)
    ]
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((len(chunks), dims), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with BundleWriter(output, name="synthetic") as writer:
        (writer.staging / "model").mkdir()
        (writer.staging / "model" / "atlas_model.json").write_text('{"name": "synthetic"}\n')
        writer.write_mirror(documents)
        writer.write_chunks(chunks)
        writer.write_vectors(vectors)
        return writer.commit(
            model={"name": "synthetic", "kind": "hash", "dims": dims},
            sources=[{"kind": "local", "path": "synthetic"}],
            counts={"documents": len(documents)},
        )


def bench_open(workdir: Path, n_chunks: int) -> dict[str, Any]:
    from atlas_core.bundle import Bundle, verify_bundle

    started = time.perf_counter()
    path = _synthetic_bundle(workdir / "synthetic", n_chunks)
    write_s = time.perf_counter() - started
    timings = []
    for _ in range(7):
        t0 = time.perf_counter()
        bundle = Bundle.open(path)
        timings.append((time.perf_counter() - t0) * 1000)
    t0 = time.perf_counter()
    vectors = bundle.vectors()
    _ = float(vectors[-1, 0])  # touch one page
    mmap_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    table = bundle.chunks()
    chunks_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    problems = verify_bundle(path)
    verify_s = time.perf_counter() - t0
    return {
        "chunks": bundle.chunk_count,
        "files": len(bundle.files),
        "size_mb": round(bundle.size / 2**20, 1),
        "write_s": round(write_s, 2),
        "open_ms_median": round(statistics.median(timings), 2),
        "open_ms_max": round(max(timings), 2),
        "vectors_mmap_ms": round(mmap_ms, 2),
        "chunk_table_read_ms": round(chunks_ms, 1),
        "chunk_table_rows": table.num_rows,
        "verify_s": round(verify_s, 2),
        "verify_ok": problems == [],
        "page_cache": "warm (just written)",
    }


def main() -> int:
    if len(sys.argv) > 4 and sys.argv[1] == "--child-build":
        _child_build(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--shared", help="directory holding collibra-docs/ and collibra-openapi/")
    parser.add_argument("--sample", type=int, default=384, help="chunks for the embed comparison")
    parser.add_argument("--open-chunks", type=int, default=100_000)
    parser.add_argument("--skip-build", action="store_true", help="only the open benchmark")
    parser.add_argument(
        "--limit", type=int, default=0, help="build only the first N documents (a quick run)"
    )
    args = parser.parse_args()

    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    }
    with tempfile.TemporaryDirectory(prefix="atlas-bench-build-") as tmp:
        workdir = Path(tmp)
        if not args.skip_build:
            shared = _shared_dir(args.shared)
            # The configuration before token batches first, so neither build finds the other's
            # files in the page cache only because it ran second.
            before = bench_build(shared, workdir, mode="count", limit=args.limit)
            build = results["build"] = bench_build(shared, workdir, limit=args.limit)
            half = bench_build(shared, workdir, limit=max(1, build["documents"] // 2))
            results["build_count_batches"] = before
            results["build_half_corpus"] = half
            results["chunks_per_s"] = build["chunks_per_s"]
            results["peak_rss_mb"] = build["peak_rss_mb"]
            results["chunks_per_s_vs_count_batches"] = round(
                build["chunks_per_s"] / before["chunks_per_s"], 3
            )
            results["peak_rss_vs_count_batches"] = round(
                build["peak_rss_mb"] / before["peak_rss_mb"], 3
            )
            results["peak_rss_mb_half_corpus"] = half["peak_rss_mb"]
            results["peak_rss_full_vs_half_corpus"] = round(
                build["peak_rss_mb"] / half["peak_rss_mb"], 3
            )
            results["embed_vs_raw_onnxruntime"] = bench_embed(Path(build["output"]), args.sample)
            for section in (build, before, half):
                del section["output"]
        results["open"] = bench_open(workdir, args.open_chunks)

    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for section, values in results.items():
            if not isinstance(values, dict):
                print(f"{section:34} {values}")
                continue
            print(f"[{section}]")
            for key, value in values.items():
                print(f"  {key:32} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
