"""The build pipeline: sources -> documents -> chunks -> vectors + indexes -> one bundle.

`build_bundle` is what `atlas build` runs. It fails fast on bad input (before loading a model),
stages everything through `BundleWriter` so an interrupted or failed build leaves the output as it
was, and with ``reuse=`` copies the vectors of unchanged chunks from a previous bundle.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from atlas_core.bundle import (
    MODEL,
    VECTOR_DTYPE,
    VECTORS_PENDING,
    Bundle,
    BundleWriter,
    check_output,
    file_entry,
)
from atlas_core.errors import BuildError, BundleError
from atlas_core.types import Chunk, Document

if TYPE_CHECKING:
    from atlas_core.embed import Embedder
    from atlas_core.identifiers import RowMemo
    from atlas_core.search import TermCounts

log = logging.getLogger(__name__)

# The model facts that decide what a document vector is; equal facts + equal model files means a
# previous bundle's vectors are interchangeable with fresh ones.
_MODEL_IDENTITY = ("name", "kind", "dims", "pooling", "normalize", "max_length", "document_prefix")


@dataclass(slots=True)
class BuildCache:
    """What one build can hand the next build of the same sources (`atlas index --watch`): the
    chunks of each source file by its text, and every chunk's term counts. Only work is saved:
    a build with a cache writes the same bundle as one without."""

    code_chunks: dict[str, tuple[str, list[Chunk], str]] = field(default_factory=dict)
    # file -> ((chunk id, first line) of its chunks, the document with its definitions)
    code_entries: dict[str, tuple[tuple[tuple[str, int], ...], Document]] = field(
        default_factory=dict
    )
    terms: TermCounts | None = None  # made on first use
    identifier_rows: RowMemo = field(default_factory=dict)  # each identifier row's derived keys


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a build did, for the CLI summary and benchmarks."""

    output: Path
    name: str
    documents: int
    chunks: int
    reused: int
    embedded: int
    seconds: float
    embed_seconds: float
    model: str
    backend: str
    files: int
    size: int
    reuse_note: str = ""  # why nothing was reused, when a previous bundle was given
    # What the sources left out (symbolic links, non-UTF-8 file names), summed over sources.
    skipped_links: int = 0
    skipped_names: int = 0
    ranking: str = ""  # "trained", or why the bundle ranks with the untrained fusion
    ranking_seconds: float = 0.0  # spent training it
    # `code` sources: files left out, by reason, and files cut in line windows (with why).
    skipped_files: dict[str, int] = field(default_factory=dict)
    line_windows: dict[str, str] = field(default_factory=dict)
    # `code` sources: secret values replaced in the files they kept, by kind.
    redacted: dict[str, int] = field(default_factory=dict)

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0

    @property
    def embedded_per_s(self) -> float:
        return self.embedded / self.embed_seconds if self.embed_seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "output": str(self.output),
            "name": self.name,
            "documents": self.documents,
            "chunks": self.chunks,
            "reused": self.reused,
            "embedded": self.embedded,
            "seconds": round(self.seconds, 3),
            "embed_seconds": round(self.embed_seconds, 3),
            "chunks_per_s": round(self.chunks_per_s, 2),
            "embedded_per_s": round(self.embedded_per_s, 2),
            "model": self.model,
            "backend": self.backend,
            "files": self.files,
            "ranking": self.ranking,
            "ranking_seconds": round(self.ranking_seconds, 3),
            "size": self.size,
            "reuse_note": self.reuse_note,
            "skipped_links": self.skipped_links,
            "skipped_names": self.skipped_names,
            "skipped_files": dict(self.skipped_files),
            "line_windows": dict(self.line_windows),
            "redacted": dict(self.redacted),
        }


