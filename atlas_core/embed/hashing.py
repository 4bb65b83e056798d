"""A deterministic hashing embedder for tests: no model file, no backend, same vectors everywhere.

Each lower-cased word token maps (blake2b, not Python's salted ``hash``) to one dimension and a
sign; a text's vector is the mean of its tokens' vectors, L2-normalised. Texts sharing words are
similar, which is enough to exercise search end to end. It is only ever used when asked for
(``--model hash``) and is recorded as kind "hash" in the bundle manifest.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import numpy as np

from atlas_core.embed.embedder import Embedder, l2_normalize, manifest_section
from atlas_core.embed.model_config import ModelInfo, write_model_config

_WORD = re.compile(r"\w+")
HASH_DIMS = 384
HASH_MAX_LENGTH = 256
# The [CLS]/[SEP] pair a transformer would add, kept so chunk sizes match the default model's.
_SPECIAL = 2


def hash_info(dims: int = HASH_DIMS) -> ModelInfo:
    return ModelInfo(
        name=f"hash-{dims}",
        dims=dims,
        pooling="mean",
        normalize=True,
        max_length=HASH_MAX_LENGTH,
        kind="hash",
    )


class HashEmbedder(Embedder):
    def __init__(self, info: ModelInfo | None = None) -> None:
        self.info = info or hash_info()
        self.backend = "hash"
        self.backend_reason = "the hash test embedder needs no backend"
        self._cache: dict[str, tuple[int, float]] = {}

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(self.info.document_prefix + text)) + _SPECIAL

    def stage(self, model_dir_out: Path) -> dict[str, Any]:
        model_dir_out.mkdir(parents=True, exist_ok=True)
        write_model_config(model_dir_out, self.info)
        return manifest_section(self.info, None)

    def _prepare(self, texts: list[str]) -> list[Any]:
        limit = self.info.max_length - _SPECIAL
        return [_WORD.findall(text.lower())[:limit] for text in texts]

    def _length(self, item: Any) -> int:
        return len(item)

    def _embed(self, items: list[Any], purpose: str) -> np.ndarray:
        out = np.zeros((len(items), self.info.dims), dtype=np.float32)
        for row, tokens in enumerate(items):
            for token in tokens:
                slot, sign = self._slot(token)
                out[row, slot] += sign
        # An empty text (or one whose signs cancel) still gets a unit vector so callers can rely
        # on normalisation.
        out[~out.any(axis=1), 0] = 1.0
        return l2_normalize(out)

    def _slot(self, token: str) -> tuple[int, float]:
        hit = self._cache.get(token)
        if hit is None:
            value = int.from_bytes(
                hashlib.blake2b(token.encode(), digest_size=8).digest(), "little"
            )
            hit = (value % self.info.dims, 1.0 if (value >> 63) & 1 else -1.0)
            if len(self._cache) < 200_000:
                self._cache[token] = hit
        return hit
