"""Embedding batches bounded by tokens: the batches the embedder hands ONNX Runtime stay within the
budget on real texts with the real tokenizer, every text comes back in its own row, and the
documents session plans no memory pattern per shape (read back from the session)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from atlas_core.embed import load_embedder
from atlas_core.embed.embedder import BATCH_TOKENS, TransformerEmbedder, length_batches
from atlas_core.embed.model_config import default_info, default_model_files
from atlas_core.embed.onnx_backend import OnnxRunner

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 768  # small enough that the spec's paragraphs need batches of many sizes


class RecordingRunner:
    """The real ONNX Runtime runner, noting the shape of every batch it is given."""

    def __init__(self, runner: OnnxRunner) -> None:
        self.runner = runner
        self.shapes: list[tuple[int, int]] = []

    def run(
        self,
        input_ids: np.ndarray,
        attention_mask: np.ndarray,
        token_type_ids: np.ndarray,
        purpose: str,
    ) -> np.ndarray:
        self.shapes.append(input_ids.shape)
        return self.runner.run(input_ids, attention_mask, token_type_ids, purpose)

    def close(self) -> None:
        self.runner.close()


@pytest.fixture(scope="module")
def spec_paragraphs() -> list[str]:
    """Real prose of mixed length: the paragraphs of the bundle spec, one line to several hundred
    tokens (cut at the model's 256), in the file's order."""
    text = (ROOT / "bundle_spec" / "SPEC.md").read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return paragraphs[:24]


@pytest.fixture(scope="module")
def runner() -> RecordingRunner:
    info = default_info()
    model, _, _ = default_model_files()
    return RecordingRunner(OnnxRunner(model, info.output))


def _embedder(runner: RecordingRunner, batch_tokens: int | None) -> TransformerEmbedder:
    info = default_info()
    model, tokenizer, _ = default_model_files()
    return TransformerEmbedder(
        info, model, tokenizer, runner, "onnx-cpu", "test", batch_tokens=batch_tokens
    )


def test_batches_stay_within_the_token_budget_and_keep_every_row(
    runner: RecordingRunner, spec_paragraphs: list[str]
) -> None:
    lean = _embedder(runner, BUDGET)
    lengths = [min(lean.count_tokens(t), lean.info.max_length) for t in spec_paragraphs]
    assert min(lengths) < 20 and max(lengths) == lean.info.max_length  # a real mix

    runner.shapes.clear()
    batched = lean.embed_documents(spec_paragraphs, batch_size=64, progress=False)
    shapes = list(runner.shapes)
    assert all(rows * width <= BUDGET for rows, width in shapes)
    assert sum(rows for rows, _ in shapes) == len(spec_paragraphs)
    # Longest first: widths never grow, and short texts go many to a batch.
    assert [w for _, w in shapes] == sorted((w for _, w in shapes), reverse=True)
    assert shapes[0] == (BUDGET // lean.info.max_length, lean.info.max_length)
    assert max(rows for rows, _ in shapes) > BUDGET // lean.info.max_length

    # The same vectors, in the same rows, as each text embedded on its own.
    alone = _embedder(runner, None).embed_documents(spec_paragraphs, batch_size=1, progress=False)
    agreement = (batched * alone).sum(axis=1)
    assert agreement.min() > 0.9999
    # ... and not merely vectors alike: each row matches its own text best.
    assert np.array_equal((batched @ alone.T).argmax(axis=1), np.arange(len(spec_paragraphs)))


def test_documents_session_plans_no_memory_pattern(runner: RecordingRunner) -> None:
    documents = runner.runner.session_options("documents")
    assert documents.enable_mem_pattern is False
    assert documents.enable_cpu_mem_arena is True  # bounded by the batches' tokens
    # A query is one short text: its session keeps ONNX Runtime's defaults for latency.
    assert runner.runner.session_options("query").enable_mem_pattern is True
    info = default_info()
    model, _, _ = default_model_files()
    restored = OnnxRunner(model, info.output, memory_pattern=True).session_options("documents")
    assert restored.enable_mem_pattern is True
    # What a build loads batches by tokens.
    assert load_embedder("default", prefer="cpu").batch_tokens == BATCH_TOKENS
    assert load_embedder("hash").batch_tokens == BATCH_TOKENS


def test_length_batches_cover_each_row_once_longest_first() -> None:
    rng = np.random.default_rng(3)
    lengths = rng.integers(1, 300, size=500)
    batches = length_batches(lengths, 32, 2048)
    rows = np.concatenate(batches)
    assert sorted(rows.tolist()) == list(range(500))
    assert list(lengths[rows]) == sorted(lengths, reverse=True)
    for batch in batches:
        assert len(batch) <= 32
        assert len(batch) == 1 or len(batch) * lengths[batch].max() <= 2048
    # The row cap holds under the budget; no budget is the old batching by count alone.
    assert max(len(b) for b in length_batches(lengths, 4, 2048)) == 4
    assert [len(b) for b in length_batches(lengths, 200, None)] == [200, 200, 100]
    # A text longer than the budget goes alone rather than being dropped.
    assert [b.tolist() for b in length_batches(np.array([5000, 3, 3]), 32, 2048)] == [[0], [1, 2]]
    with pytest.raises(ValueError, match="batch_size"):
        length_batches(lengths, 0, 2048)


def test_hash_embedder_shares_the_batching_across_tokenizing_slices() -> None:
    # More texts than are tokenised at a time, of many lengths: tiny token batches give exactly
    # the vectors of one batch per text, row for row.
    texts = [" ".join(f"word{(i * 7 + j) % 97}" for j in range(i % 40)) for i in range(1300)]
    lean = load_embedder("hash")
    lean.batch_tokens = 64
    alone = load_embedder("hash")
    alone.batch_tokens = None
    assert np.array_equal(
        lean.embed_documents(texts, progress=False),
        alone.embed_documents(texts, batch_size=1, progress=False),
    )