def _index_writer(module: str, attr: str) -> Callable[..., dict[str, Any]] | None:
    """The search part's index writer, or None while that module does not exist yet."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        log.warning("%s is not available: building without its index (%s)", module, attr)
        return None
    return getattr(mod, attr)


class _Stages:
    """Stage lines on stderr, so a long build says what it is doing."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.started = time.perf_counter()

    def __call__(self, message: str) -> None:
        log.info(message)
        if self.enabled:
            elapsed = time.perf_counter() - self.started
            print(f"atlas build [{elapsed:6.1f}s] {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class _Previous:
    """Vectors of a previous bundle, keyed by (chunk_id, embed_text)."""

    rows: dict[tuple[str, str], int]
    vectors: np.ndarray
    name: str


def _open_previous(reuse: Path) -> tuple[Bundle, dict[str, str]]:
    try:
        previous = Bundle.open(reuse)
    except BundleError as exc:
        raise BuildError(
            f"--reuse {reuse}: {exc.message}",
            hint="pass a bundle that `atlas verify` accepts, or build without --reuse",
            path=str(reuse),
        ) from exc
    model_files = {
        rel: entry["sha256"] for rel, entry in previous.files.items() if rel.startswith(f"{MODEL}/")
    }
    return previous, model_files


def _reusable(
    previous: Bundle, previous_model_files: dict[str, str], model: dict[str, Any], staging: Path
) -> tuple[_Previous | None, str]:
    """The previous bundle's vectors when its model is this build's model, else (None, why)."""
    if previous.manifest.get(VECTORS_PENDING):
        return None, "its vectors were still being computed"
    for key in _MODEL_IDENTITY:
        if previous.model.get(key) != model.get(key):
            return None, (
                f"model differs ({key}: {previous.model.get(key)!r} there, {model.get(key)!r} now)"
            )
    staged = {
        path.relative_to(staging).as_posix(): file_entry(path)["sha256"]
        for path in sorted((staging / MODEL).rglob("*"))
        if path.is_file()
    }
    if staged != previous_model_files:
        return None, "model files differ (different SHA-256)"
    table = previous.chunks().select(["chunk_id", "embed_text"])
    ids = table.column("chunk_id").to_pylist()
    texts = table.column("embed_text").to_pylist()
    rows = {(cid, text): i for i, (cid, text) in enumerate(zip(ids, texts, strict=True))}
    return _Previous(rows=rows, vectors=previous.vectors(), name=previous.name), ""


def _plan(chunks: Sequence[Chunk], previous: _Previous | None) -> dict[int, int]:
    """Chunk row -> previous vector row, for every chunk whose vector can be reused."""
    if previous is None:
        return {}
    plan = {}
    for row, chunk in enumerate(chunks):
        old = previous.rows.get((chunk.chunk_id, chunk.embed_text))
        if old is not None:
            plan[row] = old
    return plan


def _embed(
    chunks: Sequence[Chunk],
    embedder: Embedder,
    previous: _Previous | None,
    plan: dict[int, int],
    *,
    progress: bool,
) -> tuple[np.ndarray, float]:
    """float16 (len(chunks), dims) vectors, copying the planned rows; (vectors, embed seconds)."""
    out = np.empty((len(chunks), embedder.info.dims), dtype=VECTOR_DTYPE)
    if previous is not None and plan:
        new_rows = np.fromiter(plan.keys(), dtype=np.int64, count=len(plan))
        old_rows = np.fromiter(plan.values(), dtype=np.int64, count=len(plan))
        out[new_rows] = previous.vectors[old_rows]
    fresh = [row for row in range(len(chunks)) if row not in plan]
    started = time.perf_counter()
    if fresh:
        texts = [chunks[i].embed_text or chunks[i].text for i in fresh]
        vectors = embedder.embed_documents(texts, progress=progress)
        out[np.asarray(fresh, dtype=np.int64)] = vectors.astype(VECTOR_DTYPE)
    return out, time.perf_counter() - started


def _check_documents(documents: Sequence[Document], sources: Sequence[str]) -> None:
    if not documents:
        raise BuildError(
            f"the sources ({', '.join(sources)}) yielded no documents",
            hint="point --source at folders with markdown files or at an OpenAPI spec",
        )


def _write(
    target: Path,
    name: str | None,
    documents: Sequence[Document],
    chunks: Sequence[Chunk],
    embedder: Embedder,
    previous: tuple[Bundle, dict[str, str]] | None,
    stage: _Stages,
    *,
    progress: bool,
    started: float,
    facts: dict[str, Any],
    sources: list[dict[str, Any]],
    ranking: bool = True,
    ranking_off: str = "untrained fusion: built with --no-ranking",
    cache: BuildCache | None = None,
    demo: bool = False,
    vectors_pending: bool = False,
    publishers: Mapping[str, str] | None = None,
) -> tuple[Bundle, int, float, str]:
    """Stage and commit the bundle; (the bundle, reused, embed seconds, why nothing was reused)."""
    write_keyword_index = _index_writer("atlas_core.search.keyword", "write_keyword_index")
    write_identifier_table = _index_writer(
        "atlas_core.identifiers.extract.documents", "write_identifier_table"
    )
    write_mention_index = _index_writer(
        "atlas_core.identifiers.store.mentions", "write_mention_index"
    )
    # A build with a cache is one of many in a long-lived process: the old bundle's files are
    # deleted in the background instead of before the update is reported.
    with (
        BundleWriter(target, name=name, defer_cleanup=cache is not None) as writer,
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="atlas-keyword") as pool,
    ):
        model_section = embedder.stage(writer.staging / MODEL)
        reuse_from: _Previous | None = None
        reuse_note = ""
        if previous is not None:
            reuse_from, reuse_note = _reusable(*previous, model_section, writer.staging)
            if reuse_note:
                stage(f"not reusing vectors from {previous[0].path}: {reuse_note}")
        # The indexes before the long embedding step, so a failure there costs seconds, not
        # minutes. The keyword index is mostly numpy, which lets go of the interpreter: it is
        # built on a second thread while this one writes the rest.
        keyword = None
        if write_keyword_index is not None:
            stage("writing the keyword index (on a second thread)")
            counts = None
            if cache is not None:
                from atlas_core.search import TermCounts

                cache.terms = counts = cache.terms or TermCounts()
            keyword = pool.submit(write_keyword_index, chunks, writer.staging, counts=counts)
        stage(f"writing the mirror ({len(documents)} files) and chunk table ({len(chunks)} rows)")
        writer.write_mirror(documents, previous[0] if previous is not None else None)
        writer.write_chunks(chunks)
        if write_identifier_table is not None:
            stage("writing the identifier table")
            memo = cache.identifier_rows if cache is not None else None
            writer.set_section(
                "identifiers",
                write_identifier_table(documents, chunks, writer.staging, memo=memo),
            )
        if write_mention_index is not None:
            stage("writing the mention index")
            writer.set_section("mentions", write_mention_index(documents, writer.staging))
        keyword_section = None
        if keyword is not None:
            keyword_section = keyword.result()
            writer.set_section("keyword", keyword_section)

        plan = _plan(chunks, reuse_from)
        reused = len(plan)
        if vectors_pending:
            # Keyword and identifier search first: zero rows stand in, and the manifest says
            # so (readers keep vector search off; a later build never reuses these rows).
            vectors, embed_seconds = np.zeros((len(chunks), embedder.info.dims), VECTOR_DTYPE), 0.0
            writer.set_section(VECTORS_PENDING, True)
        else:
            stage(f"embedding {len(chunks) - reused} of {len(chunks)} chunks ({reused} reused)")
            vectors, embed_seconds = _embed(chunks, embedder, reuse_from, plan, progress=progress)
        writer.write_vectors(vectors)
        if ranking and keyword_section is not None:
            stage("training the ranking")
            training_started = time.perf_counter()
            section, facts["ranking"] = _train_ranking(
                chunks, vectors, writer.staging, keyword_section, embedder, sources, stage
            )
            facts["ranking_seconds"] = round(time.perf_counter() - training_started, 3)
            if section is not None:
                writer.set_section("ranking", section)
        if ranking and not vectors_pending:
            from atlas_core.search import ChunkTable, write_cards, write_headings

            cols = ChunkTable(chunks).cols
            stage("embedding the page cards")
            writer.set_section("cards", write_cards(writer, cols, embedder, progress=progress))
            stage("embedding the heading vectors")
            headings = write_headings(writer, cols, embedder, progress=progress)
            writer.set_section("headings", headings)
        if not ranking or keyword_section is None:
            facts["ranking"] = ranking_off if not ranking else "untrained fusion: no keyword index"

        if demo:
            writer.set_section("demo", True)
        if publishers:
            from atlas_core.sources import publisher_section

            writer.set_section("publishers", publisher_section(publishers))
        stage("hashing files, writing the manifest, moving the bundle into place")
        written = writer.commit(
            model=model_section,
            sources=sources,
            counts={"documents": len(documents)},
            build={
                "seconds": round(time.perf_counter() - started, 3),
                "backend": embedder.backend,
                **facts,
                "reused": reused,
                "embedded": len(chunks) - reused,
                "reused_from": reuse_from.name if reuse_from else None,
            },
        )
    # The writer checked the staged bundle as a reader would before moving it into place.
    assert writer.committed is not None
    return Bundle(written.resolve(), writer.committed), reused, embed_seconds, reuse_note


