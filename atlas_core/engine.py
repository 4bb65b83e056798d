"""The engine facade every front end uses: search, identifier lookup, symbols, chunks, info.

`Engine.open` reads only manifests. Each capability loads what it needs on first use: the identifier
table for lookup and symbols, the chunk table and keyword index for keyword search, the vectors and
the embedding model for vector search. Lookup therefore never imports the embedding stack,
onnxruntime or scipy, nor the keyword and vector modules, and this module imports nothing heavy at
import time.

Several bundles can be opened together (Collibra's docs beside a team's own): each is searched on
its own and the answers are merged by score, each tagged with its bundle's name. The engine also
answers the questions a host has about what it serves, so no host reads a manifest: which bundles
are open and what they hold (`bundle_infos`), where a result's page lies (`mirror_path`), the
pages of a mirror (`doc_files`) and the section around a line (`section_at`).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from atlas_core.errors import AtlasError, BundleError, ModelError, QueryError
from atlas_core.identifiers.subjects import group_pages, one_per_subject
from atlas_core.search.chunks import ChunkTable
from atlas_core.search.excerpt import make_snippet
from atlas_core.search.limits import (
    CONTROL_CHARS,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    check_mode,
    check_scope,
    clamp_count,
    clean_query,
    looks_like_identifier,
)
from atlas_core.search.settings import SearchSettings
from atlas_core.types import (
    ApiFinding,
    BundleInfo,
    Candidate,
    Chunk,
    Definition,
    Deprecation,
    DocFile,
    Hit,
    SearchFilters,
    Section,
    Symbol,
    Usage,
)

if TYPE_CHECKING:
    import numpy as np

    from atlas_core.apicheck import ApiModel, Operation
    from atlas_core.bundle.reader import Bundle
    from atlas_core.identifiers.call_target import CallTarget
    from atlas_core.identifiers.index import IdentifierIndex
    from atlas_core.markdown.outline import Outline
    from atlas_core.recognize.calls import CallSite
    from atlas_core.recognize.calls.scan import Located
    from atlas_core.search.dense import DenseIndex
    from atlas_core.search.keyword import KeywordIndex
    from atlas_core.search.learn import RankContext, RankingModel
    from atlas_core.search.rerank import Reranker

__all__ = [
    "MAX_LIMIT",
    "MAX_QUERY_CHARS",
    "MAX_TOP_K",
    "WARM_MODES",
    "Engine",
    "SearchSettings",
    "clamp_count",
    "looks_like_identifier",
    "make_snippet",
]

log = logging.getLogger(__name__)

RERANK_ENV = "ATLAS_RERANKER"
WARM_MODES = ("lookup", "symbols", "keyword", "vector", "chunks")
GONE_HINT = (
    "install the bundle again (`atlas download`, or `atlas restore` from a backup) or point the "
    "server at an existing one; a server watching the path loads a new bundle there by itself"
)
T = TypeVar("T")
_WORD = re.compile(r"\w+")
MAX_PAGE_BYTES = 8 * 1024 * 1024  # a docs page is kilobytes; anything this big is not one
OUTLINES_KEPT = 256  # pages whose headings are kept per bundle, for section_at
# O_NOFOLLOW and O_NONBLOCK: a page swapped for a link or a FIFO is refused, never followed or
# waited on (fstat below tells what was opened).
_PAGE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _refuse_unscanned_code(manifest: Mapping[str, Any], path: Path) -> None:
    """A bundle of a code source built before files were scanned for credentials (its source
    description has no `redacted` counts) may hold keys and tokens in its chunks: it is not
    served. Rebuilding it with today's `atlas index` reads the repository again."""
    for source in manifest.get("sources") or []:
        if isinstance(source, dict) and source.get("kind") == "code" and "redacted" not in source:
            root = source.get("path")
            again = f"atlas index {root}" if isinstance(root, str) else "atlas index REPOSITORY"
            raise BundleError(
                f"{path}: this project index was built before Atlas left credentials out of "
                "indexes, so it may hold secrets; it is not served",
                hint=f"rebuild it with `{again}`",
                path=str(path),
            )


