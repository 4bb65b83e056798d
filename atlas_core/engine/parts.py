"""The bundles an engine has open: each one (`OpenBundle`) loads its indexes on first use, and
the set of them (`OpenBundles`) says which answer lookups and tags every result with its bundle.

`Engine.open` reads only manifests; a capability's first question loads what it needs (the
identifier table for lookup, the chunk table and keyword index for keyword search, the vectors and
the embedding model for vector search), each once, under the bundle's lock.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from atlas_core.errors import AtlasError, BundleError, QueryError
from atlas_core.search import ChunkTable
from atlas_core.types import Hit

if TYPE_CHECKING:
    from atlas_core.bundle import Bundle
    from atlas_core.identifiers import IdentifierIndex
    from atlas_core.search import DenseIndex, KeywordIndex, RankContext, RankingModel

log = logging.getLogger(__name__)

T = TypeVar("T")
GONE_HINT = (
    "install the bundle again (`atlas download`, or `atlas restore` from a backup) or point the "
    "server at an existing one; a server watching the path loads a new bundle there by itself"
)
# The files each search list reads, by prefix: one changed since the build turns its list off and
# the other keeps answering.
SEARCH_FILES = {"keyword": "keyword/", "vector": "vectors.npy"}


def load_once(
    owner: object, attr: str, lock: threading.Lock | threading.RLock, load: Callable[[], T]
) -> T:
    """`owner.attr`, set by `load()` the first time it is None. The check is repeated under
    `lock` so that two threads asking at once load it once; later calls take no lock."""
    value = getattr(owner, attr)
    if value is None:
        with lock:
            value = getattr(owner, attr)
            if value is None:
                value = load()
                setattr(owner, attr, value)
    return value


def refuse_unscanned_code(manifest: Mapping[str, Any], path: Path) -> None:
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
class OpenBundle:
    """One opened bundle and whatever of it has been loaded so far."""

    bundle: Bundle
    name: str  # unique among the engine's bundles: the manifest's name, or that name with -2, -3
    prefer: str | None
    opened_ms: float
    lock: threading.RLock = field(default_factory=threading.RLock)
    _table: ChunkTable | None = None
    _keyword: KeywordIndex | None = None
    _dense: DenseIndex | None = None
    _embedder: Any = None
    _ids: IdentifierIndex | None = None
    _ranking: tuple[RankingModel | None, str] | None = None
    _rank_context: RankContext | None = None
    _cards: tuple[Any] | None = None  # (the page cards, or None when the bundle has none)
    _headings: tuple[Any] | None = None  # (the heading vectors' index, or None: none there)
    _off: dict[str, BundleError] = field(default_factory=dict)  # search list -> why it is off

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

    def _load(self, attr: str, what: str, load: Callable[[], T]) -> T:
        """`attr` loaded once by `load`; a failure says so plainly when the bundle's folder it
        would be read from is gone."""

        def loading() -> T:
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

        return load_once(self, attr, self.lock, loading)

    def table(self) -> ChunkTable:
        return self._load("_table", "chunk table", self._read_table)

    def _read_table(self) -> ChunkTable:
        from atlas_core.bundle import REPAIR_HINT, file_problem

        table = ChunkTable(self.bundle.chunks())
        # Hits send editors and file tools to these paths; the distinct names are at hand here.
        problem = file_problem(table.file_ids)
        if problem:
            path = Path(self.bundle.path) / "chunks.parquet"
            raise BundleError(f"{path}: {problem}", hint=REPAIR_HINT, path=str(path))
        if self.bundle.has_publishers:
            publisher = self.bundle.publisher
            table.mark_third_party({f for f in table.file_ids if publisher(f) == "third-party"})
        return table

    def keyword(self) -> KeywordIndex:
        return self._load("_keyword", "keyword index", lambda: self._confirmed("keyword"))

    def _read_keyword(self) -> KeywordIndex:
        from atlas_core.search import KeywordIndex

        if not self.bundle.section("keyword"):
            raise BundleError(
                f"bundle {self.name} has no keyword index",
                hint="rebuild it with `atlas build`, or search with --mode vector",
                path=str(self.bundle.path),
            )
        return KeywordIndex.open(self.bundle)

    def dense(self) -> DenseIndex:
        return self._load("_dense", "vectors", lambda: self._confirmed("vector"))

    def _confirmed(self, mode: str) -> Any:
        """The index of the search list `mode`, loaded once its files hash to the manifest's
        digests. A file changed in place at the same size passes `Bundle.open` and would answer
        garbage or nothing; it is found here, on first use (in the background for a server:
        `Engine.prepare_vector_search`), reported once, and the list stays off."""
        off = self._off.get(mode)
        if off is None and mode == "vector" and self.bundle.vectors_pending:
            off = BundleError(
                f"bundle {self.name}: vectors are still being computed (`atlas index` writes "
                "keyword and identifier search first); vector search is off for it until they "
                "are in, keyword search answers",
                hint="search with `--mode keyword` meanwhile; a server picks the finished index "
                "up by itself",
                path=str(self.bundle.path),
            )
            log.info("%s", off.message)  # hosts say it beside their answers: `search_off`
            self._off[mode] = off
        if off is None:
            prefix = SEARCH_FILES[mode]
            changed = self.bundle.changed(r for r in self.bundle.files if r.startswith(prefix))
            if not changed and mode == "keyword":
                return self._read_keyword()
            if not changed:
                from atlas_core.search import DenseIndex  # not for keyword search: see test_engine

                return DenseIndex.open(self.bundle)
            from atlas_core.bundle import REPAIR_HINT

            path = Path(self.bundle.path) / changed[0]
            other = "vector" if mode == "keyword" else "keyword"
            off = BundleError(
                f"{path}: changed since the bundle was built (its bytes no longer match "
                f"manifest.json); {mode} search is off for bundle {self.name}, {other} search "
                "still answers",
                hint=f"search with `--mode {other}` meanwhile; {REPAIR_HINT}",
                path=str(path),
            )
            log.info("%s", off.message)  # hosts say it beside their answers: `search_off`
            self._off[mode] = off
        raise off

    def intact(self, mode: str) -> bool:
        """Whether the search list `mode` ("keyword" or "vector") answers: its index loads (here,
        if not yet), False when its files were changed since the build. Other failures raise."""
        try:
            self.keyword() if mode == "keyword" else self.dense()
        except BundleError:
            if mode not in self._off:
                raise
            return False
        return True

    def off(self) -> dict[str, BundleError]:
        """The search lists found off so far (their files changed since the build), each with
        the error that names the file."""
        return dict(self._off)

    def embedder(self) -> Any:
        return self._load("_embedder", "embedding model", self._read_embedder)

    def _read_embedder(self) -> Any:
        from atlas_core.embed import load_bundle_embedder

        started = time.perf_counter()
        embedder = load_bundle_embedder(self.bundle.model_dir, self.prefer)
        log.info(
            "bundle %s: embedding model loaded in %.0f ms (%s)",
            self.name,
            (time.perf_counter() - started) * 1000,
            embedder.backend,
        )
        return embedder

    def identifiers(self) -> IdentifierIndex:
        from atlas_core.identifiers import IdentifierIndex

        return self._load("_ids", "identifier table", lambda: IdentifierIndex.open(self.bundle))

    def ranking(self) -> tuple[RankingModel | None, str]:
        """The bundle's trained ranking (None to rank with the fusion) and a line saying which.

        A bundle built before rankings were trained has none; a ranking file that cannot be used
        is logged once and ignored: answers ranked by the fusion beat no answers (`atlas verify`
        names the file)."""
        return load_once(self, "_ranking", self.lock, self._read_ranking)

    def ranking_line(self) -> str:
        """Which ranking the bundle uses: the loaded ranking's line, or the manifest's word until
        the first hybrid search loads it (without loading numpy for a language server)."""
        if self._ranking is not None:
            return self._ranking[1]
        from atlas_core.search import describe_ranking

        return describe_ranking(self.bundle.manifest)

    def _read_ranking(self) -> tuple[RankingModel | None, str]:
        from atlas_core.search import RANKING_FILE, RankingModel

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

    def cards(self) -> Any:
        """The bundle's page cards (float32, one row per file code of its chunk table), or None:
        a bundle built before cards, or whose cards do not fit, ranks without them."""
        return load_once(self, "_cards", self.lock, self._read_cards)[0]

    def _read_cards(self) -> tuple[Any]:
        from atlas_core.search import load_cards

        return (load_cards(self.bundle, len(self.table().file_ids), self.dense().dims),)

    def headings(self) -> Any:
        """The bundle's heading vectors as an index (`DenseIndex`, one row per chunk), or None:
        a bundle built before them, or whose heading vectors do not fit, ranks without them."""
        return load_once(self, "_headings", self.lock, self._read_headings)[0]

    def _read_headings(self) -> tuple[Any]:
        from atlas_core.search import load_headings

        return (load_headings(self.bundle, self.table().n, self.dense().dims),)

    def rank_context(self) -> RankContext:
        return load_once(self, "_rank_context", self.lock, self._read_rank_context)

    def _read_rank_context(self) -> RankContext:
        from atlas_core.search import RankContext, spec_publications

        table = self.table()
        return RankContext(table.cols, table.file_code, spec_publications(self.bundle.manifest))

    def close(self) -> None:
        heads = self._headings[0] if self._headings is not None else None
        for resource in (self._dense, heads, self._embedder, self._ids):
            close = getattr(resource, "close", None)
            if close is not None:
                close()
        self._dense = self._embedder = self._ids = self._headings = None
        self._keyword = None
        self._table = None


def open_bundles(paths: Sequence[str | os.PathLike[str]], prefer: str | None) -> list[OpenBundle]:
    """Each bundle folder opened (manifests only), under a name unique among them."""
    from atlas_core.bundle import Bundle

    if not paths:
        raise BundleError("no bundle to open", hint="pass at least one bundle directory")
    parts: list[OpenBundle] = []
    names: set[str] = set()
    for item in paths:
        started = time.perf_counter()
        bundle = Bundle.open(Path(item))
        refuse_unscanned_code(bundle.manifest, Path(item))
        name = str(bundle.manifest.get("name") or Path(item).name)
        base, n = name, 2
        while name in names:
            name, n = f"{base}-{n}", n + 1
        names.add(name)
        ms = (time.perf_counter() - started) * 1000
        parts.append(OpenBundle(bundle=bundle, name=name, prefer=prefer, opened_ms=ms))
    return parts


class OpenBundles:
    """The engine's bundles in the order they were given, and what follows from there being
    several: which answer lookups, how a result names its bundle, finding one by name."""

    def __init__(self, parts: list[OpenBundle]) -> None:
        if not parts:
            raise BundleError("no bundle to open", hint="pass at least one bundle directory")
        self.parts = parts
        self.multi = len(parts) > 1
        docs = [(i, p) for i, p in enumerate(parts) if p.scope == "docs"]
        # A project's own definitions never stand in for the docs' (a wrapper named like an
        # operation is not its documentation); with no docs bundle open, the project's are all
        # there is.
        self.documented = docs or list(enumerate(parts))

    def tag(self, item: T, part: OpenBundle) -> T:
        """`item` (a hit, candidate, symbol, definition or usage) under its bundle's name, and a
        hit with its bundle's scope, when several bundles are open; one bundle's results carry
        neither."""
        if not self.multi:
            return item
        if isinstance(item, Hit):
            return cast(T, replace(item, bundle=part.name, scope=part.scope))
        return cast(T, replace(cast(Any, item), bundle=part.name))

    def named(self, bundle: str) -> OpenBundle:
        """The open bundle named `bundle` ("" names the first, which is what results carry when
        only one is open)."""
        if not bundle:
            return self.parts[0]
        for part in self.parts:
            if part.name == bundle:
                return part
        names = ", ".join(repr(p.name) for p in self.parts)
        raise QueryError(
            f"no open bundle is named {bundle!r}",
            hint=f"the open bundles are {names} (results name theirs in `bundle`)",
        )

    def projects_beside_docs(self) -> list[OpenBundle]:
        """The project bundles, when docs are served beside them; else none."""
        projects = [p for p in self.parts if p.scope == "project"]
        return projects if len(projects) < len(self.parts) else []
