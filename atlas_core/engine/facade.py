"""`Engine`, the one object every front end holds: it checks what it is asked and hands each
question to the part that owns it (see the package's docstring for the parts)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas_core.engine.api_checks import ApiChecks
from atlas_core.engine.deprecations import DeprecatedTerms, DeprecationMatcher
from atlas_core.engine.describe import DescribeContext, Description, describe
from atlas_core.engine.hybrid import HybridSearch
from atlas_core.engine.lookup import IdentifierQueries
from atlas_core.engine.parts import OpenBundle, OpenBundles, open_bundles
from atlas_core.engine.readiness import WARM_MODES, Preparation, warm_up
from atlas_core.engine.resolution import Resolution, recognitions_at, resolve_recognitions
from atlas_core.engine.served import ServedBundles
from atlas_core.identifiers import group_pages
from atlas_core.search import MAX_LIMIT, SearchSettings, clamp_count
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
    from atlas_core.apicheck import ApiModel, Operation
    from atlas_core.bundle import Bundle
    from atlas_core.identifiers import CallTarget
    from atlas_core.recognize import CallSite, Located, RecognizerSet
    from atlas_core.search import Reranker


class Engine:
    """Search and identifier resolution over one or more opened bundles."""

    def __init__(
        self,
        parts: list[OpenBundle],
        *,
        reranker_dir: Path | None = None,
        settings: SearchSettings | None = None,
    ) -> None:
        opened = OpenBundles(parts)
        self._parts = parts
        self._search = HybridSearch(opened, settings or SearchSettings(), reranker_dir)
        self._lookup = IdentifierQueries(opened)
        self._served = ServedBundles(opened)
        self._checks = ApiChecks(opened, self._served.mirror_path)
        self._prepared = Preparation(parts)
        self._terms = DeprecatedTerms(self)

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
        paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
        reranker_dir = reranker or None  # the `reranker` setting, which the entry point passes
        return cls(
            open_bundles(paths, prefer),
            reranker_dir=Path(reranker_dir) if reranker_dir else None,
            settings=settings,
        )

    @property
    def settings(self) -> SearchSettings:
        """The ranking knobs searches run with (changed in place, they apply to the next one)."""
        return self._search.settings

    @settings.setter
    def settings(self, value: SearchSettings) -> None:
        self._search.settings = value

    @property
    def reranker_dir(self) -> Path | None:
        return self._search.reranker_dir

    @property
    def bundles(self) -> list[Bundle]:
        """The opened bundles, in the order they were given."""
        return [p.bundle for p in self._parts]

    def close(self) -> None:
        for part in self._parts:
            part.close()
        self._search.close()

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
        fallback: bool = False,
    ) -> list[Hit]:
        """Ranked passages for a question or an identifier; at most `MAX_TOP_K`. `scope` keeps
        the documentation ("docs"), the team's own code ("project", see `atlas index`) or both.
        Without `snippets` each hit's snippet is left empty, for a caller that shows the
        passage itself (cutting a snippet was four fifths of a keyword search's time).

        A search list whose files changed since the build is off (see `search_off`): hybrid
        answers from the other list; keyword or vector alone raises the BundleError naming the
        file, or with `fallback` answers from the other list (a host then says so)."""
        return self._search(query, mode, top_k, filters, rerank, scope, snippets, fallback)

    def search_off(self) -> dict[str, str]:
        """The search lists ("keyword", "vector") found off so far, each with the line naming
        the file that changed since the build, for a host to show beside its answers."""
        off: dict[str, str] = {}
        for part in self._parts:
            for mode, error in part.off().items():
                off.setdefault(mode, error.message)
        return off

    def reranker(self) -> Reranker:
        return self._search.reranker()

    # -- identifiers ---------------------------------------------------------------------------

    def lookup(self, identifier: str, limit: int = 10) -> list[Candidate]:
        """Where an identifier is documented: candidates best first (confidence in [0, 1])."""
        return self._lookup.lookup(identifier, limit)

    def resolve(self, identifier: str, limit: int = 10) -> list[Candidate]:
        """`lookup` with one candidate per subject: an endpoint documented on three pages is
        answered once, at its best page, the other pages in `Candidate.also`."""
        limit = clamp_count(limit, "limit", MAX_LIMIT)
        # Pages of one subject come in runs; four times the limit leaves room to fold them.
        return group_pages(self.lookup(identifier, min(limit * 4, MAX_LIMIT)), limit)

    def definitions(
        self, name: str, *, method: str = "", path: str = "", schema: str = "", limit: int = 50
    ) -> list[Definition]:
        """What `name` is as a parameter or property: one definition per operation or schema
        that takes it, most common meaning first (`Definition.meaning` counts each). `method` and
        `path` (``/rest/2.0`` base or not) keep one operation's parameters and the properties of
        its request and response schemas; `schema` keeps that schema's properties. Nothing for a
        name no spec or table defines, and for text no name could be."""
        return self._lookup.definitions(name, method, path, schema, limit)

    def resolve_call(self, site: CallSite, *, define: bool = True) -> CallTarget | None:
        """The documented operation an API call in client code calls (its HTTP method and URL,
        or a generated client's method name), and the parameter or request-body property the
        cursor is on, with its definition (not `define`: without, which saves reading the
        name's definitions for a caller that reads them anyway); None when no operation fits."""
        from atlas_core.identifiers import target_of_call

        return target_of_call(self.lookup, site, self.definitions if define else None)

    def symbols(self, query: str, limit: int = 50, *, project: bool = False) -> list[Symbol]:
        """Workspace-symbol search: identifiers and headings fuzzy-matched, best first; with
        `project`, also the definitions in the team's own code (a project bundle)."""
        return self._lookup.symbols(query, limit, project)

    def deprecations(self) -> list[Deprecation]:
        return self._lookup.deprecations()

    def deprecated_terms(self) -> DeprecationMatcher:
        """The matcher of the deprecated terms in any text, built on first use (it judges every
        term against the API model: call it off an event loop)."""
        return self._terms.matcher()

    def deprecation_of(self, *names: str) -> Deprecation | None:
        """The deprecation whose term is one of `names`, without building the whole matcher."""
        return self._terms.deprecation_of(*names)

    def resolve_at(
        self,
        lines: Sequence[str],
        line: int,
        column: int,
        language: str,
        recognizers: RecognizerSet,
    ) -> Resolution | None:
        """The documented identifiers at a (line, code-point column) of a document, ranked for a
        cursor (only exact or normalized matches, kinds that fit the text); None for nothing."""
        found = recognitions_at(lines, line, column, language, recognizers)
        return resolve_recognitions(self.lookup, found, language)

    def describe(self, name: str, context: DescribeContext | None = None) -> Description:
        """Everything a host shows about `name` (see `DescribeContext` for what `context`
        decides): what the hover and `lookup_identifier` render."""
        return describe(self, name, context or DescribeContext())

    def endpoints(self, prefix: str = "", limit: int = 50) -> list[Candidate]:
        """Endpoints whose path starts with `prefix` (for completion), at most `limit`."""
        return self._lookup.endpoints(prefix, limit)

    # -- checking API calls --------------------------------------------------------------------

    def api_model(self) -> ApiModel:
        """The operations the bundles' specs and docs describe, built on first use."""
        return self._checks.model()

    @property
    def _api(self) -> ApiModel | None:
        """The API model if built yet (tests check that a docs-only engine never builds it)."""
        return self._checks._api

    def usages(self, method: str, path: str, limit: int = 20) -> list[Usage]:
        """Where the project's code (an open project bundle) calls the documented operation
        `method` `path` (as the docs name it: ``GET /assets``), in file and line order."""
        return self._checks.usages(method, path, limit)

    def usages_of(self, candidate: Candidate, limit: int = 20) -> list[Usage]:
        """`usages` of the operation a lookup candidate names (an endpoint or operation id)."""
        if not candidate.method or not candidate.path:
            return []
        return self.usages(candidate.method, candidate.path, limit)

    def api_operation(self, method: str, url: str) -> Operation | None:
        """The documented operation a call's method and URL (as the call reader spells it:
        unknown parts ``{}``) name, or None when the URL is not the API's or no operation fits."""
        return self._checks.operation(method, url)

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
        return self._checks.check_code(text, language, sites, read_site)

    def check_request(
        self, method: str, path: str, params: Mapping[str, Any] | None = None, body: Any = None
    ) -> list[ApiFinding]:
        """What is wrong with one request (`method`, `path` with or without the ``/rest/2.0``
        base, query `params`, JSON `body`) by the specs in the bundles."""
        return self._checks.check_request(method, path, params, body)

    # -- readiness -----------------------------------------------------------------------------

    def warm_up(self, modes: Sequence[str] = WARM_MODES) -> None:
        """Load everything `modes` serve and answer one request of each, now.

        Modes: ``lookup`` (identifier lookup, endpoint completion, deprecations), ``symbols``,
        ``keyword``, ``vector`` (loads the embedding model; a host that must never load it leaves
        it out) and ``chunks`` (the chunk table and get_chunk). Hot reload runs this before it
        swaps a new engine in, so a bundle that opens but cannot answer is refused there, with the
        BundleError of the file at fault, instead of failing the requests that come after the swap.
        """
        warm_up(self, self._parts, modes)

    def prepare_vector_search(self) -> None:
        """Get vector and hybrid search ready in the background and return at once: each
        bundle's vectors are converted to float32 (0.15-0.4 s at 100,000 chunks) and its ranking
        and per-chunk ranking features loaded, so the first question pays none of it. Hover and
        keyword search keep answering meanwhile. What cannot be loaded is skipped here: the search
        that needs it reports it."""
        self._prepared.start()

    def wait_prepared(self, timeout: float | None = None) -> None:
        """Wait until what `prepare_vector_search` started has ended: no thread of it runs after
        this (a supervisor forks its workers only then)."""
        self._prepared.wait(timeout)

    def bundle_folders(self) -> list[str]:
        """The folders the opened bundles were read from, links resolved when they were opened."""
        return [str(part.bundle.path) for part in self._parts]

    def missing_bundles(self) -> list[str]:
        """Folders of opened bundles that were deleted since: what is loaded still answers, but
        their files (the docs mirror, anything not loaded yet) cannot be read."""
        return [str(part.bundle.path) for part in self._parts if part.gone()]

    # -- chunks and what is served -------------------------------------------------------------

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
        return self._served.summary(self.missing_bundles())

    def serves_demo(self) -> bool:
        """Whether an open bundle is the embedded demo (sample docs, not Collibra's), which every
        surface serving it must say."""
        return any(part.bundle.is_demo for part in self._parts)

    def bundle_infos(self) -> list[BundleInfo]:
        """Every opened bundle's summary, in order, each under the name its results carry."""
        return [self._served.info_of(part) for part in self._parts]

    def mirror_path(self, bundle: str, relpath: str) -> Path:
        """Where a result's page lies: `relpath` (a result's `file`) in the docs mirror of the
        bundle named `bundle` (a result's `bundle`; "" names the first bundle, which is what
        results carry when only one is open)."""
        return self._served.mirror_path(bundle, relpath)

    def scope_of(self, bundle: str) -> str:
        """ "docs" or "project" (see `search`) for the open bundle named `bundle`."""
        return self._served.bundles.named(bundle).scope

    def project_file(self, bundle: str, relpath: str) -> Path | None:
        """For a project bundle's result, the file in the repository it was indexed from (so
        an editor opens the real file); None for a docs bundle, or when that file is gone."""
        return self._served.project_file(bundle, relpath)

    def doc_files(self, bundle: str) -> list[DocFile]:
        """The pages the chunk table of `bundle` knows and its manifest lists in the mirror (with
        its hash: what the build wrote), with the publication, title and web URL of each page's
        first chunk ("" names the first bundle)."""
        return self._served.doc_files(bundle)

    def section_at(self, bundle: str, relpath: str, line: int) -> Section:
        """The section around `line` (1-based) of a page of `bundle`'s mirror: its heading path
        and line range, subsections included. A page that cannot be read gives the line alone,
        with no heading."""
        return self._served.section_at(bundle, relpath, line)
