"""Text embedding for Atlas: one `Embedder` interface over ONNX Runtime (CPU, CUDA), MLX and a hash
test embedder.

    load_embedder("default")            all-MiniLM-L6-v2 int8 from the installed packages
    load_embedder("hash")               deterministic test embedder, never chosen unless asked
    load_embedder("/path/to/model")     model.onnx + tokenizer.json + atlas_model.json
    load_bundle_embedder(bundle/"model") the model a bundle was built with

Importing this package imports neither onnxruntime nor mlx; they load when a model does.
"""

from __future__ import annotations

from atlas_core.embed.embedder import Embedder
from atlas_core.embed.loader import load_bundle_embedder, load_embedder
from atlas_core.embed.model_config import ModelInfo
from atlas_core.embed.resolve import BackendProbe, probe_backends, resolve_backend

__all__ = [
    "BackendProbe",
    "Embedder",
    "ModelInfo",
    "load_bundle_embedder",
    "load_embedder",
    "probe_backends",
    "resolve_backend",
]
