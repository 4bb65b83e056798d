"""Opt-in reranking of the top search candidates with a cross-encoder.

No cross-encoder ships on PyPI, so none is bundled: the user points Atlas at any directory holding

    model.onnx           a graph taking input_ids and attention_mask (token_type_ids when it declares
                         them), int64 (batch, seq), returning one relevance logit per pair as
                         (batch,), (batch, 1) or (batch, 2) (the last column is "relevant")
    tokenizer.json       a Hugging Face `tokenizers` file; pairs are encoded as (query, passage)
    atlas_reranker.json  optional: {"name": "...", "max_length": 512, "activation": "none",
                         "num_heads": 12}

(``ATLAS_RERANKER=DIR`` or ``[rerank] model = "DIR"``). A cross-encoder reads query and passage
together, so it is slower than retrieval and only re-scores the top few dozen candidates.

Backends, resolved like the embedder's: ONNX Runtime runs any such graph (one intra-op thread, CUDA
when offered); MLX runs a BERT-family cross-encoder (a Hugging Face ``...ForSequenceClassification``
export: encoder, optional ``pooler.dense`` + tanh on [CLS], then ``classifier``) by reusing the
embedding part's MLX BERT over the same ONNX file's weights. ``auto`` picks MLX on Apple silicon
when the graph has that shape, else ONNX Runtime.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from atlas_core.errors import BackendUnavailable, ModelError

log = logging.getLogger(__name__)

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "atlas_reranker.json"
DEFAULT_MAX_LENGTH = 512
BATCH = 16
_BACKENDS = {"auto": "auto", "cpu": "cpu", "onnx": "cpu", "nvidia": "cuda", "cuda": "cuda"}
_BACKENDS |= {"apple": "mlx", "mlx": "mlx"}


class _Scorer(Protocol):
    backend: str

    def run(self, feed: dict[str, np.ndarray]) -> np.ndarray: ...


class Reranker:
    """Scores (query, passage) pairs; higher is more relevant."""

    def __init__(self, directory: Path, scorer: _Scorer, tokenizer: Any, config: dict[str, Any]):
        self.directory = directory
        self.name = str(config.get("name") or directory.name)
        self.activation = str(config.get("activation", "none"))
        self.backend = scorer.backend
        self._scorer: _Scorer | None = scorer
        self._tokenizer = tokenizer
        self._lock = threading.Lock()

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
        if self._scorer is None:
            raise ModelError(f"reranker {self.name} is closed")
        with self._lock:  # a tokenizer with padding enabled is not safe to share across threads
            encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        feed = {
            "input_ids": np.asarray([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.asarray([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.asarray([e.type_ids for e in encodings], dtype=np.int64),
        }
        logits = np.asarray(self._scorer.run(feed), dtype=np.float32)
        if logits.ndim == 2:
            logits = logits[:, -1]
        return logits.reshape(len(passages))

    def close(self) -> None:
        self._scorer = None


class _OnnxScorer:
    def __init__(self, model: Path, device: str) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise BackendUnavailable(
                "reranking needs onnxruntime", hint="pip install onnxruntime"
            ) from exc
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.log_severity_level = 3
        providers = ["CPUExecutionProvider"]
        offered = ort.get_available_providers()
        if device in ("auto", "cuda") and "CUDAExecutionProvider" in offered:
            providers.insert(0, "CUDAExecutionProvider")
        elif device == "cuda":
            from atlas_core.embed import gpu_fix

            raise BackendUnavailable(
                "reranking on CUDA asked for, but onnxruntime offers no CUDAExecutionProvider",
                hint=f"{gpu_fix()}, or use --prefer cpu",
            )
        try:
            self._session = ort.InferenceSession(str(model), options, providers=providers)
        except Exception as exc:  # onnxruntime raises its own exception types for a bad graph
            raise ModelError(
                f"cannot load reranker {model}: {exc}",
                hint="the file must be an ONNX cross-encoder graph",
                path=str(model),
            ) from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise ModelError(
                f"reranker {model} takes inputs {sorted(self._inputs)}",
                hint="a cross-encoder graph takes input_ids and attention_mask",
                path=str(model),
            )
        gpu = "CUDAExecutionProvider" in self._session.get_providers()
        self.backend = "onnx-cuda" if gpu else "onnx-cpu"

    def run(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        logits = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        # onnxruntime types an output as any of its kinds (sparse, sequence, map); a
        # cross-encoder's logits are a dense tensor, which asarray returns as it is.
        return np.asarray(logits)


class _MlxScorer:
    """The embedding part's MLX BERT encoder plus the classification head read from the graph."""

    backend = "mlx"

    def __init__(self, model: Path, config: dict[str, Any]) -> None:
        from atlas_core.embed import MlxRunner, ModelInfo, fold_constants, read_graph

        graph = read_graph(model)
        self._pooler, self._classifier = _classification_head(graph, fold_constants(graph), model)
        hidden = self._classifier[0].shape[0]
        info = ModelInfo(
            name=str(config.get("name") or model.parent.name),
            dims=hidden,
            pooling="cls",
            normalize=False,
            max_length=int(config.get("max_length", DEFAULT_MAX_LENGTH)),
            num_heads=config.get("num_heads"),
        )
        self._runner = MlxRunner(model, info)

    def run(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        states = self._runner.run(
            feed["input_ids"], feed["attention_mask"], feed["token_type_ids"], "query"
        )
        x = np.asarray(states[:, 0, :], dtype=np.float32)
        if self._pooler is not None:
            weight, bias = self._pooler
            x = np.tanh(x @ weight + bias)
        weight, bias = self._classifier
        return x @ weight + bias


def _classification_head(
    graph: Any, values: dict[str, np.ndarray], path: Path
) -> tuple[tuple[np.ndarray, np.ndarray] | None, tuple[np.ndarray, np.ndarray]]:
    """(pooler, classifier) as (weight (in, out), bias) pairs; the pooler may be absent."""
    suffix = "embeddings.word_embeddings.weight"
    prefix = next((n[: -len(suffix)] for n in values if n.endswith(suffix)), "")
    consumers: dict[str, list[Any]] = {}
    producers = {out: node for node in graph.nodes for out in node.outputs}
    for node in graph.nodes:
        for name in node.inputs:
            consumers.setdefault(name, []).append(node)

    def linear(module: str) -> tuple[np.ndarray, np.ndarray] | None:
        bias_name = f"{module}.bias"
        if bias_name not in values:
            return None
        bias = np.asarray(values[bias_name], dtype=np.float32)
        if f"{module}.weight" in values:  # torch Linear layout (out, in)
            return np.ascontiguousarray(np.asarray(values[f"{module}.weight"], np.float32).T), bias
        for node in consumers.get(bias_name, []):
            if node.op_type == "Gemm" and len(node.inputs) > 2 and node.inputs[1] in values:
                weight = np.asarray(values[node.inputs[1]], dtype=np.float32)
                return (weight.T if node.attributes.get("transB") else weight), bias
            if node.op_type == "Add":
                other = next((n for n in node.inputs if n != bias_name), "")
                matmul = producers.get(other)
                if matmul is not None and matmul.op_type == "MatMul":
                    operand = next((n for n in matmul.inputs[1:] if n in values), None)
                    if operand is not None:
                        return np.asarray(values[operand], dtype=np.float32), bias
        return None

    classifier = linear(f"{prefix}classifier") or linear("classifier")
    if classifier is None:
        raise BackendUnavailable(
            f"the MLX reranker cannot find a 'classifier' head in {path}",
            hint="use --prefer cpu (ONNX Runtime runs any cross-encoder graph), or export a "
            "Hugging Face BERT-family ...ForSequenceClassification model",
        )
    pooler = linear(f"{prefix}pooler.dense") or linear("pooler.dense")
    return pooler, classifier


def load_reranker(directory: str | Path, prefer: str | None = None) -> Reranker:
    """Open a cross-encoder directory; ModelError naming the missing file when it is incomplete.

    `prefer`: ``auto`` (default), ``cpu``, ``nvidia`` (ONNX Runtime + CUDA) or ``apple`` (MLX).
    """
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
    choice = _BACKENDS.get((prefer or "auto").lower())
    if choice is None:
        raise ModelError(
            f"unknown reranking backend {prefer!r}", hint="use auto, cpu, nvidia or apple"
        )
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise BackendUnavailable(
            "reranking needs tokenizers", hint="pip install tokenizers"
        ) from exc
    tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
    tokenizer.enable_truncation(
        max_length=int(config.get("max_length", DEFAULT_MAX_LENGTH)), strategy="only_second"
    )
    tokenizer.enable_padding()

    scorer: _Scorer
    if choice == "mlx" or (choice == "auto" and _apple_silicon()):
        try:
            scorer = _MlxScorer(directory / MODEL_FILE, config)
        except (BackendUnavailable, ModelError) as exc:
            if choice == "mlx":
                raise
            log.info("MLX cannot run reranker %s (%s); using ONNX Runtime", directory, exc)
            scorer = _OnnxScorer(directory / MODEL_FILE, "auto")
    else:
        scorer = _OnnxScorer(directory / MODEL_FILE, choice)
    reranker = Reranker(directory, scorer, tokenizer, config)
    log.info("reranker %s loaded (%s)", reranker.name, reranker.backend)
    return reranker


def _apple_silicon() -> bool:
    from atlas_core.embed import is_apple_silicon, mlx_status

    return is_apple_silicon() and mlx_status()[0]
