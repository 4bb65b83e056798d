"""Typed values the engine hands to its front ends.

Every value is a frozen, slotted dataclass so front ends can share them across threads and never
mutate what the engine owns. Paths in `file` are POSIX paths relative to the document's source root
(for a crawled mirror, relative to `markdown/`, e.g. ``rest-core/assets-api.md``); the bundle's
markdown mirror stores each document's text exactly under that path, so `line` numbers (1-based)
point into the mirror file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

SearchMode = Literal["hybrid", "vector", "keyword"]
SEARCH_MODES: tuple[str, ...] = ("hybrid", "vector", "keyword")

IdentifierKind = Literal[
    "endpoint",  # METHOD + path template, e.g. GET /assets/{assetId}
    "operation",  # operationId, camelCase and snake_case spellings
    "schema",  # OpenAPI schema / type name, e.g. AddAssetRequest
    "type",  # Java/Groovy class, bean or interface named in the docs, e.g. AssetApi
    "json_key",  # Import API JSON key or enum value, e.g. resourceType, continueOnError
    "cli",  # CLI command, e.g. "lineage-harvester full-sync"
    "graphql",  # GraphQL field or type
    "heading",  # an H1-H3 heading of a document
    "parameter",  # a path, query, header or cookie parameter of one operation, e.g. nameMatchMode
    "property",  # a property of a schema or of an operation's request body, e.g. displayName
]


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an operation (path, query, header or body field) or schema property."""

    name: str
    location: str  # "path" | "query" | "header" | "cookie" | "body" | "response"
    type: str = ""
    required: bool = False
    description: str = ""  # markdown (spec HTML already converted)
    format: str = ""  # the schema's format: "uuid", "int64", "date-time", ...
    enum: tuple[str, ...] = ()  # the allowed values, as the spec writes them
    default: str = ""  # the default value as JSON text ("ANYWHERE" is written ANYWHERE)
    deprecated: bool = False  # the spec marks this parameter or property deprecated
    example: str = ""  # the spec's example value, written as `default` is (compact JSON, capped)


@dataclass(frozen=True, slots=True)
class IdentifierEntry:
    """One row of the identifier table, produced at build time."""

    name: str  # display name: "GET /assets/{assetId}", "findAssets", "AssetApi", "Heading text"
    kind: str  # an IdentifierKind
    file: str
    line: int  # 1-based line in the mirror file
    anchor: str = ""  # heading anchor (slug) of the section that documents it
    url: str = ""  # web URL of that section (with #anchor when known)
    summary: str = ""  # one paragraph, plain markdown
    publication: str = ""
    method: str = ""  # endpoints only: GET, POST, ...
    path: str = ""  # endpoints only: the path template without the /rest/2.0 prefix
    operation_id: str = ""
    params: tuple[Param, ...] = ()
    request_schema: str = ""
    response_schema: str = ""
    deprecated: bool = False
    replacement: str = ""  # what to use instead, when the docs say
    # Parameters and properties: the schema that holds a property ("" for an operation's own
    # parameter or an inline body); the operation is `method`, `path` and `operation_id`.
    owner: str = ""