@dataclass(eq=False)
class _Part:
    """One opened bundle and whatever of it has been loaded so far."""

    bundle: Bundle
    name: str  # unique among the engine's bundles: the manifest's name, or that name with -2, -3
    prefer: str | None
    opened_ms: float
    lock: threading.RLock = field(default_factory=threading.RLock)
    _outlines: OrderedDict[str, Outline | None] = field(default_factory=OrderedDict)
    _outline_lock: threading.Lock = field(default_factory=threading.Lock)
    _table: ChunkTable | None = None
    _keyword: KeywordIndex | None = None
    _dense: DenseIndex | None = None
    _embedder: Any = None
    _ids: IdentifierIndex | None = None
    _ranking: tuple[RankingModel | None, str] | None = None
    _rank_context: RankContext | None = None

    @functools.cached_property
    def scope(self) -> str:
        """ "project" for a bundle of a team's own code (built from a `code` source, as `atlas
        index` does), "docs" for documentation."""
        sources = self.bundle.manifest.get("sources") or []
        code = any(isinstance(s, dict) and s.get("kind") == "code" for s in sources)
        return "project" if code else "docs"

    def gone(self) -> bool:
        """The bundle's folder was deleted after it was opened (its manifest is no longer there)."""
        return not (Path(self.bundle.path) / "manifest.json").is_file()

    def _loading(self, what: str, load: Callable[[], T]) -> T:
        """Load one index, saying so plainly when the folder it would be read from is gone."""
        try:
            return load()
        except (AtlasError, OSError) as exc:
            if not self.gone():
                raise
            raise BundleError(
                f"the bundle {self.bundle.path} was deleted after it was opened; its {what} "
                "was not loaded yet and cannot be read now",
                hint=GONE_HINT,
                path=str(self.bundle.path),
            ) from exc

    def table(self) -> ChunkTable:
        if self._table is None:
            with self.lock:
                if self._table is None:
                    self._table = self._loading("chunk table", self._read_table)
        return self._table

    def _read_table(self) -> ChunkTable:
        from atlas_core.bundle.chunk_schema import file_problem
        from atlas_core.bundle.manifest import REPAIR_HINT

        table = ChunkTable(self.bundle.chunks())
        # Hits send editors and file tools to these paths; the distinct names are at hand here.
        problem = file_problem(table.file_ids)
        if problem:
            path = Path(self.bundle.path) / "chunks.parquet"
            raise BundleError(f"{path}: {problem}", hint=REPAIR_HINT, path=str(path))
        return table

    def keyword(self) -> KeywordIndex:
        if self._keyword is None:
            with self.lock:
                if self._keyword is None:
                    from atlas_core.search.keyword import KeywordIndex

                    if not self.bundle.section("keyword"):
                        raise BundleError(
                            f"bundle {self.name} has no keyword index",
                            hint="rebuild it with `atlas build`, or search with --mode vector",
                            path=str(self.bundle.path),
                        )
                    self._keyword = self._loading(
                        "keyword index", lambda: KeywordIndex.open(self.bundle)
                    )
        return self._keyword

    def ranking(self) -> tuple[RankingModel | None, str]:
        """The bundle's trained ranking (None to rank with the fusion) and a line saying which.

        A bundle built before rankings were trained has none; a ranking file that cannot be used
        is logged once and ignored: answers ranked by the fusion beat no answers (`atlas verify`
        names the file)."""
        if self._ranking is None:
            with self.lock:
                if self._ranking is None:
                    self._ranking = self._load_ranking()
        return self._ranking

    def ranking_line(self) -> str:
        """Which ranking the bundle uses: the loaded ranking's line, or the manifest's word until
        the first hybrid search loads it (without loading numpy for a language server)."""
        if self._ranking is not None:
            return self._ranking[1]
        from atlas_core.search.learn import describe_ranking

        return describe_ranking(self.bundle.manifest)

    def _load_ranking(self) -> tuple[RankingModel | None, str]:
        from atlas_core.search.learn import RANKING_FILE, RankingModel

        section = self.bundle.section("ranking")
        if not section:
            reason = str((self.bundle.manifest.get("build") or {}).get("ranking") or "")
            return None, reason or "untrained fusion: built before rankings were trained"
        try:
            model = RankingModel.load(Path(self.bundle.path) / RANKING_FILE)
        except BundleError as exc:
            log.warning("bundle %s: ranking with the untrained fusion: %s", self.name, exc)
            return None, f"untrained fusion: {exc.message}"
        return model, f"trained ({len(model.features)} features, {len(model.trees)} trees)"

    def rank_context(self) -> RankContext:
        if self._rank_context is None:
            with self.lock:
                if self._rank_context is None:
                    from atlas_core.search.learn import RankContext, spec_publications

                    table = self.table()
                    self._rank_context = RankContext(
                        table.cols, table.file_code, spec_publications(self.bundle.manifest)
                    )
        return self._rank_context

    def dense(self) -> DenseIndex:
        if self._dense is None:
            with self.lock:
                if self._dense is None:
                    from atlas_core.search.dense import DenseIndex

                    self._dense = self._loading("vectors", lambda: DenseIndex.open(self.bundle))
        return self._dense

    def embedder(self) -> Any:
        if self._embedder is None:
            with self.lock:
                if self._embedder is None:
                    from atlas_core.embed import load_bundle_embedder

                    started = time.perf_counter()
                    self._embedder = self._loading(
                        "embedding model",
                        lambda: load_bundle_embedder(self.bundle.model_dir, self.prefer),
                    )
                    log.info(
                        "bundle %s: embedding model loaded in %.0f ms (%s)",
                        self.name,
                        (time.perf_counter() - started) * 1000,
                        self._embedder.backend,
                    )
        return self._embedder

    def identifiers(self) -> IdentifierIndex:
        if self._ids is None:
            with self.lock:
                if self._ids is None:
                    from atlas_core.identifiers.index import IdentifierIndex

                    self._ids = self._loading(
                        "identifier table", lambda: IdentifierIndex.open(self.bundle)
                    )
        return self._ids

    def outline(self, relpath: str) -> Outline | None:
        """The headings of a mirror page, kept for the pages asked about most recently; None when
        the page cannot be read (a bundle's mirror never changes while it is open)."""
        with self._outline_lock:
            if relpath in self._outlines:
                self._outlines.move_to_end(relpath)
                return self._outlines[relpath]
        from atlas_core.markdown.outline import Outline, page_lines

        data = _read_page(self.bundle.mirror_dir / relpath)
        outline = Outline.of(page_lines(data)) if data is not None else None
        with self._outline_lock:
            self._outlines[relpath] = outline
            while len(self._outlines) > OUTLINES_KEPT:
                self._outlines.popitem(last=False)
        return outline

    def close(self) -> None:
        for resource in (self._dense, self._embedder, self._ids):
            close = getattr(resource, "close", None)
            if close is not None:
                close()
        self._dense = self._embedder = self._ids = None
        self._keyword = None
        self._table = None


