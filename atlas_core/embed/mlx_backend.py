"""The MLX backend: a BERT encoder written with mlx that runs the weights of the ONNX file.

The weights come from the same ``model.onnx`` ONNX Runtime uses (read by `onnx_graph`, dequantized
by `bert_weights`), so a bundle ships one model file for every backend. On Apple silicon it runs on
the GPU; ``mlx[cpu]`` runs it on Linux, which is how its parity with ONNX Runtime is tested.
"""

from __future__ import annotations

import logging
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np

from atlas_core.embed.backends import mlx_fix
from atlas_core.embed.bert_weights import BertWeights, extract_bert_weights
from atlas_core.embed.model_config import ModelInfo
from atlas_core.embed.onnx_graph import read_graph
from atlas_core.errors import BackendUnavailable

log = logging.getLogger(__name__)


def _import_mlx() -> Any:
    try:
        import mlx.core as mx
    except Exception as exc:
        raise BackendUnavailable(f"mlx cannot be imported: {exc}", hint=mlx_fix()) from exc
    return mx


class MlxRunner:
    def __init__(self, model_path: Path, info: ModelInfo) -> None:
        self._mx = mx = _import_mlx()
        weights = extract_bert_weights(read_graph(model_path), info, model_path)
        self._config = weights
        self._lock = threading.Lock()

        def array(value: np.ndarray) -> Any:
            return mx.array(np.ascontiguousarray(value, dtype=np.float32))

        self._word = array(weights.word)
        self._position = array(weights.position)
        self._token_type = array(weights.token_type)
        self._embedding_norm = tuple(array(v) for v in weights.embedding_norm)
        self._layers = [
            {
                "linears": {k: (array(w), array(b)) for k, (w, b) in layer.linears.items()},
                "attention_norm": tuple(array(v) for v in layer.attention_norm),
                "output_norm": tuple(array(v) for v in layer.output_norm),
            }
            for layer in weights.layers
        ]
        mx.eval(self._word, self._position, self._token_type, [*self._embedding_norm])
        log.debug(
            "mlx BERT from %s: %d layers, %d heads, hidden %d, device %s",
            model_path,
            len(self._layers),
            weights.num_heads,
            weights.hidden,
            mx.default_device(),
        )

    @property
    def weights(self) -> BertWeights:
        return self._config

    def run(
        self,
        input_ids: np.ndarray,
        attention_mask: np.ndarray,
        token_type_ids: np.ndarray,
        purpose: str,
    ) -> np.ndarray:
        mx = self._mx
        with self._lock:
            ids = mx.array(input_ids.astype(np.int32))
            types = mx.array(token_type_ids.astype(np.int32))
            mask = mx.array(attention_mask.astype(np.bool_))
            states = self._forward(ids, types, mask)
            mx.eval(states)
            return np.array(states)

    def close(self) -> None:
        # The weights are plain arrays that go with the runner; there is no session to end.
        pass

    def _forward(self, ids: Any, types: Any, mask: Any) -> Any:
        mx = self._mx
        cfg = self._config
        batch, length = ids.shape
        heads = cfg.num_heads
        head_dim = cfg.hidden // heads
        scale = 1.0 / math.sqrt(head_dim)
        x = self._word[ids] + self._position[:length][None] + self._token_type[types]
        x = mx.fast.layer_norm(x, *self._embedding_norm, cfg.eps)
        # Boolean key mask broadcast over heads and query positions.
        attend = mask[:, None, None, :]
        for layer in self._layers:
            lin = layer["linears"]

            def project(h: Any, module: str, lin: dict[str, Any] = lin) -> Any:
                weight, bias = lin[module]
                return mx.addmm(bias, h, weight)

            def split(h: Any) -> Any:
                return h.reshape(batch, length, heads, head_dim).transpose(0, 2, 1, 3)

            q = split(project(x, "attention.self.query"))
            k = split(project(x, "attention.self.key"))
            v = split(project(x, "attention.self.value"))
            context = mx.fast.scaled_dot_product_attention(q, k, v, scale=scale, mask=attend)
            context = context.transpose(0, 2, 1, 3).reshape(batch, length, cfg.hidden)
            x = mx.fast.layer_norm(
                x + project(context, "attention.output.dense"), *layer["attention_norm"], cfg.eps
            )
            inner = _gelu(mx, project(x, "intermediate.dense"), cfg.gelu_approx)
            x = mx.fast.layer_norm(
                x + project(inner, "output.dense"), *layer["output_norm"], cfg.eps
            )
        return x


def _gelu(mx: Any, x: Any, approx: bool) -> Any:
    if approx:
        return 0.5 * x * (1.0 + mx.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1.0 + mx.erf(x / math.sqrt(2.0)))