@dataclass(frozen=True, slots=True)
class Document:
    """One documentation page from a source, before chunking."""

    path: str  # stable relative POSIX path, unique within a bundle
    publication: str  # top-level grouping: the mirror section, the spec title, the folder name
    title: str
    url: str  # web URL of the page ("" when unknown)
    text: str  # cleaned markdown body: no front matter; stored verbatim in the bundle mirror
    source: str = ""  # the source kind that produced it: local, mirror, git, openapi, code
    metadata: Mapping[str, Any] = field(default_factory=dict)  # front matter and source extras
    identifiers: tuple[IdentifierEntry, ...] = ()  # entries the source already knows (OpenAPI)

    @property
    def language(self) -> str:
        """The programming language of a `code` source's file ("python", "groovy", "text");
        "" for a markdown page, whatever its source."""
        language = str(self.metadata.get("language", "")) if self.source == "code" else ""
        return "" if language == "markdown" else language


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable passage; row i of the chunk table is row i of the vector matrix."""

    chunk_id: str  # content hash (hex), stable while text and location are unchanged
    file: str
    publication: str
    title: str
    heading: str  # heading path joined with " > ", e.g. "Assets API > Find assets"
    anchor: str  # slug of the deepest heading, for URLs and editor links
    url: str  # web URL of the section ("" when unknown)
    line_start: int  # 1-based, inclusive, in the mirror file
    line_end: int  # 1-based, inclusive
    text: str  # the passage as shown to people (markdown, without the overlap)
    embed_text: str = ""  # what was embedded and indexed: heading path + overlap + text
    is_code: bool = False
    cluster_tags: tuple[str, ...] = ()
    token_count: int = 0
    # Source code chunks only (a `code` source); "" or () for documentation.
    language: str = ""  # "python", "groovy", ... ("text" for line windows of other files)
    symbol: str = ""  # the definition's own name: "send"; "" for module code and windows
    symbol_kind: str = ""  # function, method, class, interface, enum, type, module, key, window
    parent: str = ""  # dotted enclosing symbols: "Session" for Session.send
    # The API calls the chunk makes, one per call: "LINE<TAB>METHOD<TAB>URL" as the call reader
    # spells it (unknown parts "{}"), resolved against the docs when served (cross-links).
    calls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Optional restrictions on a search."""

    publication: str | None = None  # exact publication (mirror section) name
    section: str | None = None  # path prefix inside the publication, e.g. "rest-core/"
    code_only: bool = False
    min_score: float = 0.0


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked search result."""

    rank: int  # 1-based
    score: float
    chunk_id: str
    file: str
    publication: str
    title: str
    heading: str
    url: str
    snippet: str  # bounded excerpt of the chunk text
    line_start: int = 0
    line_end: int = 0
    is_code: bool = False
    bundle: str = ""  # the bundle's name when several bundles are searched together
    scope: str = ""  # with several bundles: "docs", or "project" for the team's own code


@dataclass(frozen=True, slots=True)
class Usage:
    """A place in the team's own code (a project bundle) that calls a documented operation."""

    file: str  # path in the repository
    line: int  # 1-based
    method: str  # the operation's method and path as the docs name them
    path: str
    symbol: str = ""  # the enclosing definition, dotted ("SyncJob.run"); "" at module level
    bundle: str = ""  # the project bundle's name

    @property
    def where(self) -> str:
        """``src/sync.py:41``"""
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class PageRef:
    """Another page documenting a candidate's subject (the spec's reference beside a guide)."""

    file: str
    line: int
    url: str = ""
    bundle: str = ""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One answer of identifier resolution, best first; confidence in [0, 1]."""

    name: str
    kind: str
    file: str
    line: int
    url: str
    confidence: float
    summary: str
    anchor: str = ""
    publication: str = ""
    method: str = ""
    path: str = ""
    operation_id: str = ""
    params: tuple[Param, ...] = ()
    request_schema: str = ""
    response_schema: str = ""
    deprecated: bool = False
    replacement: str = ""
    match: str = "exact"  # "exact" | "normalized" | "fuzzy" | "keyword"
    bundle: str = ""
    owner: str = ""  # parameters and properties: the schema that holds it (see IdentifierEntry)
    also: tuple[PageRef, ...] = ()  # other pages of the same subject (Engine.resolve), best first
    # Who publishes the page: vendor-portal, vendor-spec, third-party, team ("" when the bundle
    # does not say; `atlas_core.sources.PUBLISHER_WORDS` words it).
    publisher: str = ""

    @property
    def role(self) -> str:
        """What the name is here: "query parameter of GET /assets", "property of AssetRequest",
        or the kind for anything but a parameter or property."""
        if self.kind not in ("parameter", "property"):
            return self.kind
        location = self.params[0].location if self.params else ""
        return owner_label(self.kind, location, self.owner, self.method, self.path)


@dataclass(frozen=True, slots=True)
class Definition:
    """What a parameter or property is: one owner's definition of a name.

    A `parameter` belongs to one operation (`method`, `path`, `operation_id`) and sits in
    `location` (path, query, header, cookie); a `property` belongs to a schema (`owner`) or to an
    operation's request (`location` "body") or response body. `meaning` counts the definitions
    that share this one's kind, location, type and values, so a list can say how common it is."""

    name: str
    kind: str  # "parameter" | "property"
    location: str
    type: str
    required: bool
    description: str  # markdown
    file: str
    line: int
    format: str = ""
    enum: tuple[str, ...] = ()
    default: str = ""
    owner: str = ""
    method: str = ""
    path: str = ""
    operation_id: str = ""
    anchor: str = ""
    url: str = ""
    publication: str = ""
    bundle: str = ""
    meaning: int = 1  # how many definitions of this name share this meaning
    example: str = ""  # the spec's example value (see `Param.example`)
    deprecated: bool = False  # the spec marks this parameter or property deprecated

    @property
    def owner_label(self) -> str:
        """ "query parameter of GET /assets", "property of AssetRequest", "request body property
        of POST /assets"."""
        return owner_label(self.kind, self.location, self.owner, self.method, self.path)


