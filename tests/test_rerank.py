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
from atlas_core.rerank import load_reranker
from tests.search_fixtures import build_search_bundle

onnx = pytest.importorskip("onnx")

ROOT = Path(__file__).resolve().parent.parent
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


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_search_bundle(tmp_path_factory.mktemp("rerank-bundle") / "tiny")


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


def test_explicit_mlx_request_names_the_limit(cross_encoder: Path) -> None:
    with pytest.raises(BackendUnavailable, match="ONNX Runtime only"):
        load_reranker(cross_encoder, prefer="apple")


def test_cli_rerank_uses_env_directory(tiny: Path, cross_encoder: Path) -> None:
    env = {**os.environ, "ATLAS_RERANKER": str(cross_encoder)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "atlas_core",
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
