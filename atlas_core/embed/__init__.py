"""Text embedding for Atlas: one `Embedder` interface over ONNX Runtime (CPU, CUDA), MLX and a hash
test embedder.

    load_embedder("default")            all-MiniLM-L6-v2 int8 from the installed packages
    load_embedder("hash")               deterministic test embedder, never chosen unless asked
    load_embedder("/path/to/model")     model.onnx + tokenizer.json + atlas_model.json
    load_bundle_embedder(bundle/"model") the model a bundle was built with

Importing this package imports neither onnxruntime nor mlx; they load when a model does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core import lazy_exports

if TYPE_CHECKING:
    from atlas_core.embed.backends import gpu_fix, is_apple_silicon, mlx_status
    from atlas_core.embed.bert_weights import fold_constants
    from atlas_core.embed.mlx_backend import MlxRunner
    from atlas_core.embed.onnx_graph import read_graph

from atlas_core.embed.backends import BackendProbe, probe_backends, resolve_backend
from atlas_core.embed.embedder import Embedder
from atlas_core.embed.loader import load_bundle_embedder, load_embedder
from atlas_core.embed.model_config import ModelInfo

__all__ = [
    "BackendProbe",
    "Embedder",
    "MlxRunner",
    "ModelInfo",
    "fold_constants",
    "gpu_fix",
    "is_apple_silicon",
    "load_bundle_embedder",
    "load_embedder",
    "mlx_status",
    "probe_backends",
    "read_graph",
    "resolve_backend",
]

# Loaded on first use, so importing the face stays as cheap as it was.
_EXPORTS = {
    "is_apple_silicon": "backends",
    "mlx_status": "backends",
    "fold_constants": "bert_weights",
    "MlxRunner": "mlx_backend",
    "read_graph": "onnx_graph",
    "gpu_fix": "backends",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