def owner_label(kind: str, location: str, owner: str, method: str, path: str) -> str:
    """Whose parameter or property a name is, in words (`Definition.owner_label`)."""
    operation = f"{method} {path}".strip()
    if kind == "parameter":
        return f"{location} parameter of {operation}".strip()
    if owner:
        return f"property of {owner}"
    if not operation:
        return "property"  # a table of fields no operation or type on its page owns
    body = "response body" if location == "response" else "request body"
    return f"{body} property of {operation}"


@dataclass(frozen=True, slots=True)
class Symbol:
    """One workspace-symbol answer."""

    name: str
    kind: str  # an IdentifierKind
    file: str
    line: int
    url: str
    score: float
    container: str = ""  # publication or enclosing title, shown beside the name
    bundle: str = ""


@dataclass(frozen=True, slots=True)
class Deprecation:
    """A term or endpoint the docs name as deprecated, with its replacement when given."""

    term: str  # as it appears in code or prose, e.g. "Vocabulary" or "GET /rest/1.0/term"
    replacement: str  # "" when the docs give none
    file: str
    line: int
    url: str = ""
    note: str = ""  # the sentence of the docs that says so
    whole_word: bool = True
    # The term is also a plain English word ("Term", "Source", "Member"): flag it only where it is
    # code (a string literal, a JSON/YAML key, inline code in markdown), never in comments or prose.
    code_only: bool = False


@dataclass(frozen=True, slots=True)
class BundleInfo:
    """A summary of an opened bundle (manifest plus what the reader measured).

    `name` is the name the engine shows (and tags results with): the manifest's name, made unique
    with a suffix (``x-2``) when several opened bundles share one. Two different things are counted
    as files: `doc_files`, the pages of the docs mirror (what read_file and hover links open), and
    `bundle_files`, every file the manifest lists (the mirror, the indexes, the model).
    """

    path: str
    name: str
    format_version: str
    built_at: str
    chunks: int
    doc_files: int
    bundle_files: int
    identifiers: int
    model: str
    dims: int
    sources: tuple[Mapping[str, Any], ...]
    atlas_version: str = ""
    mirror: str = ""  # the docs mirror folder: each result's `file` is a path inside it
    backend: str = ""  # embedding backend in use, "" until the model loads
    backend_reason: str = ""
    load_ms: float = 0.0
    demo: bool = False  # the embedded demo bundle: sample docs written for Atlas, not Collibra's
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DocFile:
    """One page of a bundle's docs mirror, as its chunk table describes it."""

    file: str  # path inside the mirror
    publication: str
    title: str
    url: str  # the page's web URL, without a section anchor ("" when unknown)


@dataclass(frozen=True, slots=True)
class Section:
    """The section around a line of a page: its heading path and line range (1-based, inclusive)."""

    heading: str  # "H1 > H2"; "" before the first heading or when the page cannot be read
    line_start: int
    line_end: int


@dataclass(frozen=True, slots=True)
class ApiFinding:
    """One problem with an API call as the specs and docs describe the API (`Engine.check_code`,
    `Engine.check_request`).

    `check` is one of ``unknown-endpoint``, ``method-not-allowed``, ``unknown-param``,
    ``missing-required``, ``bad-value``, ``deprecated``; `severity` ``error``, ``warning``,
    ``information`` or ``hint`` (a deprecated parameter that still works: struck through, not a
    problem). `line`, `start` and `end` place it in the checked code (0-based line,
    code-point columns; all 0 for `check_request`; `end` is a column of `end_line` when the
    range goes on over lines, a literal from its ``{`` to its first key), `target` names what it is about in a request
    (``path``, ``params.nameMatchMode``, ``body.name``). `fixes` are texts that may replace the
    range, best first; `href` links the page that documents the rule and `rule` says where it
    comes from (the spec file, or the docs page). `deprecated` asks editors to strike it through.
    """

    check: str
    severity: str
    message: str
    line: int = 0
    start: int = 0
    end: int = 0
    fixes: tuple[str, ...] = ()
    href: str = ""
    rule: str = ""
    deprecated: bool = False
    endpoint: str = ""  # the operation the call was matched to, "GET /assets"
    target: str = ""
    end_line: int | None = None  # None: the range ends on `line`


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a bundle, about one file (bundle-relative path), as every check of
    the bundle and of the index files inside it reports it.

    `incomplete` marks what a copy or download still under way looks like (a listed file missing
    or shorter than listed), so a watcher can try again later instead of giving up.
    """

    file: str
    message: str
    incomplete: bool = False

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"
