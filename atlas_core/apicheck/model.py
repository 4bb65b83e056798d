"""The API as the specs in a bundle describe it: operations by method and path template, their
parameters, request-body properties, values and deprecations (`ApiModel`).

Built once per engine from the identifier table's endpoint and schema rows. Only operations a
spec in the bundle documents are checked for their keys: a docs page's parameter table may list
some of them, and a check that warns on the rest would be wrong. Paths any page documents count
as existing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any, TypeVar

from atlas_core.identifiers import compact, is_param_segment
from atlas_core.types import Param

# Where a generated Python client puts an underscore in an operation id: removeCommunity ->
# remove_community.
_SNAKE_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ARRAY_OF = re.compile(r"^(?:array|list)\[(.+)\]$")
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][\w.]*$")
# What a deprecation note says when the thing will stop working, not merely is discouraged.
_REMOVED = re.compile(
    r"(?i)\b(?:will be removed|is removed|been removed|no longer (?:works|supported)|removed in)"
)
WILDCARD = "{}"
MAX_ANSWERS = 32_768  # resolutions and per-call findings remembered per model
T = TypeVar("T")


def spelled_like(wire: str, written: str) -> str:
    """A wire name (``nameMatchMode``) as a client spells it where the code writes `written`:
    snake_case for a snake_case client (``name_match_mode``), as is otherwise."""
    if "_" in written or written.islower():
        return _SNAKE_BREAK.sub("_", wire).lower()
    return wire


def segments_of(path: str) -> tuple[str, ...]:
    """A path's segments as written (paths are case-sensitive), every parameter spelling
    (``{id}``, ``:id``, a UUID, a number) as ``{}``."""
    return tuple(WILDCARD if is_param_segment(s) else s for s in path.split("/") if s)


def says_removed(note: str) -> bool:
    """Whether a deprecation note says the thing is or will be removed (not merely discouraged)."""
    return bool(_REMOVED.search(note))


@dataclass(frozen=True, slots=True)
class Spec:
    """One OpenAPI source of the bundle, as its manifest describes it."""

    publication: str
    title: str
    file: str  # the spec's file name, e.g. dgc-rest.json; a docs page's path for one it embeds
    base_path: str  # e.g. /rest/2.0
    version: str = ""  # the spec's info.version
    url: str = ""  # where a docs page that embeds the spec is published


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One name on which a docs page's embedded spec and a spec file differ for an operation."""

    operation: str  # "GET /assets"
    name: str  # the parameter or property ("" for the operation itself)
    page_says: str  # "query parameter", "absent", "required", "deprecated", "values A, B"
    file_says: str
    page: str  # the docs page (bundle mirror path)
    url: str  # its web address
    file: str  # the spec file
    follows: str  # the source the checks follow: the page or the file


@dataclass(frozen=True, slots=True)
class Notice:
    """A docs sentence saying an API no spec describes (``/rest/1.0``) is removed or blocked."""

    prefix: str
    page: str
    url: str
    text: str


@dataclass(frozen=True, slots=True)
class Operation:
    """One documented operation. `params` are its path, query and header parameters; `body`
    the top-level properties of its request body (None when unknown: no key of it is
    checked); `spec` is the spec that documents it (None: only docs pages do, so only the
    path and method are checked)."""

    method: str
    path: str
    segments: tuple[str, ...]  # the path key's segments, parameters as "{}"
    params: tuple[Param, ...] = ()
    body: tuple[Param, ...] | None = None
    body_schema: str = ""
    summary: str = ""
    deprecated: bool = False
    replacement: str = ""
    file: str = ""
    line: int = 0
    url: str = ""
    spec: Spec | None = None
    bundle: str = ""
    operation_ids: tuple[str, ...] = ()  # as the spec and generated clients spell them
    # Which source the definition follows when several define it, in words ("" for one spec
    # file): "the spec embedded in api/x-reference.md (version 2.0), newer than dgc-rest.json".
    source: str = ""

    @property
    def endpoint(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def removed(self) -> bool:
        """Whether the docs say this deprecated operation is or will be removed."""
        return self.deprecated and says_removed(self.summary)

    def query_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.location == "query")


