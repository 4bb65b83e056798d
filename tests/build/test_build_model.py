"""A bundle built with the default model carries that model, and its vectors answer queries embedded
with the bundle's own copy of it (real ONNX inference on the fixture corpus)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from atlas_core.bundle import Bundle
from atlas_core.errors import BundleError

pytestmark = pytest.mark.slow


def test_default_model_is_staged_into_the_bundle(model_bundle: Path) -> None:
    bundle = Bundle.open(model_bundle)
    assert {"model/model.onnx", "model/tokenizer.json", "model/atlas_model.json"} <= set(
        bundle.files
    )
    assert bundle.model["kind"] == "onnx"
    assert bundle.dims == 384
    assert bundle.model["pooling"] == "mean"
    assert bundle.model["max_length"] == 256
    assert bundle.manifest["build"]["backend"].startswith(("onnx", "mlx"))
    token_counts = bundle.chunks().column("token_count").to_pylist()
    assert max(token_counts) <= 256  # nothing past the model's limit was embedded


def test_bundle_model_answers_queries_over_its_vectors(model_bundle: Path) -> None:
    from atlas_core.embed import load_bundle_embedder

    bundle = Bundle.open(model_bundle)
    vectors = np.asarray(bundle.vectors(), dtype=np.float32)
    files = bundle.chunks().column("file").to_pylist()
    headings = bundle.chunks().column("heading").to_pylist()
    with load_bundle_embedder(bundle.model_dir, prefer="cpu") as embedder:
        query = embedder.embed_query("which Groovy beans can a workflow script task call")
    best = int(np.argmax(vectors @ query))
    assert files[best] == "workflows/groovy-scripting.md", (files[best], headings[best])


def test_verify_accepts_the_model_bundle(model_bundle: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "atlas_ls.cli", "verify", str(model_bundle)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_different_model_file_is_refused(model_bundle: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(model_bundle, tmp_path / "copy"))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["model"]["sha256"] = "0" * 64
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BundleError, match=r"model/model\.onnx: is not the model"):
        Bundle.open(copy)
