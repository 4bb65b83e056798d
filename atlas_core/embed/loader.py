"""Turn a model spec ("default", "hash", a directory) into a ready `Embedder` on a resolved backend."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from atlas_core.embed.backends import choose_backend
from atlas_core.embed.embedder import Embedder, TransformerEmbedder
from atlas_core.embed.hashing import HashEmbedder
from atlas_core.embed.model_config import (
    CONFIG_FILE,
    MODEL_FILE,
    TOKENIZER_FILE,
    ModelInfo,
    default_info,
    default_model_files,
    read_model_config,
)
from atlas_core.errors import BackendUnavailable, ModelError

log = logging.getLogger(__name__)

_SPEC_HINT = (
    f"--model takes 'default', 'hash' or a directory holding {MODEL_FILE}, {TOKENIZER_FILE} "
    f"and {CONFIG_FILE}"
)


def load_embedder(spec: str | Path = "default", prefer: str | None = None) -> Embedder:
    """An embedder for ``spec``: "default", "hash" or a model directory.

    ``prefer`` ("auto", "apple", "nvidia", "cpu" or None) picks the backend; see
    `atlas_core.embed.backends` (the entry point passes the ``embed_backend`` setting).
    """
    if isinstance(spec, str) and spec == "hash":
        return HashEmbedder()
    if isinstance(spec, str) and spec == "default":
        model, tokenizer, sha256 = default_model_files()
        return _transformer(default_info(), model, tokenizer, prefer, expected_sha256=sha256)
    if isinstance(spec, str) and not spec.strip():
        raise ModelError("empty model spec", hint=_SPEC_HINT)
    return load_model_dir(Path(spec).expanduser(), prefer)


def load_bundle_embedder(model_dir: Path, prefer: str | None = None) -> Embedder:
    """The embedder a bundle was built with, from its ``model/`` folder (see `Embedder.stage`)."""
    return load_model_dir(Path(model_dir), prefer)


def load_model_dir(model_dir: Path, prefer: str | None = None) -> Embedder:
    if not model_dir.exists():
        raise ModelError(
            f"model directory {model_dir} does not exist", hint=_SPEC_HINT, path=str(model_dir)
        )
    if not model_dir.is_dir():
        raise ModelError(
            f"model spec {model_dir} is not a directory", hint=_SPEC_HINT, path=str(model_dir)
        )
    info = read_model_config(model_dir)
    if info.kind == "hash":
        return HashEmbedder(info)
    for name in (MODEL_FILE, TOKENIZER_FILE):
        path = model_dir / name
        if not path.is_file():
            raise ModelError(
                f"model directory {model_dir} has no {name}",
                hint=f"copy the model's {name} into {model_dir}",
                path=str(path),
            )
        if path.stat().st_size == 0:
            raise ModelError(f"{path} is empty", hint=f"copy {name} again", path=str(path))
    return _transformer(info, model_dir / MODEL_FILE, model_dir / TOKENIZER_FILE, prefer)


def _transformer(
    info: ModelInfo,
    model: Path,
    tokenizer: Path,
    prefer: str | None,
    expected_sha256: str | None = None,
) -> Embedder:
    backend, reason, explicit = choose_backend(prefer)
    try:
        runner = _runner(backend, info, model)
    except (BackendUnavailable, ModelError) as exc:
        # onnxruntime-gpu lists CUDA even when its libraries are missing, and the MLX encoder
        # reads only standard BERT graphs. Asked for by name, that is an error; under auto, ONNX
        # Runtime on CPU (which runs any graph) takes over.
        if explicit or backend == "onnx-cpu":
            raise
        backend, reason = "onnx-cpu", f"{reason}; but {backend} failed ({exc.message}), so CPU"
        log.warning("embedding backend: %s (%s)", backend, reason)
        runner = _runner(backend, info, model)
    return TransformerEmbedder(
        info,
        model,
        tokenizer,
        runner,
        backend,
        reason,
        expected_sha256=expected_sha256,
    )


def _runner(backend: str, info: ModelInfo, model: Path) -> Any:
    if backend == "mlx":
        from atlas_core.embed.mlx_backend import MlxRunner

        return MlxRunner(model, info)
    from atlas_core.embed.onnx_backend import OnnxRunner

    return OnnxRunner(model, info.output, device="cuda" if backend == "onnx-cuda" else "cpu")