class Engine:
    """Search and identifier resolution over one or more opened bundles."""

    def __init__(
        self,
        parts: list[_Part],
        *,
        reranker_dir: Path | None = None,
        settings: SearchSettings | None = None,
    ) -> None:
        if not parts:
            raise BundleError("no bundle to open", hint="pass at least one bundle directory")
        self._parts = parts
        docs = [(i, p) for i, p in enumerate(parts) if p.scope == "docs"]
        # What lookups and checks answer from (see `_documented`).
        self._docs_parts = docs or list(enumerate(parts))
        self.settings = settings or SearchSettings()
        self.reranker_dir = reranker_dir
        self._reranker: Reranker | None = None
        self._api: ApiModel | None = None
        self._usages: dict[tuple[str, str], list[Usage]] | None = None
        self._lock = threading.Lock()
        self._preparing: list[threading.Thread] = []  # started by prepare_vector_search

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        prefer: str | None = None,
        *,
        reranker: str | os.PathLike[str] | None = None,
        settings: SearchSettings | None = None,
    ) -> Engine:
        """Open one bundle directory or several (results merged, tagged with bundle names)."""
        from atlas_core.bundle import Bundle

        paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
        if not paths:
            raise BundleError("no bundle to open", hint="pass at least one bundle directory")
        parts: list[_Part] = []
        names: set[str] = set()
        for item in paths:
            started = time.perf_counter()
            bundle = Bundle.open(Path(item))
            _refuse_unscanned_code(bundle.manifest, Path(item))
            name = str(bundle.manifest.get("name") or Path(item).name)
            base, n = name, 2
            while name in names:
                name, n = f"{base}-{n}", n + 1
            names.add(name)
            ms = (time.perf_counter() - started) * 1000
            parts.append(_Part(bundle=bundle, name=name, prefer=prefer, opened_ms=ms))
        reranker_dir = reranker or os.environ.get(RERANK_ENV) or None
        return cls(
            parts,
            reranker_dir=Path(reranker_dir) if reranker_dir else None,
            settings=settings,
        )

    def _documented(self) -> list[tuple[int, _Part]]:
        """(index, part) of the documentation bundles: what lookup, definitions, symbols and the
        API checks answer from. A project's own definitions never stand in for the docs' (a
        wrapper named like an operation is not its documentation); with no docs bundle open,
        the project's are all there is."""
        return self._docs_parts

    @property
    def bundles(self) -> list[Bundle]:
        """The opened bundles, in the order they were given."""
        return [p.bundle for p in self._parts]

    def close(self) -> None:
        for part in self._parts:
            part.close()
        if self._reranker is not None:
            self._reranker.close()
            self._reranker = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- search --------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        mode: str = "hybrid",
        top_k: int = 10,
        filters: SearchFilters | None = None,
        rerank: bool = False,
        scope: str = "all",
        snippets: bool = True,
    ) -> list[Hit]:
        """Ranked passages for a question or an identifier; at most `MAX_TOP_K`. `scope` keeps
        the documentation ("docs"), the team's own code ("project", see `atlas index`) or both.
        Without `snippets` each hit's snippet is left empty, for a caller that shows the
        passage itself (cutting a snippet was four fifths of a keyword search's time)."""
        text = clean_query(query)
        mode = check_mode(mode)
        scope = check_scope(scope)
        k = clamp_count(top_k, "top_k", MAX_TOP_K)
        filters = filters or SearchFilters()
        found: list[tuple[float, int, int]] = []  # (score, part index, row)
        for index, part in enumerate(self._parts):
            if scope != "all" and part.scope != scope:
                continue
            depth = max(k, self.settings.rerank_depth) if rerank else k
            for row, score in self._search_part(part, text, mode, depth, filters):
                found.append((score, index, row))
        found.sort(key=lambda item: (-item[0], item[1], item[2]))
        if rerank and found:
            found = self._rerank(text, found[: max(k, self.settings.rerank_depth)])
        if filters.min_score:
            found = [item for item in found if item[0] >= filters.min_score]
        words = [w.lower() for w in _WORD.findall(text)]
        multi = len(self._parts) > 1
        hits = []
        for rank, (score, index, row) in enumerate(found[:k], start=1):
            part = self._parts[index]
            table = part.table()
            c = table.cols
            hits.append(
                Hit(
                    rank=rank,
                    score=round(float(score), 6),
                    chunk_id=c["chunk_id"][row],
                    file=c["file"][row],
                    publication=c["publication"][row],
                    title=c["title"][row],
                    heading=c["heading"][row],
                    url=c["url"][row] or "",
                    snippet=make_snippet(c["text"][row] or c["embed_text"][row] or "", words)
                    if snippets
                    else "",
                    line_start=int(c["line_start"][row] or 0),
                    line_end=int(c["line_end"][row] or 0),
                    is_code=bool(c["is_code"][row]),
                    bundle=part.name if multi else "",
                    scope=part.scope if multi else "",
                )
            )
        return hits

    def _search_part(
        self, part: _Part, text: str, mode: str, k: int, filters: SearchFilters
    ) -> list[tuple[int, float]]:
        from atlas_core.search.fusion import Ranked, fuse

        table = part.table()
        if table.n == 0:
            return []
        mask = table.mask(filters)
        if mask is not None and not mask.any():
            return []
        depth = max(self.settings.candidates, 3 * k)
        s = self.settings
        model = part.ranking()[0] if mode == "hybrid" and s.learned else None
        if model is not None:
            from atlas_core.search.learn import gather, rank

            identifier = looks_like_identifier(text)
            cands = gather(
                part.rank_context(),
                part.keyword(),
                part.dense().scores(part.embedder().embed_query(text)),
                text,
                depth,
                vector_weight=s.identifier_vector_weight if identifier else s.vector_weight,
                identifier=identifier,
                mask=mask,
            )
            rows, scores = rank(model, cands)
            return self._diversified(table, rows.tolist(), scores, text, part.scope)
        keyword = vector = None
        if mode in ("keyword", "hybrid"):
            result = part.keyword().search(text, depth, mask)
            keyword = Ranked(result.rows, result.scores)
        if mode in ("vector", "hybrid"):
            query_vector = part.embedder().embed_query(text)
            rows, scores = part.dense().search(query_vector, depth, mask)
            vector = Ranked(rows, scores)
        if keyword is not None and vector is not None:
            if keyword.rows.size == 0:
                ranked = vector  # nothing matched a word: the vector list alone, scores kept
            else:
                weight = (
                    s.identifier_vector_weight if looks_like_identifier(text) else s.vector_weight
                )
                ranked = fuse(keyword, vector, method=s.fusion, vector_weight=weight, rrf_k=s.rrf_k)
        else:
            ranked = keyword if keyword is not None else vector
        assert ranked is not None
        return self._diversified(table, ranked.rows.tolist(), ranked.scores, text, part.scope)

    def _diversified(
        self, table: ChunkTable, rows_list: list[int], ranked_scores: Any, text: str, scope: str
    ) -> list[tuple[int, float]]:
        import numpy as np

        from atlas_core.search.fusion import diversify

        scores = np.asarray(ranked_scores, dtype=np.float64)
        if self.settings.tag_boost and rows_list:
            scores = scores * self._tag_factors(table, rows_list, text)
            order = np.argsort(-scores, kind="stable")
            rows_list = [rows_list[i] for i in order]
            scores = scores[order]
        files = table.file_code[rows_list].tolist()
        headings = [table.cols["heading"][r] for r in rows_list]
        s = self.settings
        penalty = s.project_file_penalty if scope == "project" else s.file_penalty
        return diversify(rows_list, scores.tolist(), files, headings, penalty=penalty)

    def _tag_factors(self, table: ChunkTable, rows: list[int], text: str) -> np.ndarray:
        import numpy as np

        from atlas_core.search.tokenize import query_terms

        terms = set(query_terms(text))
        factors = np.ones(len(rows))
        for i, row in enumerate(rows):
            tags = table.cols["cluster_tags"][row] or ()
            if any(t in terms for tag in tags for t in query_terms(tag)):
                factors[i] += self.settings.tag_boost
        return factors

    def _rerank(
        self, text: str, found: list[tuple[float, int, int]]
    ) -> list[tuple[float, int, int]]:
        reranker = self.reranker()
        passages = []
        for _, index, row in found:
            c = self._parts[index].table().cols
            heading = c["heading"][row] or c["title"][row]
            passages.append(f"{heading}\n{c['text'][row] or c['embed_text'][row]}")
        scores = reranker.score(text, passages)
        rescored = [
            (float(s), index, row) for s, (_, index, row) in zip(scores, found, strict=True)
        ]
        rescored.sort(key=lambda item: -item[0])
        return rescored

    def reranker(self) -> Reranker:
        if self._reranker is None:
            with self._lock:
                if self._reranker is None:
                    directory = self.reranker_dir
                    if directory is None:
                        from atlas_core.config import load_config

                        configured = load_config().get("rerank", "model")
                        directory = Path(configured).expanduser() if configured else None
                    if directory is None:
                        raise ModelError(
                            "reranking asked for, but no cross-encoder is configured",
                            hint=f'set {RERANK_ENV}=DIR or [rerank] model = "DIR" in the config '
                            "file (DIR holds model.onnx and tokenizer.json)",
                        )
                    from atlas_core.search.rerank import load_reranker

                    self._reranker = load_reranker(directory, prefer=self._parts[0].prefer)
        return self._reranker

    # -- identifiers ---------------------------------------------------------------------------

    def lookup(self, identifier: str, limit: int = 10) -> list[Candidate]:
        """Where an identifier is documented: candidates best first (confidence in [0, 1])."""
        if not isinstance(identifier, str) or not identifier.strip():
            raise QueryError(
                "empty identifier", hint="pass an endpoint, operation, type or JSON key name"
            )
        text = CONTROL_CHARS.sub(" ", identifier).strip()[:MAX_QUERY_CHARS]
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        merged: list[tuple[int, Candidate]] = []
        multi = len(self._parts) > 1
        for index, part in self._documented():
            for candidate in part.identifiers().lookup(text, limit):
                merged.append((index, replace(candidate, bundle=part.name) if multi else candidate))
        merged.sort(key=lambda item: (-item[1].confidence, item[0]))
        return [candidate for _, candidate in merged[:limit]]

    def resolve(self, identifier: str, limit: int = 10) -> list[Candidate]:
        """`lookup` with one candidate per subject: an endpoint documented on three pages is
        answered once, at its best page, the other pages in `Candidate.also`."""
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        # Pages of one subject come in runs; four times the limit leaves room to fold them.
        return group_pages(self.lookup(identifier, min(limit * 4, MAX_LIMIT)), limit)

    def definitions(
        self,
        name: str,
        *,
        method: str = "",
        path: str = "",
        schema: str = "",
        limit: int = 50,
    ) -> list[Definition]:
        """What `name` is as a parameter or property: one definition per operation or schema
        that takes it, most common meaning first (`Definition.meaning` counts each). `method` and
        `path` (``/rest/2.0`` base or not) keep one operation's parameters and the properties of
        its request and response schemas; `schema` keeps that schema's properties. Nothing for a
        name no spec or table defines, and for text no name could be."""
        if not isinstance(name, str):
            raise QueryError(f"parameter name must be text, got {type(name).__name__}")
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        text = CONTROL_CHARS.sub(" ", name).strip()[:MAX_QUERY_CHARS]
        if not text or not all(isinstance(v, str) for v in (method, path, schema)):
            return []
        where = {
            "method": CONTROL_CHARS.sub("", method).strip()[:16],
            "path": CONTROL_CHARS.sub("", path).strip()[:MAX_QUERY_CHARS],
            "schema": CONTROL_CHARS.sub("", schema).strip()[:MAX_QUERY_CHARS],
        }
        if any(
            given and not where[key]
            for key, given in zip(where, (method, path, schema), strict=True)
        ):
            return []  # a restriction of nothing but control characters restricts to nothing
        merged: list[tuple[int, int, Definition]] = []
        multi = len(self._parts) > 1
        for index, part in self._documented():
            for order, found in enumerate(
                part.identifiers().definitions(text, **where, limit=limit)
            ):
                merged.append((order, index, replace(found, bundle=part.name) if multi else found))
        # Each bundle's list is already most common meaning first; several interleave by rank.
        merged.sort(key=lambda item: (-item[2].meaning, item[0], item[1]))
        return [found for _, _, found in merged[:limit]]

    def resolve_call(self, site: CallSite, *, define: bool = True) -> CallTarget | None:
        """The documented operation an API call in client code calls (its HTTP method and URL,
        or a generated client's method name), and the parameter or request-body property the
        cursor is on, with its definition (not `define`: without, which saves reading the
        name's definitions for a caller that reads them anyway); None when no operation fits."""
        from atlas_core.identifiers.call_target import resolve_call

        return resolve_call(self.lookup, site, self.definitions if define else None)

    # -- checking API calls --------------------------------------------------------------------

    def api_model(self) -> ApiModel:
        """The operations the bundles' specs and docs describe, built on first use."""
        if self._api is None:
            with self._lock:
                if self._api is None:
                    self._api = self._build_api_model()
        return self._api

    def _build_api_model(self) -> ApiModel:
        from atlas_core.apicheck import ApiModel, build_model

        specs: list[Any] = []
        operations: list[Any] = []
        for _, part in self._documented():
            ids = part.identifiers()

            def page_url(relpath: str, part: _Part = part) -> str:
                try:
                    return self.mirror_path(part.name, relpath).as_uri() if relpath else ""
                except (AtlasError, ValueError):
                    return ""

            found = build_model(
                part.name, part.bundle.manifest, ids.endpoint_rows(), ids.schema_params, page_url
            )
            specs.extend(found[0])
            known = {(op.method, op.segments) for op in operations}
            operations.extend(op for op in found[1] if (op.method, op.segments) not in known)
        return ApiModel(tuple(specs), operations)

    def usages(self, method: str, path: str, limit: int = 20) -> list[Usage]:
        """Where the project's code (an open project bundle) calls the documented operation
        `method` `path` (as the docs name it: ``GET /assets``), in file and line order."""
        if not isinstance(method, str) or not isinstance(path, str):
            return []
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        if self._usages is None:
            projects = self._projects_beside_docs()
            if projects:
                self.api_model()  # built first: it takes the same lock
            with self._lock:
                if self._usages is None:
                    self._usages = self._find_usages(projects) if projects else {}
        return self._usages.get((method.strip().upper(), path.strip()), [])[:limit]

    def usages_of(self, candidate: Candidate, limit: int = 20) -> list[Usage]:
        """`usages` of the operation a lookup candidate names (an endpoint or operation id)."""
        if not candidate.method or not candidate.path:
            return []
        return self.usages(candidate.method, candidate.path, limit)

    def _find_usages(self, projects: list[_Part]) -> dict[tuple[str, str], list[Usage]]:
        """Every API call the `projects` bundles' chunks recorded, resolved against the docs.
        Imported here: a docs-only engine (a language server's first hover) never imports the
        code chunker."""
        from atlas_core.sources.code_chunks import parse_call, qualified_name

        found: dict[tuple[str, str], list[Usage]] = {}
        seen: set[tuple[str, str, int]] = set()
        multi = len(self._parts) > 1
        for part in projects:
            c = part.table().cols
            for row, calls in enumerate(c["calls"]):
                for entry in calls or ():
                    call = parse_call(entry)
                    if call is None:
                        continue
                    line, method, url = call
                    operation = self.api_operation(method, url)
                    file = c["file"][row]
                    if operation is None or (part.name, file, line) in seen:
                        continue
                    seen.add((part.name, file, line))
                    usage = Usage(
                        file=file,
                        line=line,
                        method=operation.method,
                        path=operation.path,
                        symbol=qualified_name(c["parent"][row] or "", c["symbol"][row] or ""),
                        bundle=part.name if multi else "",
                    )
                    found.setdefault((operation.method, operation.path), []).append(usage)
        for usages in found.values():
            usages.sort(key=lambda u: (u.bundle, u.file, u.line))
        return found

    def _projects_beside_docs(self) -> list[_Part]:
        """The project bundles, when docs are served beside them; else none. Without both there
        are no usages, and the API model (~0.2 s at 12,500 endpoints) is not built for them."""
        projects = [p for p in self._parts if p.scope == "project"]
        return projects if len(projects) < len(self._parts) else []

    def api_operation(self, method: str, url: str) -> Operation | None:
        """The documented operation a call's method and URL (as the call reader spells it:
        unknown parts ``{}``) name, or None when the URL is not the API's or no operation fits."""
        from atlas_core.apicheck.check import locate, resolve

        model = self.api_model()
        where = locate(model, url) if model else None
        if where is None:
            return None
        return resolve(model, method, where.segments).operation

    def check_code(
        self,
        text: str,
        language: str,
        *,
        sites: Sequence[Located] | None = None,
        read_site: Callable[[int, int], CallSite | None] | None = None,
    ) -> list[ApiFinding]:
        """What is wrong with the API calls in a document: unknown endpoints, methods a path
        does not take, unknown or missing keys, values outside an enum, deprecated operations
        and parameters (see `atlas_core.apicheck`). Nothing for calls it cannot see whole.
        `sites` are the document's calls when the caller has scanned them already
        (`CallReader.scan`, over a tree it keeps), `read_site(line, column)` the call reader
        over this text (to confirm generated-client calls of deprecated operations)."""
        from atlas_core.apicheck import check_located
        from atlas_core.apicheck.check import check_client_calls
        from atlas_core.recognize.calls import CallReader
        from atlas_core.recognize.calls.scan import scan_calls

        if not isinstance(text, str) or not isinstance(language, str):
            raise QueryError("check_code takes the document text and its language id")
        model = self.api_model()
        if not model:
            return []
        lines = text.split("\n")
        found = list(sites) if sites is not None else scan_calls(text, language)
        findings = check_located(model, found, lambda n: lines[n] if 0 <= n < len(lines) else "")
        reader = CallReader(capacity=1)  # parses the text once for every call it confirms

        def read_here(line: int, column: int) -> CallSite | None:
            return reader.read("memory:", text, None, language, line, column)

        findings += check_client_calls(model, text, read_site or read_here)
        findings.sort(key=lambda f: (f.line, f.start))
        return findings

    def check_request(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> list[ApiFinding]:
        """What is wrong with one request (`method`, `path` with or without the ``/rest/2.0``
        base, query `params`, JSON `body`) by the specs in the bundles."""
        from atlas_core.apicheck import check_request

        if not isinstance(method, str) or not isinstance(path, str) or not path.strip():
            raise QueryError(
                "a request needs a method and a path",
                hint="pass e.g. method='GET', path='/rest/2.0/assets'",
            )
        if params is not None and not isinstance(params, Mapping):
            raise QueryError("params must be an object of query parameter names to values")
        text = CONTROL_CHARS.sub("", path).strip()[:MAX_QUERY_CHARS]
        verb = CONTROL_CHARS.sub("", method).strip().upper()[:16]
        return check_request(self.api_model(), verb, text, params, body)[1]

    def symbols(self, query: str, limit: int = 50, *, project: bool = False) -> list[Symbol]:
        """Workspace-symbol search: identifiers and headings fuzzy-matched, best first; with
        `project`, also the definitions in the team's own code (a project bundle)."""
        if not isinstance(query, str):
            raise QueryError(f"symbol query must be text, got {type(query).__name__}")
        text = CONTROL_CHARS.sub(" ", query).strip()[:MAX_QUERY_CHARS]
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        merged: list[tuple[int, Symbol]] = []
        multi = len(self._parts) > 1
        # Room for the pages of one subject that `one_per_subject` folds away.
        wanted = min(limit * 2, MAX_LIMIT)
        parts = enumerate(self._parts) if project else self._documented()
        for index, part in parts:
            for symbol in part.identifiers().symbols(text, wanted):
                merged.append((index, replace(symbol, bundle=part.name) if multi else symbol))
        merged.sort(key=lambda item: (-item[1].score, item[0]))
        return one_per_subject([symbol for _, symbol in merged], limit)

    def deprecations(self) -> list[Deprecation]:
        out: list[Deprecation] = []
        for _, part in self._documented():
            out.extend(part.identifiers().deprecations())
        return out

    def endpoints(self, prefix: str = "", limit: int = 50) -> list[Candidate]:
        """Endpoints whose path starts with `prefix` (for completion), at most `limit`."""
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        text = CONTROL_CHARS.sub(" ", prefix or "").strip()[:MAX_QUERY_CHARS]
        out: list[Candidate] = []
        multi = len(self._parts) > 1
        for _, part in self._documented():
            for candidate in part.identifiers().endpoints(text, limit):
                out.append(replace(candidate, bundle=part.name) if multi else candidate)
        return out[:limit]

    # -- readiness -----------------------------------------------------------------------------

    def warm_up(self, modes: Sequence[str] = WARM_MODES) -> None:
        """Load everything `modes` serve and answer one request of each, now.

        Modes: ``lookup`` (identifier lookup, endpoint completion, deprecations), ``symbols``,
        ``keyword``, ``vector`` (loads the embedding model; a host that must never load it leaves
        it out) and ``chunks`` (the chunk table and get_chunk). Hot reload runs this before it
        swaps a new engine in, so a bundle that opens but cannot answer is refused there, with the
        BundleError of the file at fault, instead of failing the requests that come after the swap.
        """
        unknown = sorted(set(modes) - set(WARM_MODES))
        if unknown:
            raise ValueError(f"unknown warm-up modes {unknown}; known: {', '.join(WARM_MODES)}")
        if "vector" in modes:
            self.prepare_vector_search()  # converts while the tables below load
        for part in self._parts:
            if "lookup" in modes or "symbols" in modes:
                first = part.identifiers().symbols("", limit=1)
                name = (first[0].name if first else "") or "warm-up"
                if "lookup" in modes:
                    self.lookup(name, limit=3)
                    self.endpoints("/", limit=3)
                    self.deprecations()
                if "symbols" in modes:
                    self.symbols(name[:3], limit=5)
            if {"chunks", "keyword", "vector"} & set(modes):
                table = part.table()
                if table.n and "chunks" in modes:
                    self.chunk(table.cols["chunk_id"][0])
        searches = [m for m in ("keyword", "vector") if m in modes]
        if len(searches) == 2:
            searches.append("hybrid")
        if searches:
            probe = self._probe_text(keyword="keyword" in modes)
            for mode in searches:
                self.search(probe, mode=mode, top_k=3)
        self.wait_prepared()  # everything is loaded now: the threads only have to end

    def prepare_vector_search(self) -> None:
        """Get vector and hybrid search ready in the background and return at once: each
        bundle's vectors are converted to float32 (0.15-0.4 s at 100,000 chunks) and its ranking
        and per-chunk ranking features loaded, so the first question pays none of it. Hover and
        keyword search keep answering meanwhile. What cannot be loaded is skipped here: the search
        that needs it reports it."""
        for part in self._parts:
            try:
                part.dense().start_conversion()
            except (AtlasError, OSError) as exc:
                log.warning("bundle %s: vectors not converted ahead: %s", part.name, exc)
        thread = threading.Thread(target=self._load_rankings, name="atlas-ranking", daemon=True)
        self._preparing.append(thread)
        thread.start()

    def wait_prepared(self, timeout: float | None = None) -> None:
        """Wait until what `prepare_vector_search` started has ended: no thread of it runs after
        this (a supervisor forks its workers only then)."""
        while self._preparing:
            self._preparing.pop().join(timeout)
        for part in self._parts:
            if part._dense is not None:
                part._dense.wait_converted(timeout)

    def _load_rankings(self) -> None:
        for part in self._parts:
            try:
                model, _ = part.ranking()
                if model is not None:
                    part.rank_context()
            except Exception as exc:  # reported by the first hybrid search that needs it
                log.debug("bundle %s: ranking not loaded ahead: %s", part.name, exc)

    def _probe_text(self, *, keyword: bool) -> str:
        """A query that finds something: a word of the first bundle's vocabulary (its middle row,
        past the digits and short words that sort first), else the first chunk's title."""
        part = self._parts[0]
        if keyword:
            terms = part.keyword().terms
            if terms:
                return terms[len(terms) // 2]
        table = part.table()
        return str(table.cols["title"][0]) if table.n else "documentation"

    def bundle_folders(self) -> list[str]:
        """The folders the opened bundles were read from, links resolved when they were opened."""
        return [str(part.bundle.path) for part in self._parts]

    def missing_bundles(self) -> list[str]:
        """Folders of opened bundles that were deleted since: what is loaded still answers, but
        their files (the docs mirror, anything not loaded yet) cannot be read."""
        return [str(part.bundle.path) for part in self._parts if part.gone()]

    # -- chunks and info -----------------------------------------------------------------------

    def chunk(self, chunk_id: str) -> Chunk | None:
        if not isinstance(chunk_id, str) or not chunk_id:
            return None
        for part in self._parts:
            table = part.table()
            row = table.row_of(chunk_id)
            if row is not None:
                return table.chunk(row)
        return None

    def info(self) -> BundleInfo:
        """The first bundle's summary; `extra["bundles"]` lists every opened bundle."""
        part = self._parts[0]
        embedder = part._embedder
        return replace(
            self._info_of(part),
            backend=getattr(embedder, "backend", "") if embedder is not None else "",
            backend_reason=getattr(embedder, "backend_reason", "") if embedder else "",
            extra={
                "bundles": [
                    {"name": p.name, "path": str(p.bundle.path), "chunks": p.bundle.chunk_count}
                    for p in self._parts
                ],
                "keyword": dict(part.bundle.section("keyword") or {}),
                "ranking": part.ranking_line(),
                # Not empty only after a served bundle's folder was deleted: answers then come
                # from memory and point into files that are gone.
                "missing": self.missing_bundles(),
            },
        )

    # -- what is served ------------------------------------------------------------------------

    def serves_demo(self) -> bool:
        """Whether an open bundle is the embedded demo (sample docs, not Collibra's), which every
        surface serving it must say."""
        return any(part.bundle.is_demo for part in self._parts)

    def bundle_infos(self) -> list[BundleInfo]:
        """Every opened bundle's summary, in order, each under the name its results carry."""
        return [self._info_of(part) for part in self._parts]

    def mirror_path(self, bundle: str, relpath: str) -> Path:
        """Where a result's page lies: `relpath` (a result's `file`) in the docs mirror of the
        bundle named `bundle` (a result's `bundle`; "" names the first bundle, which is what
        results carry when only one is open)."""
        from atlas_core.bundle.manifest import safe_relpath

        part = self._part_named(bundle)
        if not safe_relpath(relpath):
            raise QueryError(
                f"{relpath!r} is not a page path inside a docs mirror",
                hint="use the `file` of a result: a relative POSIX path without '..'",
            )
        return part.bundle.mirror_dir / relpath

    def scope_of(self, bundle: str) -> str:
        """ "docs" or "project" (see `search`) for the open bundle named `bundle`."""
        return self._part_named(bundle).scope

    def project_file(self, bundle: str, relpath: str) -> Path | None:
        """For a project bundle's result, the file in the repository it was indexed from (so
        an editor opens the real file); None for a docs bundle, or when that file is gone."""
        from atlas_core.bundle.manifest import safe_relpath

        try:
            part = self._part_named(bundle)
        except AtlasError:
            return None
        if part.scope != "project" or not safe_relpath(relpath):
            return None
        for source in part.bundle.manifest.get("sources") or []:
            root = source.get("path") if isinstance(source, dict) else None
            if source.get("kind") != "code" or not isinstance(root, str) or "commit" in source:
                continue  # a commit's files are not the working tree's
            path = Path(root) / relpath
            if path.is_file() and not path.is_symlink():
                return path
        return None

    def doc_files(self, bundle: str) -> list[DocFile]:
        """The pages the chunk table of `bundle` knows and its manifest lists in the mirror (with
        its hash: what the build wrote), with the publication, title and web URL of each page's
        first chunk ("" names the first bundle)."""
        from atlas_core.bundle.manifest import MIRROR

        part = self._part_named(bundle)
        table = part.table()
        c = table.cols
        listed = part.bundle.files
        first: dict[str, int] = {}  # page -> row of its first chunk (lowest line, then row)
        for row, file in enumerate(c["file"]):
            if f"{MIRROR}/{file}" not in listed:
                continue
            seen = first.get(file)
            if seen is None or c["line_start"][row] < c["line_start"][seen]:
                first[file] = row
        return [
            DocFile(
                file=file,
                publication=c["publication"][row] or "",
                title=c["title"][row] or "",
                url=(c["url"][row] or "").split("#")[0],
            )
            for file, row in first.items()
        ]

    def section_at(self, bundle: str, relpath: str, line: int) -> Section:
        """The section around `line` (1-based) of a page of `bundle`'s mirror: its heading path
        and line range, subsections included. A page that cannot be read gives the line alone,
        with no heading."""
        outline = self._part_named(bundle).outline(relpath)
        if outline is None:
            return Section(heading="", line_start=line, line_end=line)
        return outline.section_at(line)

    def _part_named(self, bundle: str) -> _Part:
        if not bundle:
            return self._parts[0]
        for part in self._parts:
            if part.name == bundle:
                return part
        names = ", ".join(repr(p.name) for p in self._parts)
        raise QueryError(
            f"no open bundle is named {bundle!r}",
            hint=f"the open bundles are {names} (results name theirs in `bundle`)",
        )

    def _info_of(self, part: _Part) -> BundleInfo:
        return replace(part.bundle.info(), name=part.name, load_ms=round(part.opened_ms, 3))


def _read_page(path: Path) -> bytes | None:
    """A mirror page's bytes, or None when it is not a readable regular file of a page's size."""
    try:
        with os.fdopen(os.open(path, _PAGE_FLAGS), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(MAX_PAGE_BYTES + 1)
    except OSError:
        log.debug("cannot read the mirror page %s", path, exc_info=True)
        return None
    return data if len(data) <= MAX_PAGE_BYTES else None
