"""How big an `atlas index` will be, said before it starts: files, chunks and minutes.

The files are the walk's own (`walk_repository`: what the index takes and what it leaves out).
The chunks are estimated from the files' bytes (`BYTES_PER_CHUNK`: the generated `collibra-core`
client's operations cut into 1,770 chunks of 1,000 bytes on average; small classes and getters cut
smaller, so a repository of them makes more chunks than estimated). The minutes come from
this machine's chunks/s for the model: the rate the last index measured (kept in
``<data dir>/projects/speed.json``), else a few of the repository's own texts embedded on the spot.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.config import data_dir

if TYPE_CHECKING:
    from atlas_core.embed import Embedder
    from atlas_core.project.index import IndexTarget

log = logging.getLogger(__name__)

BYTES_PER_CHUNK = 1000
SPEEDS = "speed.json"  # under <data dir>/projects: {model name: chunks per second}
SAMPLED = "measured on a sample just now"
SAMPLE_TEXTS = 16  # texts embedded to measure a machine that has not indexed with the model yet
MIN_MEASURED = 64  # an index that embedded fewer chunks says little about the rate


@dataclass(frozen=True, slots=True)
class IndexEstimate:
    files: int  # to index
    size: int  # their bytes
    left_out: int  # files the walk leaves out, for any reason
    generated: int  # of them, generated code
    chunks: int  # roughly
    chunks_per_s: float  # this machine's, with this model; 0 when not measured yet
    measured: str  # where the rate comes from
    sample: tuple[Path, ...] = ()  # files to measure the rate on (`sampled_speed`)

    @property
    def seconds(self) -> float:
        return self.chunks / self.chunks_per_s if self.chunks_per_s > 0 else 0.0

    def line(self) -> str:
        """`indexing 51 files (1.2 MB; 251 left out, 251 of them generated code): about 1,900
        chunks, about 3 min at 12 chunks/s (this machine's last index)`."""
        out = f"{self.left_out:,} left out" if self.left_out else "none left out"
        if self.generated:
            out += f", {self.generated:,} of them generated code"
        if self.chunks_per_s > 0:
            took = (
                f"{duration(self.seconds)} at {self.chunks_per_s:,.0f} chunks/s ({self.measured})"
            )
        else:
            took = "minutes once the keyword pass has measured this machine"
        return (
            f"indexing {self.files:,} files ({self.size / 1e6:.1f} MB; {out}; "
            f"`atlas index --explain PATH` says why): about {self.chunks:,} chunks, {took}"
        )


def duration(seconds: float) -> str:
    """`about 8 min`, `under a minute`: an estimate said as roughly as it is known."""
    if seconds < 60:
        return "under a minute"
    return f"about {seconds / 60:.0f} min"


def estimate_index(
    target: IndexTarget, embedder: Embedder, *, sample_now: bool = True
) -> IndexEstimate:
    """The estimate for indexing `target` with `embedder` (see the module docstring); without
    `sample_now` a machine with no measured rate is left at 0 chunks/s (the caller measures it
    with `sampled_speed` once keyword answers are served). Raises the walk's SourceError for a
    repository over the file limit."""
    from atlas_core.sources import GENERATED_REASONS, walk_repository

    if target.max_files is None:
        listing = walk_repository(target.root)
    else:
        listing = walk_repository(target.root, max_files=target.max_files)
    size = sum(f.size for f in listing.files)
    counts = listing.counts()
    sample = tuple(f.path for f in listing.files[:SAMPLE_TEXTS])
    rate = stored_speed(embedder.info.name)
    measured = "this machine's last index"
    if rate is None:
        rate, measured = (sampled_speed(embedder, sample) if sample_now else 0.0), SAMPLED
    return IndexEstimate(
        files=len(listing.files),
        size=size,
        left_out=sum(counts.values()),
        generated=sum(counts.get(reason, 0) for reason in GENERATED_REASONS),
        chunks=max(len(listing.files), round(size / BYTES_PER_CHUNK)),
        chunks_per_s=rate,
        measured=measured,
        sample=sample,
    )


def sampled_speed(embedder: Embedder, files: Sequence[Path]) -> float:
    """Chunks/s of `embedder` on chunk-sized pieces of the first `files` (a few seconds)."""
    texts: list[str] = []
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(BYTES_PER_CHUNK * 4)
        except OSError:
            continue
        texts += [text[i : i + BYTES_PER_CHUNK] for i in range(0, len(text), BYTES_PER_CHUNK)]
        if len(texts) >= SAMPLE_TEXTS:
            break
    texts = [t for t in texts[:SAMPLE_TEXTS] if t.strip()] or ["def sample():\n    return 1\n"]
    started = time.perf_counter()
    embedder.embed_documents(texts, progress=False)
    return len(texts) / max(time.perf_counter() - started, 1e-3)


def _speeds_path() -> os.PathLike[str]:
    from atlas_core.project import PROJECTS

    return data_dir() / PROJECTS / SPEEDS


def stored_speed(model: str) -> float | None:
    """The chunks/s the last index with `model` measured on this machine, if any."""
    try:
        with open(_speeds_path(), encoding="utf-8") as handle:
            rate = json.load(handle).get(model)
    except (OSError, ValueError, AttributeError):
        return None
    return float(rate) if isinstance(rate, int | float) and rate > 0 else None


def remember_speed(model: str, embedded: int, seconds: float) -> None:
    """Keep the rate of an index that embedded `embedded` chunks in `seconds`, for the next
    estimate (written whole and renamed into place; a data dir that cannot take it is no error)."""
    if embedded < MIN_MEASURED or seconds <= 0:
        return
    path = _speeds_path()
    try:
        with open(path, encoding="utf-8") as handle:
            speeds = json.load(handle)
        speeds = speeds if isinstance(speeds, dict) else {}
    except (OSError, ValueError):
        speeds = {}
    speeds[model] = round(embedded / seconds, 2)
    temporary = f"{os.fspath(path)}.{os.getpid()}.tmp"
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(speeds, handle)
        os.replace(temporary, path)
    except OSError as exc:
        log.info("could not keep the indexing speed in %s: %s", path, exc)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
