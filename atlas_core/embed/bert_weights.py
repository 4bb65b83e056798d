"""Recover a BERT encoder's weights from its ONNX graph, for backends that run their own encoder.

Exporters name the parameters that keep their PyTorch name (embeddings, biases, LayerNorm) but
not the matmul weights, which are often transposed, renamed (``onnx::MatMul_123``, ``val_49``) or
stored quantized and dequantized in the graph (int8 + per-channel scale -> Cast -> Mul). So:
constant subgraphs are folded with numpy first, then each linear layer is found from its bias: the
Add that consumes ``encoder.layer.N.<module>.bias`` takes the output of the MatMul whose constant
operand is that module's weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from atlas_core.embed.model_config import ModelInfo
from atlas_core.embed.onnx_graph import Graph, Node
from atlas_core.errors import ModelError

LINEARS = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
_ONNX_TO_NUMPY = {
    1: np.float32,
    2: np.uint8,
    3: np.int8,
    6: np.int32,
    7: np.int64,
    9: np.bool_,
    10: np.float16,
    11: np.float64,
}


@dataclass(frozen=True, slots=True)
class Layer:
    linears: dict[str, tuple[np.ndarray, np.ndarray]]  # module -> (weight (in, out), bias (out,))
    attention_norm: tuple[np.ndarray, np.ndarray]
    output_norm: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True, slots=True)
class BertWeights:
    word: np.ndarray  # (vocab, hidden)
    position: np.ndarray  # (max positions, hidden)
    token_type: np.ndarray  # (types, hidden)
    embedding_norm: tuple[np.ndarray, np.ndarray]
    layers: list[Layer]
    num_heads: int
    eps: float
    gelu_approx: bool  # tanh approximation instead of erf

    @property
    def hidden(self) -> int:
        return int(self.word.shape[1])


def fold_constants(graph: Graph) -> dict[str, np.ndarray]:
    """Initializers plus every node output computable from them alone (dequantisation chains)."""
    values: dict[str, np.ndarray] = dict(graph.initializers)
    for node in graph.nodes:
        if node.op_type == "Constant" and "value" in node.attributes:
            values[node.outputs[0]] = np.asarray(node.attributes["value"])
            continue
        inputs = [name for name in node.inputs if name]
        if not inputs or not all(name in values for name in inputs):
            continue
        result = _fold(node, [values[name] for name in inputs])
        if result is not None:
            values[node.outputs[0]] = result
    return values


def _fold(node: Node, args: list[np.ndarray]) -> np.ndarray | None:
    op = node.op_type
    if op == "Identity":
        return args[0]
    if op == "Cast":
        dtype = _ONNX_TO_NUMPY.get(int(node.attributes.get("to", 0)))
        return None if dtype is None else args[0].astype(dtype)
    if op == "Mul":
        return args[0] * args[1]
    if op == "Add":
        return args[0] + args[1]
    if op == "Sub":
        return args[0] - args[1]
    if op == "Div":
        return args[0] / args[1]
    if op == "Transpose":
        perm = node.attributes.get("perm") or None
        return np.transpose(args[0], perm)
    if op == "DequantizeLinear":
        x, scale = args[0], args[1].astype(np.float32)
        zero = args[2] if len(args) > 2 else np.zeros((), dtype=x.dtype)
        if scale.ndim == 1 and scale.size > 1:
            axis = int(node.attributes.get("axis", 1)) % x.ndim
            shape = [1] * x.ndim
            shape[axis] = -1
            scale, zero = scale.reshape(shape), zero.reshape(shape)
        return (x.astype(np.float32) - zero.astype(np.float32)) * scale
    return None


def extract_bert_weights(graph: Graph, info: ModelInfo, path: Path) -> BertWeights:
    def fail(what: str) -> ModelError:
        return ModelError(
            f"the MLX backend cannot read {path} as a BERT encoder: {what}",
            hint="use --prefer cpu (ONNX Runtime runs any graph), or export a standard "
            "Hugging Face BERT-family encoder",
            path=str(path),
        )

    values = fold_constants(graph)
    suffix = "embeddings.word_embeddings.weight"
    prefix = next((name[: -len(suffix)] for name in values if name.endswith(suffix)), None)
    if prefix is None:
        raise fail(f"no '{suffix}' tensor")

    def const(name: str) -> np.ndarray:
        if name not in values:
            raise fail(f"no tensor named {name!r}")
        return np.asarray(values[name], dtype=np.float32)

    producers = {out: node for node in graph.nodes for out in node.outputs}
    consumers: dict[str, list[Node]] = {}
    for node in graph.nodes:
        for name in node.inputs:
            consumers.setdefault(name, []).append(node)

    def linear(module: str) -> tuple[np.ndarray, np.ndarray]:
        bias_name = f"{prefix}{module}.bias"
        bias = const(bias_name)
        weight_name = f"{prefix}{module}.weight"
        if weight_name in values:  # kept as a torch Linear weight, (out, in)
            return np.ascontiguousarray(const(weight_name).T), bias
        for add in consumers.get(bias_name, []):
            if add.op_type != "Add":
                continue
            other = next((name for name in add.inputs if name != bias_name), None)
            matmul = producers.get(other or "")
            if matmul is not None and matmul.op_type == "MatMul":
                operand = next((name for name in matmul.inputs[1:] if name in values), None)
                if operand is not None:
                    return np.ascontiguousarray(const(operand)), bias
        raise fail(f"no MatMul with a constant weight feeds the Add of {bias_name!r}")

    def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
        return const(f"{prefix}{name}.weight"), const(f"{prefix}{name}.bias")

    layers = []
    while f"{prefix}encoder.layer.{len(layers)}.attention.output.LayerNorm.weight" in values:
        base = f"encoder.layer.{len(layers)}."
        layers.append(
            Layer(
                linears={module: linear(base + module) for module in LINEARS},
                attention_norm=norm(base + "attention.output.LayerNorm"),
                output_norm=norm(base + "output.LayerNorm"),
            )
        )
    if not layers:
        raise fail("no encoder.layer.0 tensors")
    word = const(f"{prefix}embeddings.word_embeddings.weight")
    hidden = word.shape[1]
    type_name = f"{prefix}embeddings.token_type_embeddings.weight"
    token_type = const(type_name) if type_name in values else np.zeros((1, hidden), np.float32)
    num_heads = info.num_heads or _infer_heads(graph, values, consumers, prefix, hidden)
    if hidden % num_heads:
        raise fail(f"hidden size {hidden} is not divisible by {num_heads} heads")
    eps = next(
        (
            float(n.attributes.get("epsilon", 1e-5))
            for n in graph.nodes
            if n.op_type == "LayerNormalization"
        ),
        1e-12,
    )
    ops = {node.op_type for node in graph.nodes}
    return BertWeights(
        word=word,
        position=const(f"{prefix}embeddings.position_embeddings.weight"),
        token_type=token_type,
        embedding_norm=norm("embeddings.LayerNorm"),
        layers=layers,
        num_heads=num_heads,
        eps=eps,
        gelu_approx="Erf" not in ops and "Tanh" in ops,
    )


def _infer_heads(
    graph: Graph,
    values: dict[str, np.ndarray],
    consumers: dict[str, list[Node]],
    prefix: str,
    hidden: int,
) -> int:
    """Heads from the Reshape that splits the first query projection into (..., heads, head_dim)."""
    producers = {out: node for node in graph.nodes for out in node.outputs}
    bias_name = f"{prefix}encoder.layer.0.attention.self.query.bias"
    for add in consumers.get(bias_name, []):
        for reshape in consumers.get(add.outputs[0], []):
            if reshape.op_type != "Reshape" or len(reshape.inputs) < 2:
                continue
            head_dim = _last_shape_entry(reshape.inputs[1], values, producers)
            if head_dim and head_dim > 0 and hidden % head_dim == 0:
                return hidden // head_dim
    # BERT-base and most of its descendants use 64-wide heads.
    return max(1, hidden // 64)


def _last_shape_entry(name: str, values: dict[str, Any], producers: dict[str, Node]) -> int | None:
    if name in values:
        shape = np.asarray(values[name]).reshape(-1)
        return int(shape[-1]) if shape.size else None
    node = producers.get(name)
    if node is not None and node.op_type == "Concat" and node.inputs:
        return _last_shape_entry(node.inputs[-1], values, producers)
    return None
