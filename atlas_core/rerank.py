"""Opt-in reranking of the top search candidates with an ONNX cross-encoder.

No cross-encoder ships on PyPI, so none is bundled: the user points Atlas at any directory holding

    model.onnx         a graph taking input_ids and attention_mask (token_type_ids when it declares
                       them), int64 (batch, seq), returning one relevance logit per pair as
                       (batch,), (batch, 1) or (batch, 2) (the last column is "relevant")
    tokenizer.json     a Hugging Face `tokenizers` file; pairs are encoded as (query, passage)
    atlas_reranker.json  optional: {"max_length": 512, "name": "...", "activation": "none"}

(``ATLAS_RERANKER=DIR`` or ``[rerank] model = "DIR"``). A cross-encoder reads query and passage
together, so it is slower than retrieval and only re-scores the top few dozen candidates.

The ONNX Runtime session runs with one intra-op thread (a query's batch is small; the other core
stays with the editor), with CUDA when it is offered and not declined. An MLX path would need the
encoder weights outside ONNX; asking for ``apple`` explicitly raises `BackendUnavailable`.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from atlas_core.errors import BackendUnavailable, ModelError

log = logging.getLogger(__name__)

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "atlas_reranker.json"
DEFAULT_MAX_LENGTH = 512
BATCH = 16


class Reranker:
    """Scores (query, passage) pairs; higher is more relevant."""

    def __init__(self, directory: Path, session: Any, tokenizer: Any, config: dict[str, Any]):
        self.directory = directory
        self.name = str(config.get("name") or directory.name)
        self.activation = str(config.get("activation", "none"))
        self._session = session
        self._tokenizer = tokenizer
        self._inputs = {i.name for i in session.get_inputs()}
        self._lock = threading.Lock()
        self.backend = (
            "onnx-cuda" if "CUDAExecutionProvider" in session.get_providers() else "onnx-cpu"
        )

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        """float32 (len(passages),): one relevance score per passage."""
        out = np.empty(len(passages), dtype=np.float32)
        for start in range(0, len(passages), BATCH):
            batch = passages[start : start + BATCH]
            out[start : start + len(batch)] = self._score_batch(query, batch)
        if self.activation == "sigmoid":
            out = 1.0 / (1.0 + np.exp(-out))
        return out

    def _score_batch(self, query: str, passages: list[str]) -> np.ndarray:
        with self._lock:  # a tokenizer with padding enabled is not safe to share across threads
            encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        feed: dict[str, np.ndarray] = {
            "input_ids": ids,
            "attention_mask": np.asarray([e.attention_mask for e in encodings], dtype=np.int64),
        }
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.asarray([e.type_ids for e in encodings], dtype=np.int64)
        feed = {k: v for k, v in feed.items() if k in self._inputs}
        logits = np.asarray(self._session.run(None, feed)[0], dtype=np.float32)
        if logits.ndim == 2:
            logits = logits[:, -1]
        return logits.reshape(len(passages))

    def close(self) -> None:
        self._session = None


def load_reranker(directory: str | Path, prefer: str | None = None) -> Reranker:
    """Open a cross-encoder directory; ModelError naming the missing file when it is incomplete."""
    directory = Path(directory).expanduser()
    for name in (MODEL_FILE, TOKENIZER_FILE):
        if not (directory / name).is_file():
            raise ModelError(
                f"reranker directory {directory} has no {name}",
                hint="point ATLAS_RERANKER (or [rerank] model) at a folder with model.onnx and "
                "tokenizer.json",
                path=str(directory / name),
            )
    config: dict[str, Any] = {}
    if (directory / CONFIG_FILE).is_file():
        try:
            config = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelError(
                f"{directory / CONFIG_FILE} is not valid JSON: {exc}",
                hint="fix or remove the file",
                path=str(directory / CONFIG_FILE),
            ) from exc
    choice = (prefer or "auto").lower()
    if choice in ("apple", "mlx"):
        raise BackendUnavailable(
            "reranking runs on ONNX Runtime only; the MLX backend has no cross-encoder path",
            hint="drop the apple/mlx preference for reranking (use auto or cpu)",
        )
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise BackendUnavailable(
            f"reranking needs {exc.name}", hint="pip install onnxruntime tokenizers"
        ) from exc

    tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
    max_length = int(config.get("max_length", DEFAULT_MAX_LENGTH))
    tokenizer.enable_truncation(max_length=max_length, strategy="only_second")
    tokenizer.enable_padding()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    providers = ["CPUExecutionProvider"]
    if choice in ("auto", "nvidia", "cuda") and "CUDAExecutionProvider" in (
        ort.get_available_providers()
    ):
        providers.insert(0, "CUDAExecutionProvider")
    elif choice in ("nvidia", "cuda"):
        raise BackendUnavailable(
            "reranking on CUDA asked for, but onnxruntime offers no CUDAExecutionProvider",
            hint="pip install 'atlas-docs[gpu]', or use --prefer cpu",
        )
    try:
        session = ort.InferenceSession(str(directory / MODEL_FILE), options, providers=providers)
    except Exception as exc:  # onnxruntime raises its own exception types for a bad graph
        raise ModelError(
            f"cannot load reranker {directory / MODEL_FILE}: {exc}",
            hint="the file must be an ONNX cross-encoder graph",
            path=str(directory / MODEL_FILE),
        ) from exc
    names = {i.name for i in session.get_inputs()}
    if not {"input_ids", "attention_mask"} <= names:
        raise ModelError(
            f"reranker {directory / MODEL_FILE} takes inputs {sorted(names)}",
            hint="a cross-encoder graph takes input_ids and attention_mask",
            path=str(directory / MODEL_FILE),
        )
    reranker = Reranker(directory, session, tokenizer, config)
    log.info("reranker %s loaded (%s)", reranker.name, reranker.backend)
    return reranker