def _train_ranking(
    chunks: Sequence[Chunk],
    vectors: np.ndarray,
    staging: Path,
    keyword_section: dict[str, Any],
    embedder: Embedder,
    sources: Sequence[dict[str, Any]],
    stage: _Stages,
) -> tuple[dict[str, Any] | None, str]:
    """Train the ranking into the staging folder: (its manifest section or None, what happened).

    A ranking that cannot be trained (too few queries, no gain over the fusion on held-out
    queries, an error) leaves the bundle on the untrained fusion, said in the build log."""
    from atlas_core.search import (
        KeywordIndex,
        SearchSettings,
        spec_publications,
        train_ranking,
        write_ranking,
    )

    settings = SearchSettings()
    try:
        keyword = KeywordIndex.from_dir(staging, len(chunks), keyword_section)
        result = train_ranking(
            chunks,
            np.asarray(vectors, dtype=np.float32),
            keyword,
            embedder,
            spec_publications({"sources": sources}),
            vector_weight=settings.vector_weight,
            identifier_vector_weight=settings.identifier_vector_weight,
            say=stage,
        )
    except Exception as exc:  # training is an improvement, never a reason to lose the build
        log.warning(
            "training the ranking failed: the bundle ranks with the untrained fusion", exc_info=True
        )
        return None, f"untrained fusion: training failed ({type(exc).__name__}: {exc})"
    if result.model is None:
        log.warning(
            "ranking not trained (%s): the bundle ranks with the untrained fusion", result.reason
        )
        return None, f"untrained fusion: {result.reason}"
    return write_ranking(staging, result.model), "trained"