@dataclass
class ApiModel:
    """Operations of one or more bundles, looked up by method and path."""

    specs: tuple[Spec, ...] = ()
    operations: list[Operation] = field(default_factory=list)
    # Where a docs page's embedded spec and a spec file define an operation differently
    # (`apicheck.evidence`), and docs notices that an API no spec describes is removed.
    disagreements: tuple[Disagreement, ...] = ()
    notices: tuple[Notice, ...] = ()
    _by_length: dict[int, list[Operation]] = field(default_factory=dict)
    _first: set[str] = field(default_factory=set)
    _answers: dict[tuple[Any, ...], Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for op in self.operations:
            self._by_length.setdefault(len(op.segments), []).append(op)
            if op.segments and op.segments[0] != WILDCARD:
                self._first.add(op.segments[0])

    def __bool__(self) -> bool:
        return bool(self.operations)

    @cached_property
    def bases(self) -> tuple[str, ...]:
        """The base paths the specs declare, longest first."""
        return tuple(
            sorted({s.base_path for s in self.specs if s.base_path}, key=len, reverse=True)
        )

    @cached_property
    def base_paths(self) -> tuple[str, ...]:
        """`bases` without their slashes (``rest/2.0``), as code joins one to a host or writes it
        relative to a base URL; the root base ("/") left out."""
        return tuple(b.strip("/") for b in self.bases if b.strip("/"))

    def remembered(self, key: tuple[Any, ...]) -> Any:
        """An answer `remember` kept for `key`, or None."""
        return self._answers.get(key)

    def remember(self, key: tuple[Any, ...], answer: T) -> T:
        """Keep `answer` for `key` (at most `MAX_ANSWERS`, oldest dropped first)."""
        if len(self._answers) >= MAX_ANSWERS:
            self._answers.pop(next(iter(self._answers)))
        self._answers[key] = answer
        return answer

    def deprecated_calls(self) -> tuple[re.Pattern[str] | None, dict[str, Operation]]:
        """A pattern for a generated client's call of a deprecated operation (``.remove_community(``,
        ``.removeCommunity(``) and the operation by each spelling; (None, {}) when none is."""
        found = self._answers.get(("deprecated-calls",))
        if found is None:
            names = {
                spelling: op
                for op in self.operations
                if op.deprecated
                for name in op.operation_ids
                for spelling in (name, _SNAKE_BREAK.sub("_", name).lower())
            }
            pattern = None
            if names:
                spelled = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
                pattern = re.compile(rf"(?<=\.)(?:{spelled})(?=\s*\()")
            found = self._answers[("deprecated-calls",)] = (pattern, names)
        return found

    def operation_named(self, name: str) -> Operation | None:
        """The operation a generated client's method calls (``find_assets``, ``findAssets``,
        ``findAssetsWithHttpInfo`` is read as its operation by the readers), or None."""
        named = self._answers.get(("operation-named",))
        if named is None:
            named = {}
            for op in self.operations:
                for op_id in op.operation_ids:
                    named.setdefault(compact(op_id), op)
            self._answers[("operation-named",)] = named
        return named.get(compact(name))

    def knows_resource(self, segment: str) -> bool:
        """Whether some documented path starts with this segment (``assets``)."""
        return segment in self._first

    def matching(self, segments: tuple[str, ...]) -> list[tuple[tuple[int, int], Operation]]:
        """Operations whose template fits `segments` (``{}`` in the code fits any segment, a
        template parameter any literal), each scored by how many literal segments agree and
        then how many unknown ones meet a parameter (an id the code computes is more likely
        ``{communityId}`` than ``bulk``)."""
        out = []
        for op in self._by_length.get(len(segments), ()):
            literal = unknown = 0
            for code, template in zip(segments, op.segments, strict=True):
                if code == WILDCARD:
                    unknown += template == WILDCARD
                    continue
                if template == WILDCARD:
                    continue
                if code != template:
                    break
                literal += 1
            else:
                out.append(((literal, unknown), op))
        return out


def build_model(
    bundle: str,
    manifest: Mapping[str, Any],
    endpoints: Iterable[tuple[str, dict[str, Any], tuple[Param, ...]]],
    schema_params: Any,
    page_url: Any,
) -> tuple[tuple[Spec, ...], list[Operation]]:
    """The specs and operations of one bundle from its manifest and endpoint rows.

    `endpoints` yields (name, record, params) per endpoint row; `schema_params(name,
    publication)` gives a schema's properties (None when the table has no such schema);
    `page_url(file)` a link for a page that has no web URL."""
    specs = tuple(
        Spec(
            publication=str(s.get("publication", "")),
            title=str(s.get("title", "")),
            file=PurePosixPath(str(s.get("path", ""))).name,
            base_path=str(s.get("base_path", "") or ""),
            version=str(s.get("version", "") or ""),
        )
        for s in manifest.get("sources", ())
        if isinstance(s, Mapping) and s.get("kind") == "openapi"
    )
    by_publication = {s.publication: s for s in specs if s.publication}
    rows: dict[tuple[str, str], list[tuple[dict[str, Any], tuple[Param, ...]]]] = {}
    for _name, rec, params in endpoints:
        method, path = str(rec.get("method", "")).upper(), str(rec.get("path", ""))
        if method and path.startswith("/"):
            rows.setdefault((method, "/".join(segments_of(path))), []).append((rec, params))
    operations = []
    for (method, key), found in rows.items():
        spec_rows = [(r, p) for r, p in found if r.get("publication") in by_publication]
        rec, params = (spec_rows or found)[0]
        spec = by_publication.get(rec.get("publication", "")) if spec_rows else None
        url = rec.get("url") or next((r.get("url") for r, _ in found if r.get("url")), "")
        deprecated = any(r.get("deprecated") for r, _ in found)
        replacement = next((r.get("replacement") for r, _ in found if r.get("replacement")), "")
        body: tuple[Param, ...] | None = None
        body_schema = str(rec.get("request_schema", ""))
        if spec is not None:
            body = _body(params, body_schema, rec.get("publication", ""), schema_params)
        operations.append(
            Operation(
                method=method,
                path=str(rec.get("path", "")),
                segments=tuple(key.split("/")) if key else (),
                params=tuple(p for p in params if p.location != "body"),
                body=body,
                body_schema=body_schema,
                summary=str(rec.get("summary", "")),
                deprecated=deprecated,
                replacement=str(replacement or ""),
                file=str(rec.get("file", "")),
                line=int(rec.get("line", 0) or 0),
                url=url or page_url(str(rec.get("file", ""))),
                spec=spec,
                bundle=bundle,
                operation_ids=tuple(
                    dict.fromkeys(str(r["operation_id"]) for r, _ in found if r.get("operation_id"))
                ),
            )
        )
    return specs, operations


def _body(
    params: tuple[Param, ...], schema: str, publication: str, schema_params: Any
) -> tuple[Param, ...] | None:
    """The top-level keys a request body may have: an inline object's fields (the body params),
    a named schema's properties (an array's item schema for bulk calls); None when unknown."""
    inline = tuple(p for p in params if p.location == "body" and p.name != "body")
    if inline:
        return inline
    if not schema:
        return () if not any(p.location == "body" for p in params) else None
    m = _ARRAY_OF.match(schema)
    name = m.group(1) if m else schema
    if not _SCHEMA_NAME.match(name):
        return None  # a list of ids, a string: no keys to check
    found = schema_params(name, publication)
    return tuple(found) if found else None
