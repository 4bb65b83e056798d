"""Reranking with an ONNX cross-encoder directory; the tests build a tiny one themselves.

The tiny model is a real ONNX graph run by onnxruntime: each token has a fixed weight and a pair's
score is the sum of its tokens' weights. No cross-encoder is published on PyPI, so this stands in
for one; it exercises the same loading, tokenising, batching and re-ordering code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from atlas_core.engine import Engine
from atlas_core.errors import BackendUnavailable, ModelError
from atlas_core.search.rerank import load_reranker

onnx = pytest.importorskip("onnx")

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "widget", "thirty", "cookie", "minutes"]
WEIGHTS = {"thirty": 10.0, "cookie": 1.0}


def build_cross_encoder(directory: Path) -> Path:
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    directory.mkdir(parents=True, exist_ok=True)
    vocab = {w: i for i, w in enumerate(WORDS)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    tokenizer.save(str(directory / "tokenizer.json"))

    weights = np.array([[WEIGHTS.get(w, 0.0)] for w in WORDS], dtype=np.float32)
    nodes = [
        helper.make_node("Gather", ["W", "input_ids"], ["gathered"], axis=0),
        helper.make_node("Squeeze", ["gathered", "axis2"], ["per_token"]),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["per_token", "mask"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axis1"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(weights, "W"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(directory / "model.onnx"))
    (directory / "atlas_reranker.json").write_text(json.dumps({"name": "tiny", "max_length": 64}))
    return directory


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_cross_encoder(tmp_path_factory.mktemp("rerank") / "tiny-ce")


def test_scores_follow_the_model(cross_encoder: Path) -> None:
    reranker = load_reranker(cross_encoder)
    assert reranker.name == "tiny" and reranker.backend in ("onnx-cpu", "onnx-cuda")
    passages = ["a cookie", "thirty minutes thirty", "nothing here", "Cookie THIRTY"] * 5
    scores = reranker.score("widget", passages)
    assert scores.shape == (20,)
    assert scores[:4].tolist() == [1.0, 20.0, 0.0, 11.0]
    assert reranker.score("thirty", ["x"])[0] == 10.0  # the query side counts too


def test_engine_reorders_as_the_model_dictates(tiny: Path, cross_encoder: Path) -> None:
    with Engine.open(tiny, reranker=cross_encoder) as engine:
        plain = engine.search("widget", mode="hybrid", top_k=5)
        reranked = engine.search("widget", mode="hybrid", top_k=5, rerank=True)
    assert plain[0].heading != "Authentication > Session cookies"
    assert reranked[0].heading == "Authentication > Session cookies"
    assert reranked[0].score == pytest.approx(11.0)  # "thirty" once (10) + "cookie" once (1)
    assert [h.rank for h in reranked] == [1, 2, 3, 4, 5]
    assert all(h.score <= reranked[0].score for h in reranked)


def test_missing_files_and_unconfigured_rerank(tmp_path: Path, tiny: Path) -> None:
    with pytest.raises(ModelError, match=r"no model\.onnx"):
        load_reranker(tmp_path)
    with Engine.open(tiny) as engine, pytest.raises(ModelError, match="no cross-encoder"):
        engine.search("widget", rerank=True)


def test_mlx_refuses_a_graph_without_a_bert_classifier(cross_encoder: Path) -> None:
    pytest.importorskip("mlx.core")
    with pytest.raises(BackendUnavailable, match="'classifier' head") as info:
        load_reranker(cross_encoder, prefer="apple")
    assert "--prefer cpu" in (info.value.hint or "")


def build_bert_cross_encoder(directory: Path) -> Path:
    """The default MiniLM encoder with a pooler and a classifier head added, as a Hugging Face
    ...ForSequenceClassification export would have them (random head weights, fixed seed)."""
    from onnx import TensorProto, helper, numpy_helper

    from atlas_core.embed.model_config import default_model_files

    model_path, tokenizer_path, _ = default_model_files()
    directory.mkdir(parents=True, exist_ok=True)
    model = onnx.load(str(model_path))
    graph = model.graph
    hidden = 384
    rng = np.random.default_rng(3)
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.array(0, dtype=np.int64), "cls_index"),
            numpy_helper.from_array(
                rng.normal(0, 0.1, (hidden, hidden)).astype(np.float32), "pooler_w"
            ),
            numpy_helper.from_array(
                rng.normal(0, 0.1, hidden).astype(np.float32), "inner.pooler.dense.bias"
            ),
            numpy_helper.from_array(rng.normal(0, 1.0, (hidden, 1)).astype(np.float32), "cls_w"),
            numpy_helper.from_array(np.array([0.25], dtype=np.float32), "classifier.bias"),
        ]
    )
    graph.node.extend(
        [
            helper.make_node("Gather", ["last_hidden_state", "cls_index"], ["cls"], axis=1),
            helper.make_node("MatMul", ["cls", "pooler_w"], ["pooled_mm"]),
            helper.make_node("Add", ["pooled_mm", "inner.pooler.dense.bias"], ["pooled_add"]),
            helper.make_node("Tanh", ["pooled_add"], ["pooled"]),
            helper.make_node("MatMul", ["pooled", "cls_w"], ["logits_mm"]),
            helper.make_node("Add", ["logits_mm", "classifier.bias"], ["logits"]),
        ]
    )
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1]))
    onnx.save(model, str(directory / "model.onnx"))
    (directory / "tokenizer.json").write_bytes(tokenizer_path.read_bytes())
    (directory / "atlas_reranker.json").write_text(json.dumps({"max_length": 128}))
    return directory


def test_mlx_cross_encoder_matches_onnx_runtime(tmp_path: Path) -> None:
    pytest.importorskip("mlx.core")
    directory = build_bert_cross_encoder(tmp_path / "minilm-ce")
    passages = [
        "Assets are created with a POST request that names the domain and the type.",
        "A session cookie expires after thirty minutes without activity.",
        "Workflows run Groovy scripts with beans for the asset being changed.",
        "x",
    ]
    onnx_scores = load_reranker(directory, prefer="cpu").score("how to add an asset", passages)
    mlx = load_reranker(directory, prefer="apple")
    assert mlx.backend == "mlx"
    mlx_scores = mlx.score("how to add an asset", passages)
    assert np.ptp(onnx_scores) > 0.1  # the head tells the passages apart
    np.testing.assert_allclose(mlx_scores, onnx_scores, atol=0.05 * np.ptp(onnx_scores))
    assert np.argsort(mlx_scores).tolist() == np.argsort(onnx_scores).tolist()


def test_cli_rerank_uses_env_directory(tiny: Path, cross_encoder: Path) -> None:
    env = {**os.environ, "ATLAS_RERANKER": str(cross_encoder)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "atlas_ls.cli",
            "search",
            "widget",
            "--bundle",
            str(tiny),
            "--rerank",
            "--top-k",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    hits = json.loads(out.stdout)
    assert hits[0]["heading"] == "Authentication > Session cookies"