def build_bundle(
    sources: Sequence[str],
    output: str | Path,
    *,
    model: str | Path = "default",
    prefer: str | None = None,
    limit: int | None = None,
    reuse: str | Path | None = None,
    clean_gitbook: bool | None = None,
    progress: bool = True,
    name: str | None = None,
    ranking: bool = True,
    code_chunking: str = "definition",
    code_max_files: int | None = None,
    embedder: Embedder | None = None,
    cache: BuildCache | None = None,
    demo: bool = False,
    vectors_pending: bool = False,
) -> BuildReport:
    """Build a bundle at `output` from ``KIND=PATH[@REF]`` source specs (see bundle_spec/SPEC.md).

    `code_chunking` cuts `code` sources' files by definition (the default) or, to compare against
    the usual codebase-RAG baseline, in fixed 6,000-character windows ("window"), and takes at
    most `code_max_files` files of each (default `code_walk.MAX_FILES`). A loaded
    `embedder` is used instead of loading `model` (and left open: `atlas index --watch` keeps
    one for every update); a `cache` kept between builds of the same sources saves re-chunking
    and re-tokenizing what did not change. `demo` marks the bundle as the embedded demo
    (manifest ``"demo": true``), so every surface that serves it says these are not Collibra's
    docs; only `atlas_core.demo` sets it. `vectors_pending` writes everything but the vectors
    (zero rows, manifest ``"vectors_pending": true``): `atlas index` serves keyword answers
    within seconds, then builds again with the vectors."""
    from atlas_core.sources import CHUNKINGS

    started = time.perf_counter()
    if code_chunking not in CHUNKINGS:
        raise BuildError(
            f"unknown code chunking {code_chunking!r}", hint=f"use one of {', '.join(CHUNKINGS)}"
        )
    stage = _Stages(progress)
    if not sources:
        raise BuildError("no --source given", hint="add --source KIND=PATH, e.g. mirror=./docs")
    if limit is not None and limit < 1:
        raise BuildError(f"--limit must be at least 1, got {limit}")
    target = check_output(Path(output))

    from atlas_core.embed import load_embedder
    from atlas_core.sources import load_sources

    stage(f"reading {len(sources)} source(s)")
    source_set = load_sources(
        list(sources), clean_gitbook=clean_gitbook, limit=limit, code_max_files=code_max_files
    )
    documents = list(source_set.documents)
    _check_documents(documents, sources)
    previous = _open_previous(Path(reuse)) if reuse is not None else None

    owned = embedder is None
    if embedder is None:
        stage(f"loading embedding model {model}")
        embedder = load_embedder(str(model), prefer=prefer)
    info = embedder.info
    stage(f"model {info.name} ({info.dims} dims) on {embedder.backend}: {embedder.backend_reason}")
    try:
        with embedder if owned else contextlib.nullcontext(embedder):
            stage(f"chunking {len(documents)} documents")
            documents, chunks, line_windows = _chunk_all(
                documents, embedder, info.max_length, code_chunking, cache
            )
            if line_windows and code_chunking == "definition":
                stage(f"{len(line_windows)} source file(s) cut in line windows (no usable grammar)")
            if any(d.get("kind") == "code" for d in source_set.descriptions) and ranking:
                # The ranking learns from documentation's structure (headings, pages, tables),
                # which source code does not have: a project ranks with the fusion.
                ranking = False
                code_sources = True
            else:
                code_sources = False
            if not chunks:
                raise BuildError(
                    f"the {len(documents)} documents produced no chunks (they have no text)",
                    hint="check that the sources hold markdown with body text",
                )
            bundle, reused, embed_seconds, reuse_note = _write(
                target,
                name,
                documents,
                chunks,
                embedder,
                previous,
                stage,
                progress=progress,
                started=started,
                facts={"limit": limit, "clean_gitbook": clean_gitbook},
                sources=list(source_set.descriptions),
                ranking=ranking,
                ranking_off="untrained fusion: the bundle has a code source"
                if code_sources
                else "untrained fusion: built with --no-ranking",
                cache=cache,
                demo=demo,
                vectors_pending=vectors_pending,
                publishers=source_set.publishers,
            )
    except OSError as exc:
        # Disk full, permissions changed mid-build: the writer has already removed its staging.
        raise BuildError(
            f"cannot write the bundle at {target}: {exc.strerror or exc}",
            hint="free some space or choose an --output in a writable directory",
            path=str(target),
        ) from exc
    seconds = time.perf_counter() - started
    stage(f"done: {bundle.path}")
    return BuildReport(
        output=bundle.path,
        name=bundle.name,
        documents=len(documents),
        chunks=len(chunks),
        reused=reused,
        embedded=len(chunks) - reused,
        seconds=seconds,
        embed_seconds=embed_seconds,
        model=embedder.info.name,
        backend=embedder.backend,
        files=len(bundle.files),
        size=bundle.size,
        reuse_note=reuse_note,
        skipped_links=_skipped(source_set.descriptions, "skipped_links"),
        skipped_names=_skipped(source_set.descriptions, "skipped_names"),
        skipped_files=_skipped_files(source_set.descriptions),
        redacted=_skipped_files(source_set.descriptions, "redacted"),
        line_windows=line_windows,
        ranking=str((bundle.manifest.get("build") or {}).get("ranking", "")),
        ranking_seconds=float((bundle.manifest.get("build") or {}).get("ranking_seconds", 0.0)),
    )


