"""Embedding backends: resolution order and overrides, the MLX encoder's parity with ONNX Runtime,
and the ONNX file reader the MLX backend relies on."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from atlas_core.config import load_settings
from atlas_core.console.installation import installation
from atlas_core.embed import load_bundle_embedder, load_embedder, probe_backends, resolve_backend
from atlas_core.embed.backends import cuda_status, is_apple_silicon, mlx_status
from atlas_core.embed.model_config import default_model_files
from atlas_core.errors import BackendUnavailable, ConfigError, ModelError

MLX_OK, MLX_WHY = mlx_status()
CUDA_OK, _ = cuda_status()
needs_mlx = pytest.mark.skipif(not MLX_OK, reason=f"mlx cannot be imported here: {MLX_WHY}")
no_cuda = pytest.mark.skipif(CUDA_OK, reason="CUDA is available here; this checks its absence")

TEXTS = [
    "Send a POST request to create an asset in a domain.",
    "A workflow definition is deployed from the settings page.",
    "Query the GraphQL endpoint for assets and their relations.",
    "Tiny.",
    "The import API accepts a JSON file with communities, domains, assets and relations. " * 2,
    "word " * 300,  # longer than max_length: both backends must cut at the same place
]


def resolved(prefer: str | None = None) -> tuple[str, str]:
    """The backend the entry points pass down: the setting, with the flag as `prefer`."""
    settings = load_settings({"embed_backend": prefer})
    return resolve_backend(settings.embed_backend, str(settings.origin("embed_backend")))


def write_config(path: Path, prefer: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"[backend]\nprefer = {json.dumps(prefer)}\n", encoding="utf-8")


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "atlas.toml"
    monkeypatch.setenv("ATLAS_CONFIG", str(path))
    return path


# --- resolution ------------------------------------------------------------------------------


@pytest.mark.skipif(is_apple_silicon(), reason="auto picks MLX on Apple silicon")
@no_cuda
def test_auto_is_cpu_without_apple_silicon_or_cuda(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="atlas_core.embed.backends"):
        name, reason = resolve_backend()
    assert name == "onnx-cpu"
    assert reason.startswith("auto") and "not Apple silicon" in reason
    assert f"embedding backend: onnx-cpu ({reason})" in caplog.text


def test_flag_beats_env_beats_config(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(config_file, "nvidia")
    monkeypatch.setenv("ATLAS_EMBED_BACKEND", "cpu")
    assert resolved() == ("onnx-cpu", "cpu requested by ATLAS_EMBED_BACKEND")
    if MLX_OK:
        name, reason = resolved("apple")
        assert (name, reason) == ("mlx", "apple requested by --prefer")
    monkeypatch.delenv("ATLAS_EMBED_BACKEND")
    # Now the config file speaks: nvidia, which is missing here unless CUDA is present.
    if CUDA_OK:
        assert resolved()[0] == "onnx-cuda"
    else:
        with pytest.raises(BackendUnavailable) as excinfo:
            resolved()
        assert str(config_file) in str(excinfo.value)
        assert installation().add_extra("gpu") in (excinfo.value.hint or "")


def test_config_file_selects_backend(config_file: Path) -> None:
    write_config(config_file, "cpu")
    name, reason = resolved()
    assert name == "onnx-cpu"
    assert "[backend] prefer" in reason and str(config_file) in reason


def test_explicit_auto_overrides_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATLAS_EMBED_BACKEND", "nvidia")
    name, reason = resolved("auto")
    assert reason.startswith("auto")
    assert name in {"onnx-cpu", "onnx-cuda", "mlx"}


@no_cuda
def test_nvidia_without_cuda_names_the_gpu_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for prefer in ("nvidia", None):
        if prefer is None:
            monkeypatch.setenv("ATLAS_EMBED_BACKEND", "cuda")
        with pytest.raises(BackendUnavailable) as excinfo:
            load_embedder("default", prefer=load_settings({"embed_backend": prefer}).embed_backend)
        assert "nvidia" in str(excinfo.value)
        # the command for this install (here a uv project: `uv sync --extra gpu`)
        assert installation().add_extra("gpu") in (excinfo.value.hint or "")


def test_apple_with_broken_mlx_names_the_mlx_extra(tmp_path: Path) -> None:
    # mlx cannot be uninstalled for one test, so a package that shadows it and fails to import
    # stands in for a missing or broken install; the check runs in a subprocess.
    shadow = tmp_path / "shadow" / "mlx"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no mlx in this test')\n")
    script = (
        "from atlas_core.embed import load_embedder\n"
        "from atlas_core.errors import BackendUnavailable\n"
        "try:\n"
        "    load_embedder('default', prefer='apple')\n"
        "except BackendUnavailable as exc:\n"
        "    print(exc.one_line())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "apple (MLX)" in result.stdout
    assert installation().add_extra("mlx") in result.stdout


@pytest.mark.parametrize("where", ["flag", "env", "config"])
def test_unknown_backend_value_is_a_config_error(
    where: str, config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefer = None
    if where == "flag":
        prefer = "tpu"
    elif where == "env":
        monkeypatch.setenv("ATLAS_EMBED_BACKEND", "tpu")
    else:
        write_config(config_file, "tpu")
    with pytest.raises(ConfigError) as excinfo:
        resolved(prefer)
    assert "'tpu'" in str(excinfo.value)
    assert "auto, apple, nvidia, cpu" in (excinfo.value.hint or "")


def test_hash_embedder_ignores_backend_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATLAS_EMBED_BACKEND", "nvidia")
    embedder = load_embedder("hash", prefer="nvidia")
    assert embedder.backend == "hash"


def test_probe_backends_reports_each_backend() -> None:
    probes = {probe.name: probe for probe in probe_backends()}
    assert set(probes) == {"mlx", "onnx-cuda", "onnx-cpu"}
    assert probes["onnx-cpu"].available and probes["onnx-cpu"].fix == ""
    assert probes["mlx"].available == MLX_OK
    assert probes["onnx-cuda"].available == CUDA_OK
    for probe in probes.values():
        assert probe.reason
        install = installation()  # the fix is a command for this install, not always pip
        fixes = {
            "mlx": install.add_extra("mlx"),
            "onnx-cuda": install.add_extra("gpu"),
            "onnx-cpu": install.repair("onnxruntime"),
        }
        if not probe.available:
            assert probe.fix.startswith(fixes[probe.name])


def test_importing_embed_loads_no_runtime() -> None:
    script = (
        "import sys, atlas_core.embed\n"
        "print(sorted(m for m in ('onnxruntime', 'mlx', 'tokenizers', 'onnx') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]"


# --- MLX ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def onnx_cpu():
    return load_embedder("default", prefer="cpu")


@needs_mlx
def test_mlx_matches_onnx(onnx_cpu) -> None:
    mlx = load_embedder("default", prefer="apple")
    assert mlx.backend == "mlx" and mlx.info == onnx_cpu.info
    # mlx[cpu] on Linux multiplies with a reference BLAS: the long text goes alone so that no
    # short text is padded to 256 tokens, the rest go in padded batches of two.
    a = np.vstack(
        [
            mlx.embed_documents(TEXTS[:-1], batch_size=2, progress=False),
            mlx.embed_documents(TEXTS[-1:], progress=False),
        ]
    )
    b = onnx_cpu.embed_documents(TEXTS, batch_size=2, progress=False)
    cosines = (a * b).sum(axis=1)
    assert cosines.min() >= 0.999, cosines
    assert float(mlx.embed_query(TEXTS[0]) @ onnx_cpu.embed_query(TEXTS[0])) >= 0.999
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)


@needs_mlx
def test_mlx_runs_a_staged_cls_model(tmp_path: Path) -> None:
    model, tokenizer, _ = default_model_files()
    model_dir = tmp_path / "cls"
    model_dir.mkdir()
    shutil.copyfile(model, model_dir / "model.onnx")
    shutil.copyfile(tokenizer, model_dir / "tokenizer.json")
    # No num_heads: the MLX backend infers it from the graph.
    config = {"name": "cls", "pooling": "cls", "max_length": 64, "dims": 384, "query_prefix": "q: "}
    (model_dir / "atlas_model.json").write_text(json.dumps(config))
    cpu = load_embedder(str(model_dir), prefer="cpu")
    cpu.stage(tmp_path / "bundle" / "model")
    mlx = load_bundle_embedder(tmp_path / "bundle" / "model", prefer="apple")
    assert mlx.backend == "mlx"
    assert float(mlx.embed_query(TEXTS[1]) @ cpu.embed_query(TEXTS[1])) >= 0.999
    a = mlx.embed_documents(TEXTS[:4], progress=False)
    b = cpu.embed_documents(TEXTS[:4], progress=False)
    assert (a * b).sum(axis=1).min() >= 0.999


@needs_mlx
def test_mlx_refuses_a_graph_that_is_not_bert(tmp_path: Path) -> None:
    model_dir = tmp_path / "notbert"
    model_dir.mkdir()
    _, tokenizer, _ = default_model_files()
    shutil.copyfile(tokenizer, model_dir / "tokenizer.json")
    (model_dir / "atlas_model.json").write_text(
        json.dumps({"name": "x", "pooling": "mean", "max_length": 16, "dims": 4})
    )
    # A valid protobuf ModelProto with an empty graph (field 7, length 0).
    (model_dir / "model.onnx").write_bytes(b"\x08\x07\x3a\x00")
    with pytest.raises(ModelError) as excinfo:
        load_embedder(str(model_dir), prefer="apple")
    assert "MLX backend" in str(excinfo.value) and "--prefer cpu" in (excinfo.value.hint or "")


# --- the ONNX reader ---------------------------------------------------------------------------


def test_onnx_reader_matches_the_onnx_package() -> None:
    onnx = pytest.importorskip("onnx", reason="the onnx package (dev dependency) is not installed")
    from onnx import numpy_helper

    from atlas_core.embed.onnx_graph import read_graph

    model_path, _, _ = default_model_files()
    ours = read_graph(model_path)
    reference = onnx.load(str(model_path))
    assert ours.outputs == [o.name for o in reference.graph.output]
    assert ours.inputs == ["input_ids", "attention_mask", "token_type_ids"]
    assert len(ours.initializers) == len(reference.graph.initializer)
    for tensor in reference.graph.initializer:
        expected = numpy_helper.to_array(tensor)
        got = ours.initializers[tensor.name]
        assert got.dtype == expected.dtype and got.shape == expected.shape, tensor.name
        assert np.array_equal(got, expected), tensor.name
    assert [(n.op_type, n.inputs, n.outputs) for n in ours.nodes] == [
        (n.op_type, list(n.input), list(n.output)) for n in reference.graph.node
    ]


def test_onnx_reader_rejects_garbage(tmp_path: Path) -> None:
    from atlas_core.embed.onnx_graph import read_graph

    path = tmp_path / "model.onnx"
    path.write_bytes(b"\xff\xff\xff")
    with pytest.raises(ModelError, match=r"model\.onnx"):
        read_graph(path)


def _length_delimited_field(number: int, payload: bytes) -> bytes:
    assert len(payload) < 128  # one-byte length keeps the hand-made protobuf readable
    return bytes([number << 3 | 2, len(payload)]) + payload


@pytest.mark.parametrize(
    "node",
    [
        # NodeProto.op_type (a string) sent as the varint 3
        b"\x20\x03",
        # an AttributeProto whose `i` (an int64) is sent as one byte of bytes
        _length_delimited_field(5, _length_delimited_field(1, b"a") + b"\x1a\x01\x00"),
    ],
    ids=["string-as-varint", "int-as-bytes"],
)
def test_onnx_reader_rejects_a_field_of_the_wrong_wire_type(tmp_path: Path, node: bytes) -> None:
    from atlas_core.embed.onnx_graph import read_graph

    path = tmp_path / "model.onnx"
    graph = _length_delimited_field(1, node)
    path.write_bytes(_length_delimited_field(7, graph))
    with pytest.raises(ModelError, match=r"model\.onnx.*field \d"):
        read_graph(path)


# --- CUDA and graph inputs ---------------------------------------------------------------------


@no_cuda
@pytest.mark.filterwarnings("ignore:Specified provider:UserWarning")
def test_cuda_listed_but_unusable(monkeypatch: pytest.MonkeyPatch) -> None:
    # No GPU here: onnxruntime is made to list CUDAExecutionProvider, as onnxruntime-gpu does on a
    # machine without the CUDA libraries. Sessions are real, and CUDA really fails to start.
    import onnxruntime

    monkeypatch.setattr(
        onnxruntime,
        "get_available_providers",
        lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"],
    )
    assert resolve_backend()[0] == "onnx-cuda"
    auto = load_embedder("default")
    assert auto.backend == "onnx-cpu"
    assert "onnx-cuda failed" in auto.backend_reason
    assert auto.embed_query("assets").shape == (384,)
    with pytest.raises(BackendUnavailable) as excinfo:
        load_embedder("default", prefer="nvidia")
    assert "CUDAExecutionProvider" in str(excinfo.value)
    assert "--prefer cpu" in (excinfo.value.hint or "")


def test_graph_without_token_type_ids_is_not_fed_them(onnx_cpu, tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx", reason="the onnx package (dev dependency) builds the model")
    from onnx import helper, numpy_helper

    model_path, tokenizer, _ = default_model_files()
    model = onnx.load(str(model_path))
    graph = model.graph
    # Make token_type_ids internal (zeros shaped like input_ids) instead of a graph input.
    kept = [i for i in graph.input if i.name != "token_type_ids"]
    del graph.input[:]
    graph.input.extend(kept)
    graph.initializer.append(numpy_helper.from_array(np.array(0, dtype=np.int64), "zero_i64"))
    graph.node.insert(0, helper.make_node("Mul", ["input_ids", "zero_i64"], ["token_type_ids"]))
    model_dir = tmp_path / "two-inputs"
    model_dir.mkdir()
    onnx.save(model, str(model_dir / "model.onnx"))
    shutil.copyfile(tokenizer, model_dir / "tokenizer.json")
    (model_dir / "atlas_model.json").write_text(
        json.dumps({"name": "two-inputs", "pooling": "mean", "max_length": 256, "dims": 384})
    )
    embedder = load_embedder(str(model_dir), prefer="cpu")
    got = embedder.embed_documents(TEXTS[:3], progress=False)
    want = onnx_cpu.embed_documents(TEXTS[:3], progress=False)
    assert np.allclose(got, want, atol=1e-6)
