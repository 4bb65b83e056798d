"""Embedding own code against embedding the docs, with the same model on the same machine in one run.

    uv run python benchmarks/embed_code_vs_docs.py [--code DIR] [--docs DIR] [--n 200] [--json]

Chunks are made the way a build makes them: the docs (``../shared/collibra-docs`` as a mirror
source, or `--docs`) with the markdown chunker, the code (`--code`, default this repository's
``atlas_core``, loaded as an `atlas index` code source) by definition with the code chunker
(`chunk_code_documents`: the same token budget `atlas index` uses). The first `--n` chunks of each,
in file order, are embedded with the default model in batches that alternate between the two, so
load from other processes hits both alike. Reported per side: chunks, chunks/s, tokens per chunk
(as the model counts them, cut at its window) and tokens/s; `code_vs_docs_chunks_per_s` is the
ratio the issue asks for ("embedding code faster ... chunks/s against the docs build").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_core.embed import load_embedder  # noqa: E402
from atlas_core.markdown import chunk_documents  # noqa: E402
from atlas_core.sources import chunk_code_documents, load_source  # noqa: E402

BATCH = 16


def _docs_texts(docs: Path, embedder: Any, n: int) -> list[str]:
    documents, _ = load_source("mirror", str(docs))
    prose = [d for d in documents if not d.language]
    chunks = chunk_documents(
        prose, count_tokens=embedder.count_tokens, max_tokens=embedder.info.max_length
    )
    return [c.embed_text or c.text for c in chunks[:n]]


def _code_texts(code: Path, embedder: Any, n: int) -> list[str]:
    documents, _ = load_source("code", str(code))
    chunks, _ = chunk_code_documents(
        [d for d in documents if d.language],
        count_tokens=embedder.count_tokens,
        max_tokens=embedder.info.max_length,
    )
    return [c.embed_text or c.text for c in chunks[:n]]


def measure(code: Path, docs: Path, n: int) -> dict[str, Any]:
    embedder = load_embedder("default", prefer="cpu")
    sides = {"docs": _docs_texts(docs, embedder, n), "code": _code_texts(code, embedder, n)}
    seconds = {name: 0.0 for name in sides}
    embedder.embed_documents(sides["docs"][:BATCH], progress=False)  # warm the session
    longest = max(len(texts) for texts in sides.values())
    for start in range(0, longest, BATCH):
        for name, texts in sides.items():
            batch = texts[start : start + BATCH]
            if batch:
                began = time.perf_counter()
                embedder.embed_documents(batch, progress=False)
                seconds[name] += time.perf_counter() - began
    window = embedder.info.max_length
    out: dict[str, Any] = {"model": embedder.info.name, "n": n, "cpus": os.cpu_count()}
    for name, texts in sides.items():
        tokens = sum(min(embedder.count_tokens(t), window) for t in texts)
        out[f"{name}_chunks"] = len(texts)
        out[f"{name}_chunks_per_s"] = round(len(texts) / seconds[name], 2)
        out[f"{name}_tokens_per_chunk"] = round(tokens / max(1, len(texts)), 1)
        out[f"{name}_tokens_per_s"] = round(tokens / seconds[name], 1)
    out["code_vs_docs_chunks_per_s"] = round(out["code_chunks_per_s"] / out["docs_chunks_per_s"], 2)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(os.environ.get("ATLAS_SHARED", ROOT.parent / "shared"))
    parser.add_argument("--code", type=Path, default=ROOT / "atlas_core")
    parser.add_argument("--docs", type=Path, default=shared / "collibra-docs")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.docs.is_dir():
        print(f"no docs mirror at {args.docs}: pass --docs DIR", file=sys.stderr)
        return 2
    report = measure(args.code, args.docs, args.n)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key, value in report.items():
            print(f"{key:28} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