def _skipped(descriptions: Sequence[dict[str, Any]], key: str) -> int:
    return sum(int(d.get(key, 0)) for d in descriptions)


def _skipped_files(descriptions: Sequence[dict[str, Any]], key: str = "skipped") -> dict[str, int]:
    """What `code` sources left out (files per reason) or redacted (`key` "redacted": values per
    kind), summed over sources."""
    counts: dict[str, int] = {}
    for description in descriptions:
        for reason, n in (description.get(key) or {}).items():
            counts[reason] = counts.get(reason, 0) + int(n)
    return counts


def _chunk_all(
    documents: list[Document],
    embedder: Embedder,
    max_tokens: int,
    code_chunking: str,
    cache: BuildCache | None = None,
) -> tuple[list[Document], list[Chunk], dict[str, str]]:
    """Chunk markdown with the markdown chunker and source code by definition, in document
    order; source code documents come back with their definitions as identifier entries."""
    from atlas_core.markdown import chunk_documents
    from atlas_core.sources import chunk_code_documents, code_identifiers

    code = [d for d in documents if d.language]
    prose = [d for d in documents if not d.language]
    by_file: dict[str, list[Chunk]] = {}
    for chunk in chunk_documents(prose, count_tokens=embedder.count_tokens, max_tokens=max_tokens):
        by_file.setdefault(chunk.file, []).append(chunk)
    line_windows: dict[str, str] = {}
    if code:
        code_chunks, line_windows = chunk_code_documents(
            code,
            count_tokens=embedder.count_tokens,
            max_tokens=max_tokens,
            chunking=code_chunking,
            cache=cache.code_chunks if cache is not None else None,
        )
        for chunk in code_chunks:
            by_file.setdefault(chunk.file, []).append(chunk)
    chunks = [chunk for doc in documents for chunk in by_file.get(doc.path, ())]
    entries = cache.code_entries if cache is not None else {}
    kept: dict[str, tuple[tuple[tuple[str, int], ...], Document]] = {}

    def identified(doc: Document) -> Document:
        file_chunks = by_file.get(doc.path, [])
        key = tuple((c.chunk_id, c.line_start) for c in file_chunks)
        found = entries.get(doc.path)
        if found is not None and found[0] == key:
            result = replace(doc, identifiers=found[1].identifiers)
        else:
            result = code_identifiers(doc, file_chunks)
        kept[doc.path] = (key, result)
        return result

    documents = [identified(doc) if doc.language else doc for doc in documents]
    if cache is not None:
        cache.code_entries = kept
    return documents, chunks, line_windows
