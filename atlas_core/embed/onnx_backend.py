"""ONNX Runtime runner, on CPU or with CUDAExecutionProvider. onnxruntime is imported here only.

On CPU a single query runs as fast with one intra-op thread as with two, and one thread leaves the
other cores to the editor; batched document embedding gains from every core (measured 1.6x with 2
threads on a 2-core machine at batch 32 x 200 tokens). So queries and documents get separate
sessions, each created on first use: a search server only ever builds the one-thread session.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from atlas_core.errors import BackendUnavailable, ModelError

log = logging.getLogger(__name__)

CUDA_PROVIDER = "CUDAExecutionProvider"
_KNOWN_INPUTS = ("input_ids", "attention_mask", "token_type_ids", "position_ids")
_MAX_DOCUMENT_THREADS = 8


def document_threads() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity API
        cores = os.cpu_count() or 1
    return max(1, min(cores, _MAX_DOCUMENT_THREADS))


def import_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        from atlas_core.embed.backends import cpu_fix

        raise BackendUnavailable("onnxruntime is not installed", hint=cpu_fix()) from exc
    return onnxruntime


class OnnxRunner:
    def __init__(
        self, model_path: Path, output: str, device: str = "cpu", *, memory_pattern: bool = False
    ) -> None:
        self.model_path = model_path
        self.output = output
        self.device = device
        # ONNX Runtime plans a memory pattern for each input shape it sees and keeps it; batches
        # bounded by tokens come in many shapes, so the documents session plans none (the memory
        # arena stays: with bounded batches it stops growing at the largest, and without it the
        # same build peaked ~100 MB higher). True restores ONNX Runtime's defaults, as Atlas ran
        # before (benchmarks/build.py compares).
        self.memory_pattern = memory_pattern
        self._sessions: dict[str, Any] = {}
        self._lock = threading.Lock()
        if device == "cuda":
            # Created now: onnxruntime-gpu silently falls back to CPU when the CUDA libraries are
            # missing, and the caller must learn that before it reports the backend.
            self._session("documents")

    @property
    def providers(self) -> list[str]:
        session = next(iter(self._sessions.values()), None)
        return list(session.get_providers()) if session is not None else []

    def run(
        self,
        input_ids: np.ndarray,
        attention_mask: np.ndarray,
        token_type_ids: np.ndarray,
        purpose: str,
    ) -> np.ndarray:
        session, inputs = self._session(purpose)
        available = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "token_type_ids": token_type_ids,
        }
        feed: dict[str, np.ndarray] = {}
        for name, dtype in inputs:
            if name == "position_ids":
                value = np.broadcast_to(
                    np.arange(input_ids.shape[1], dtype=np.int64), input_ids.shape
                )
            else:
                value = available[name]
            feed[name] = np.ascontiguousarray(value, dtype=dtype)
        return session.run([self.output], feed)[0]

    def session_options(self, purpose: str) -> Any:
        """The options ONNX Runtime runs ``purpose``'s session with (creating it if need be)."""
        session, _ = self._session(purpose)
        return session.get_session_options()

    def close(self) -> None:
        with self._lock:
            self._sessions.clear()

    def _session(self, purpose: str) -> tuple[Any, list[tuple[str, Any]]]:
        key = "documents" if self.device == "cuda" else purpose
        with self._lock:
            cached = self._sessions.get(key)
            if cached is None:
                cached = self._sessions[key] = self._create(key)
            return cached

    def _create(self, purpose: str) -> tuple[Any, list[tuple[str, Any]]]:
        ort = import_onnxruntime()
        options = ort.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1 if purpose == "query" else document_threads()
        options.log_severity_level = 3
        if purpose == "documents" and not self.memory_pattern:
            options.enable_mem_pattern = False
        if self.device == "cuda":
            providers = [CUDA_PROVIDER, "CPUExecutionProvider"]
        else:
            providers = ["CPUExecutionProvider"]
        try:
            session = ort.InferenceSession(str(self.model_path), options, providers=providers)
        except Exception as exc:  # onnxruntime raises its own pybind exception types
            raise ModelError(
                f"onnxruntime cannot load {self.model_path}: {str(exc).strip().splitlines()[0]}",
                hint="the file is not a usable ONNX model; copy or export model.onnx again",
                path=str(self.model_path),
            ) from exc
        if self.device == "cuda" and CUDA_PROVIDER not in session.get_providers():
            raise BackendUnavailable(
                "onnxruntime lists CUDAExecutionProvider but could not start it "
                "(CUDA or cuDNN libraries missing or no GPU visible)",
                hint="install the CUDA 12 runtime and cuDNN 9 that onnxruntime-gpu needs, "
                "or use --prefer cpu",
            )
        inputs = []
        for spec in session.get_inputs():
            if spec.name not in _KNOWN_INPUTS:
                raise ModelError(
                    f"{self.model_path} declares an input {spec.name!r} that Atlas cannot feed",
                    hint="export the encoder with inputs input_ids, attention_mask and optionally "
                    "token_type_ids / position_ids",
                    path=str(self.model_path),
                )
            inputs.append((spec.name, np.int32 if spec.type == "tensor(int32)" else np.int64))
        if "input_ids" not in {name for name, _ in inputs}:
            raise ModelError(
                f"{self.model_path} has no input named 'input_ids'",
                hint="export the encoder with the standard Hugging Face input names",
                path=str(self.model_path),
            )
        outputs = [o.name for o in session.get_outputs()]
        if self.output not in outputs:
            raise ModelError(
                f"{self.model_path} has no output {self.output!r} (it has {', '.join(outputs)})",
                hint="set 'output' in atlas_model.json to the token-states output",
                path=str(self.model_path),
            )
        log.debug(
            "onnxruntime session for %s: %s, %d threads, providers %s",
            purpose,
            self.model_path,
            options.intra_op_num_threads,
            session.get_providers(),
        )
        return session, inputs
