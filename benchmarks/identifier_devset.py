"""Draw the identifier development set and the client snippets from the real corpus and specs.

    uv run python benchmarks/identifier_devset.py --shared ../shared --seed 13 \
        --out benchmarks/identifier_cases.jsonl --snippets-out benchmarks/client_snippets.jsonl

Nothing here is picked by hand and nothing asks Atlas where a name lives. At run time the script
reads `<shared>/collibra-docs/markdown/**/*.md` (front matter `title`, `partial`) and the OpenAPI
files `<shared>/collibra-openapi/dgc-rest.json` (Core API) and `dgc-importer-rest.json` (Import
API), lists the whole population of every class by the rules below, draws a fixed-seed sample and
writes identifiers, bundle-relative file names and short generated code only: no text of the docs
or specs is copied into the output. Same inputs and seed, byte-identical output.

Method
------
1. Population: each class's rule lists every member found in the corpus or the specs.
2. Sample: `random.Random(seed)` draws `PER_CLASS` (28) members per class, stratified: each
   stratum (printed in the summary) gets `min(MIN_PER_STRATUM, size)`, the rest of the quota is
   shared out in proportion to stratum size (largest remainder), each stratum is drawn uniformly
   from its members sorted by name. A class smaller than the quota is taken whole. Classes are
   drawn in the order of `CLASSES`, and a name an earlier class drew leaves the later pools, so
   one string never carries two answers.
3. Expected files: definition sites only, never mere mentions, by the class's rule below.
   `primary` is the best page by that rule and always `expected_files[0]`. At most `CAP` (8)
   files are kept: the primary, then up to 3 more written (markdown) pages, then the rule's own
   order, then pages that define the very same string under another class's rule (a query
   parameter that is also a schema property). `definitions` is the uncapped count and
   `ambiguous` is true when it exceeds the cap. `needs_spec` is true when no expected file is a
   markdown page (the case can only be answered by a bundle built with the specs).
4. Spelling: the identifier is written as code writes it, one spelling per case drawn with
   `random.Random(f"{seed}:{class}:{name}")` from the class's realistic spellings (below);
   `spelling` names it, `canonical` keeps the name as the corpus or spec writes it.

File names are the `file` of Atlas's hits. Markdown pages: the path under `markdown/`
(`rest-core/assets-api.md`). Spec pages, as `atlas_core/sources/openapi.py::load_openapi` names
them (recomputed here, not imported; see `_spec_pages`): an operation is on
`<slug(spec file stem)>/<slug(its first tag)>.md`, with tags taken in the order of the spec's
`tags` list and then of first use (paths in file order; methods get, put, post, delete, options,
head, patch, trace), `-1`, `-2`, ... added to a repeated slug, `schemas` reserved; every schema is
on `<stem>/schemas.md`; `slug` is `openapi_pages.slug` (GitHub heading slug, `_` to `-`, runs of
`-` collapsed). If Atlas renames its spec pages, change `_spec_pages`.

Terms. A "written page" is a markdown page. A name is at a "definition position" on a written
page when it is, as a whole token, in the title or a heading (weight 3; a plain lowercase word
like `tags` only when the heading is exactly that word), the first cell of a table row, the start
of a bullet followed by a separator or nothing (a bullet that is only a link is an index entry and
does not count), or, on pages flattened from HTML (`partial: true`), the start of a line followed
by a capitalised description or nothing (weight 1 each). "Code contexts" are fenced blocks, inline
code spans, table rows and every line of a flattened page.

path       Population: every operation (method + path) of both specs, and the REST paths that a
           written page calls in a code example (`curl [-X M] URL`, `conn.request("M", "/p")`)
           and no spec operation matches. Expected: the rest-core page whose own operations table
           lists `**METHOD** path` and which has a section for that client method; the `api/`
           reference page whose H1 is the tag and one H2 the summary; the spec page of the tag;
           written pages whose code example calls it. Primary: the first of these that exists.
           Spellings: the template, with the spec's `/rest/2.0` base, with `METHOD `, with both,
           or as a full URL; path parameters as `{name}`, a literal UUID (names ending in Id) or
           `<snake_name>`; Import API paths so with and without `/rest/2.0`; corpus-only paths
           as written, with the method, or as a full URL.
operation  Population: every operationId of both specs and every method of the generated Python
           client (`[**find_assets**](...) | **GET** /assets` rows of rest-core pages).
           Expected: for an operationId, the written `api/` page that embeds it verbatim, the
           spec page, the rest-core page of the same method+path, the `api/` reference page; for
           a client method, its rest-core page, then the spec and `api/` pages of the same
           method+path. Primary: the first. Spellings: `name`, `name()`, `receiver.name`
           (`assetsApi.findAssets`, `api_instance.find_assets`).
parameter  Population: every distinct name of a query, path or header parameter of both specs
           (wire names). Expected: the spec page that holds the most operations taking it (ties
           by file name; the primary), the rest-core pages whose section for such an operation
           lists it (in snake_case) in its Parameters table and the `api/` pages of such an
           operation that carry it verbatim (most operations first), then the other spec pages.
           Spellings: `name`, `"name"`, `name=value` (query), `{name}` (path).
property   Population: every distinct property name of the Core API's schemas (`allOf` parts
           included). Expected: `dgc-rest/schemas.md` (the primary), spec pages of operations
           whose inline request body lists it, rest-core-models pages whose Properties table
           lists it (in snake_case), those of a schema that defines it (title `S` or `SImpl`)
           first. Spellings: `name`, `"name"`.
json_key   Population: every `"key":` in the JSON of import-api pages, every identifier in the
           first cell of their tables, every property of the Import API's schemas. Expected: the
           import-api pages where it is at a definition position (most weight first, the
           primary), then `dgc-importer-rest/schemas.md` if an Import API schema defines it;
           if no written page defines it, the spec page (primary) and the import-api pages whose
           JSON uses it (most uses first, at most 4). Spellings: `key`, `"key"`.
constant   Population: SCREAMING_CASE names with an `_` (a `-P`/`-D` prefix stripped) in code
           contexts, except `YOUR_*` placeholders and sample names with an all-digit part
           (`TABLE_1`). Expected: the pages where it is at a definition position, by weight,
           then occurrences, then file name; if there are none, the pages where it occurs in
           code contexts, most first. Spellings: `NAME`, `"NAME"`; names assigned as
           `export NAME=`, `NAME=` or used as `$NAME` also `$NAME`, `os.environ["NAME"]`,
           `process.env.NAME`.
type       Population: the schema names of both specs, the titles of rest-core-models pages,
           `The X object` headings of `api/` model pages, `X bean` lines of workflows pages.
           Expected: the rest-core-models page titled X (its file is X in kebab-case), the `api/`
           model page, the workflows bean page, then the spec schemas page(s). Primary: the
           first. Spellings: `X`, `collibra_core.X` (with a model page), `X.builder()` (names
           ending in Request).
cli        Population: command lines in code contexts whose program is a product or build tool
           (`PROGRAMS`) or a path-like executable (`./x`, `bin/x`, `.\\x`, not a data file), cut
           after at most three following words or options (trailing options dropped; a bare
           program name is not a command), and lines of cli/ pages that are one hyphenated word
           (a flattened command table). Expected and primary: as for constant. Spellings: as
           written, after a `$ ` (or, for a Windows path, `> `) prompt.
near_tie   Population: code-shaped tokens (camelCase, PascalCase with two humps, snake_case,
           SCREAMING_CASE, dotted names of those) on at least three pages, of which exactly one
           has it at a definition position and the others only mention it. Strata: tokens no
           other class lists, and tokens another class also lists (mostly model types named in
           rest-core pages). Expected: the one page. Spellings: as written.

Client snippets (`--snippets-out`): code drawn from spec operations that take a query parameter
or a JSON body with properties. Always included: POST /workflowInstances (python-session), POST
/relations (python-dict-before), and a GET /domains lookup followed by
`requests.delete(BASE + "/domains/bulk", json=ids)`. The rest: HTTP methods in turn, for each a
random tag not yet used with that method, a random operation of it. Styles rotate through
`STYLES` in a freshly shuffled order each round (the client-class style only where the path has
a literal segment after the first). Query keys come from the operation's parameters, body keys
from the request schema (`$ref`s and `allOf` followed, an array body's item schema), required
ones first, 1 to 4 per call. Each cursor points at the middle of its text: the last literal path
segment or the builder method (`role` endpoint, `name` the operationId), a key (`query`,
`body`), or in the fetch styles the first path parameter (`path`). Python snippets must parse
(`ast`); the others must balance their brackets; every cursor must sit on its text.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLASSES = (
    "path",
    "operation",
    "parameter",
    "property",
    "json_key",
    "constant",
    "type",
    "cli",
    "near_tie",
)
PER_CLASS = 28
MIN_PER_STRATUM = {
    "path": 5,
    "operation": 8,
    "parameter": 6,
    "json_key": 5,
    "type": 3,
    "near_tie": 12,
}
CAP = 8
WRITTEN_IN_CAP = 3
HOST = "https://acme.collibra.com"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SPEC_FILES = ("dgc-rest.json", "dgc-importer-rest.json")
PROGRAMS = (
    "collibra",
    "gradle",
    "./gradlew",
    "mvn",
    "go",
    "pip",
    "npm",
    "npx",
    "uv",
    "java",
    "docker",
    "python3",
)

_WORD = r"[A-Za-z0-9_]"
_FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_INLINE_CODE_RE = re.compile(r"`([^`\n]+)`")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SCREAMING_RE = re.compile(r"(?<![\w-])(?:-[PD])?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w-])")
_JSON_KEY_RE = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"\s*:')
_TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_FILE_EXTS = {"md", "htm", "html", "json", "csv", "py", "yaml", "yml", "txt", "xlsx", "java", "js"}
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_LINK_ONLY_RE = re.compile(r"^\s*\[[^\]]*\]\([^)]*\)\s*$")


# --- corpus ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Page:
    file: str
    title: str
    partial: bool
    lines: list[str]
    fenced: list[str]  # fence language per line ("" outside fences, "-" for an unnamed fence)
    headings: list[str] = field(default_factory=list)
    code_texts: list[str] = field(default_factory=list)  # text in code contexts
    text: str = ""

    @property
    def section(self) -> str:
        return self.file.split("/", 1)[0]


def _plain(text: str) -> str:
    text = _LINK_RE.sub(r"\1", text)
    return " ".join(re.sub(r"[`*\\]|</?[a-zA-Z][^>]*>", "", text).split())


def read_pages(markdown: Path) -> dict[str, Page]:
    pages: dict[str, Page] = {}
    for path in sorted(markdown.rglob("*.md")):
        raw = path.read_text(encoding="utf-8")
        title, partial, body = "", False, raw
        if raw.startswith("---\n"):
            end = raw.find("\n---", 4)
            if end > 0:
                meta, body = raw[4:end], raw[end + 4 :].lstrip("\n")
                m = re.search(r'^title:\s*"?(.*?)"?\s*$', meta, re.M)
                title = m.group(1) if m else ""
                partial = bool(re.search(r"^partial:\s*true\s*$", meta, re.M))
        lines = body.split("\n")
        fenced: list[str] = []
        opener = ""
        for line in lines:
            m = _FENCE_RE.match(line)
            if opener:
                fenced.append(opener)
                if m and not line.strip().strip("`~"):
                    opener = ""
            elif m:
                opener = m.group(2) or "-"
                fenced.append(opener)
            else:
                fenced.append("")
        page = Page(path.relative_to(markdown).as_posix(), title, partial, lines, fenced)
        page.text = body
        page.headings = [title] if title else []
        for line, lang in zip(lines, fenced, strict=True):
            if lang:
                page.code_texts.append(line)
                continue
            m = _HEADING_RE.match(line)
            if m:
                page.headings.append(_plain(m.group(1)))
            page.code_texts.extend(_INLINE_CODE_RE.findall(line))
            if partial or "|" in line:
                page.code_texts.append(line)
        pages[page.file] = page
    return pages


def _token_re(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def _first_cell(line: str) -> str | None:
    if "|" not in line:
        return None
    stripped = line.strip()
    if set(stripped) <= set("|-: "):
        return None
    cell = stripped.strip("|").split("|", 1)[0]
    return _plain(cell).strip()


def definition_weight(page: Page, name: str) -> int:
    """How strongly a written page defines `name`: 3 per heading or title, 1 per table first
    cell, definition bullet or (flattened page) definition line; 0 when it only mentions it."""
    token = _token_re(name)
    weight = 3 * sum(1 for h in page.headings if token.search(h))
    bullet = re.compile(rf"^`?{re.escape(name)}`?\s*(?:[-–—:→|]|$)")
    line_def = re.compile(rf"^{re.escape(name)}(?:\s+[A-Z(]|\s*$)")
    for line, lang in zip(page.lines, page.fenced, strict=True):
        if lang or name not in line or _HEADING_RE.match(line):
            continue
        cell = _first_cell(line)
        if cell is not None:
            if cell == name or cell.split(" ", 1)[0] == name:
                weight += 1
            continue
        m = _BULLET_RE.match(line)
        # A bullet that is nothing but a link is an index entry pointing elsewhere.
        if (
            m and bullet.match(_plain(line[m.end() :])) and not _LINK_ONLY_RE.match(line[m.end() :])
        ) or (page.partial and line_def.match(line.strip())):
            weight += 1
    return weight


def code_count(page: Page, name: str) -> int:
    token = _token_re(name)
    return sum(len(token.findall(t)) for t in page.code_texts)


# --- specs -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Op:
    stem: str
    method: str
    path: str
    operation_id: str
    summary: str
    tag: str
    params: list[tuple[str, str, dict[str, Any]]]  # (name, in, schema)
    body: dict[str, dict[str, Any]]  # top-level JSON body keys -> schema
    body_is_array: bool
    inline_body: bool
    body_schema: str  # the request schema's name when it is a $ref
    body_media: str
    required: frozenset[str]  # required query parameters and body keys
    page: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.path


@dataclass(slots=True)
class Spec:
    stem: str
    base: str
    ops: list[Op]
    schemas: dict[str, list[str]]  # schema name -> property names
    raw: dict[str, Any]

    @property
    def schema_page(self) -> str:
        return f"{self.stem}/schemas.md"


def slug(text: str) -> str:
    """`atlas_core.sources.openapi_pages.slug`, recomputed."""
    text = _plain(text).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_").replace(" ", "-")
    return re.sub(r"-{2,}", "-", text.replace("_", "-")).strip("-")


class Refs:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def resolve(self, node: Any) -> Any:
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/"):
                return {}
            seen.add(ref)
            node = self.raw
            for part in ref[2:].split("/"):
                node = node.get(part.replace("~1", "/").replace("~0", "~"), {})
        return node

    def properties(self, schema: Any, depth: int = 0) -> dict[str, dict[str, Any]]:
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > 8:
            return {}
        props: dict[str, dict[str, Any]] = {}
        for part in schema.get("allOf") or []:
            props.update(self.properties(part, depth + 1))
        for name, prop in (schema.get("properties") or {}).items():
            props[str(name)] = self.resolve(prop) if isinstance(prop, dict) else {}
        return props


def read_spec(path: Path) -> Spec:
    raw = json.loads(path.read_text(encoding="utf-8"))
    refs = Refs(raw)
    stem = slug(path.stem) or "api"
    servers = raw.get("servers") or [{}]
    base = str(servers[0].get("url") or "").rstrip("/")
    ops: list[Op] = []
    for api_path, item in raw["paths"].items():
        item = refs.resolve(item)
        shared = item.get("parameters") or []
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            merged: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {}
            required: set[str] = set()
            for p in [*shared, *(op.get("parameters") or [])]:
                p = refs.resolve(p)
                if isinstance(p, dict) and "name" in p:
                    loc = str(p.get("in", "query"))
                    merged[(p["name"], loc)] = (str(p["name"]), loc, refs.resolve(p.get("schema")))
                    if p.get("required") and loc == "query":
                        required.add(str(p["name"]))
            body: dict[str, dict[str, Any]] = {}
            is_array = inline = False
            body_schema = body_media = ""
            request = refs.resolve(op.get("requestBody")) or {}
            content = request.get("content") or {}
            body_media = (
                "application/json" if "application/json" in content else next(iter(content), "")
            )
            media = content.get(body_media)
            if isinstance(media, dict) and "schema" in media:
                schema = media["schema"]
                inline = "$ref" not in schema and bool(schema.get("properties"))
                resolved = refs.resolve(schema)
                if resolved.get("type") == "array":
                    items = resolved.get("items") or {}
                    is_array, resolved = True, refs.resolve(items)
                    schema = items
                if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
                    body_schema = schema["$ref"].rsplit("/", 1)[-1]
                body = refs.properties(resolved)
                for part in [resolved, *(resolved.get("allOf") or [])]:
                    required.update(
                        str(r) for r in (refs.resolve(part) or {}).get("required") or []
                    )
            tags = [str(t) for t in op.get("tags") or [] if str(t).strip()] or ["untagged"]
            ops.append(
                Op(
                    stem,
                    method.upper(),
                    str(api_path),
                    str(op.get("operationId") or ""),
                    " ".join(str(op.get("summary") or "").split()),
                    tags[0],
                    list(merged.values()),
                    body,
                    is_array,
                    inline,
                    body_schema,
                    body_media,
                    frozenset(required),
                )
            )
    schemas = {
        str(name): list(refs.properties(node))
        for name, node in ((raw.get("components") or {}).get("schemas") or {}).items()
    }
    spec = Spec(stem, base, ops, schemas, raw)
    _spec_pages(spec)
    return spec


def _spec_pages(spec: Spec) -> None:
    """Assign each operation the file `load_openapi` renders it into (see the module docstring)."""
    order = [
        str(t["name"]) for t in spec.raw.get("tags") or [] if isinstance(t, dict) and t.get("name")
    ]
    for op in spec.ops:
        if op.tag not in order:
            order.append(op.tag)
    taken = {"schemas"} if spec.schemas else set()
    page_of: dict[str, str] = {}
    for tag in order:
        base = slug(tag) or "tag"
        candidate, n = base, 1
        while candidate in taken:
            candidate, n = f"{base}-{n}", n + 1
        taken.add(candidate)
        page_of[tag] = f"{spec.stem}/{candidate}.md"
    for op in spec.ops:
        op.page = page_of[op.tag]


# --- written reference structure ---------------------------------------------------------------


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def snake(name: str) -> str:
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


@dataclass(slots=True)
class Written:
    """Definition sites in written pages that the rules need, by kind."""

    client_ops: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    client_params: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    model_page: dict[str, str] = field(default_factory=dict)  # title -> file
    model_props: dict[str, set[str]] = field(default_factory=dict)  # file -> normalised names
    api_ops: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (h1, h2) -> files
    api_objects: dict[str, str] = field(default_factory=dict)
    beans: dict[str, str] = field(default_factory=dict)


_CLIENT_ROW_RE = re.compile(r"^\[\*\*(\w+)\*\*\]\([^)]*\)\s*\|\s*\*\*(\w+)\*\*\s+(\S+)\s*\|")
_CLIENT_SECTION_RE = re.compile(r"^#\s+\*\*(\w+)\*\*\s*$")
_CLIENT_PARAM_RE = re.compile(r"^\s*\*\*(\w+)\*\*\s*\|")


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def read_written(pages: dict[str, Page]) -> Written:
    w = Written()
    for page in pages.values():
        if page.section == "rest-core":
            sections: dict[str, list[str]] = {}
            current = ""
            for line in page.lines:
                m = _CLIENT_SECTION_RE.match(line)
                if m:
                    current = m.group(1)
                    sections[current] = []
                elif current:
                    sections[current].append(line)
            for line in page.lines:
                m = _CLIENT_ROW_RE.match(line)
                if m and m.group(1) in sections:
                    w.client_ops[(m.group(2).upper(), m.group(3))] = (m.group(1), page.file)
                    table = False
                    names: set[str] = set()
                    for row in sections[m.group(1)]:
                        if row.startswith("###"):
                            table = row.strip() == "### Parameters"
                        elif table:
                            pm = _CLIENT_PARAM_RE.match(row)
                            if pm:
                                names.add(_norm(pm.group(1)))
                    w.client_params[(page.file, m.group(1))] = names
        elif page.section == "rest-core-models":
            w.model_page[page.title] = page.file
            w.model_props[page.file] = {
                _norm(m.group(1)) for line in page.lines if (m := _CLIENT_PARAM_RE.match(line))
            }
        elif page.section == "api":
            h1 = ""
            for line in page.lines:
                m = re.match(r"^(#{1,2})\s+(.*)$", line)
                if not m:
                    continue
                if m.group(1) == "#":
                    h1 = _words(m.group(2))
                else:
                    obj = re.fullmatch(r"The (\w+) object", m.group(2).strip())
                    if obj:
                        w.api_objects[obj.group(1)] = page.file
                    else:
                        w.api_ops.setdefault((h1, _words(m.group(2))), []).append(page.file)
        elif page.section == "workflows":
            for line in page.lines:
                m = re.fullmatch(r"\s*([A-Z][A-Za-z0-9]+) bean\s*", line)
                if m:
                    w.beans.setdefault(m.group(1), page.file)
    return w


def api_pages_of(op: Op, w: Written) -> list[str]:
    return list(w.api_ops.get((_words(op.tag), _words(op.summary)), []))


# --- call examples in written pages ------------------------------------------------------------


def call_examples(pages: dict[str, Page]) -> list[tuple[str, str, str]]:
    """(method, URL path, file) of every REST call written as `curl ...` or
    `conn.request("M", "/p", ...)` in a code context."""
    calls: list[tuple[str, str, str]] = []
    for page in pages.values():
        joined = re.sub(r"\\\n\s*", " ", page.text)
        for line in joined.split("\n"):
            if not (page.partial or line.lstrip().startswith("curl") or "conn.request" in line):
                continue
            m = re.search(r"\bcurl\b(.*)", line)
            if m:
                rest = m.group(1)
                url = re.search(r"""['"]?((?:https?://[^\s'"]*?)?(/rest/[^\s'"?]+))""", rest)
                if not url:
                    continue
                method = re.search(r"-X\s+([A-Z]+)", rest)
                verb = (
                    method.group(1)
                    if method
                    else ("POST" if re.search(r"\s-[dF]\s", rest) else "GET")
                )
                calls.append((verb, url.group(2), page.file))
            m = re.search(r"""conn\.request\(\s*["']([A-Z]+)["']\s*,\s*["'](/rest/[^"']+)""", line)
            if m:
                calls.append((m.group(1), m.group(2), page.file))
    return calls


def _template_re(path: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", path)
    return re.compile(
        "^" + "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts) + "$"
    )


# --- members ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Member:
    cls: str
    name: str  # canonical: how the corpus or spec writes it
    stratum: str
    expected: list[str]  # this class's definition pages, primary first, uncapped
    spellings: list[tuple[str, str]]  # (label, text as code writes it)
    source: str


@dataclass(slots=True)
class Corpus:
    pages: dict[str, Page]
    specs: list[Spec]
    written: Written
    calls: list[tuple[str, str, str]]

    @property
    def ops(self) -> list[Op]:
        return [op for spec in self.specs for op in spec.ops]

    def spec(self, stem: str) -> Spec:
        return next(s for s in self.specs if s.stem == stem)


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def _code_shaped(name: str) -> bool:
    return bool(re.search(r"[a-z][A-Z]|_|\d|[.-]", name)) or (name.isupper() and len(name) > 1)


def _by_weight(weights: dict[str, int], counts: dict[str, int] | None = None) -> list[str]:
    counts = counts or {}
    return [f for f in sorted(weights, key=lambda f: (-weights[f], -counts.get(f, 0), f))]


def _example_value(name: str, schema: dict[str, Any]) -> str:
    """A plausible wire value, for `name=value` spellings (deterministic)."""
    if schema.get("enum"):
        return str(schema["enum"][-1])
    if schema.get("format") == "uuid" or name.endswith("Id"):
        return str(uuid.uuid5(uuid.NAMESPACE_URL, name))
    kind = schema.get("type")
    if kind == "boolean":
        return "true"
    if kind == "integer":
        return "100" if name == "limit" else "0"
    return "Customer"


def path_members(c: Corpus) -> list[Member]:
    calls_by_op: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    matched: set[int] = set()
    for op in c.ops:
        pattern = _template_re(c.spec(op.stem).base + op.path)
        for i, (verb, url, file) in enumerate(c.calls):
            if verb == op.method and pattern.match(url):
                calls_by_op[(op.stem, op.method, op.path)].add(file)
                matched.add(i)
    members: list[Member] = []
    for op in c.ops:
        client = c.written.client_ops.get(op.key) if op.stem == "dgc-rest" else None
        expected = _dedupe(
            [
                client[1] if client else "",
                *api_pages_of(op, c.written),
                op.page,
                *sorted(calls_by_op[(op.stem, op.method, op.path)]),
            ]
        )
        base = c.spec(op.stem).base
        variants = [("", op.path)]
        params = re.findall(r"\{([^}]+)\}", op.path)
        if params:
            literal = angle = op.path
            for name in params:
                value = (
                    str(uuid.uuid5(uuid.NAMESPACE_URL, f"{op.method} {op.path} {name}"))
                    if name.lower().endswith("id")
                    else f"<{snake(name)}>"
                )
                literal = literal.replace("{" + name + "}", value)
                angle = angle.replace("{" + name + "}", f"<{snake(name)}>")
            variants = [(",braces", op.path), (",literal", literal), (",angle", angle)]
        spellings = [
            (label + suffix, text)
            for suffix, p in dict.fromkeys(variants)
            for label, text in (
                ("template", p),
                ("base", base + p),
                ("method", f"{op.method} {p}"),
                ("method+base", f"{op.method} {base}{p}"),
                ("url", HOST + base + p),
            )
        ]
        members.append(
            Member(
                "path",
                f"{op.method} {op.path}",
                "import-api" if op.stem != "dgc-rest" else "core",
                expected,
                spellings,
                f"spec:{op.stem} {op.method} {op.path}",
            )
        )
    extra: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for i, (verb, url, file) in enumerate(c.calls):
        if i not in matched:
            extra[(verb, url.rstrip("."))][file] += 1
    for (verb, url), files in sorted(extra.items()):
        members.append(
            Member(
                "path",
                f"{verb} {url}",
                "corpus-only",
                _by_weight(dict(files)),
                [("as-written", url), ("method", f"{verb} {url}"), ("url", HOST + url)],
                f"markdown:call example {verb} {url}",
            )
        )
    return members


def _receiver(tag: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", tag) or ["api"]
    return words[0].lower() + "".join(w.capitalize() for w in words[1:]) + "Api"


def operation_members(c: Corpus) -> list[Member]:
    by_name: dict[str, Member] = {}
    for op in c.ops:
        if not op.operation_id:
            continue
        client = c.written.client_ops.get(op.key) if op.stem == "dgc-rest" else None
        api = api_pages_of(op, c.written)
        verbatim = [f for f in api if f'"operationId":"{op.operation_id}"' in c.pages[f].text]
        expected = _dedupe([*verbatim, op.page, client[1] if client else "", *api])
        name = op.operation_id
        member = by_name.setdefault(
            name,
            Member(
                "operation",
                name,
                "operationId",
                [],
                [
                    ("bare", name),
                    ("call", name + "()"),
                    ("receiver", f"{_receiver(op.tag)}.{name}"),
                ],
                f"spec:{op.stem} {op.method} {op.path} operationId",
            ),
        )
        member.expected = _dedupe([*member.expected, *expected])
    spec_ops = {op.key: op for op in c.ops if op.stem == "dgc-rest"}
    for key, (name, file) in sorted(c.written.client_ops.items()):
        op = spec_ops.get(key)
        expected = _dedupe([file, *([op.page, *api_pages_of(op, c.written)] if op else [])])
        member = by_name.setdefault(
            name,
            Member(
                "operation",
                name,
                "python-client",
                [],
                [("bare", name), ("call", name + "()"), ("receiver", f"api_instance.{name}")],
                f"markdown:{file} client method ({key[0]} {key[1]})",
            ),
        )
        member.expected = _dedupe([*member.expected, *expected])
    return list(by_name.values())


def parameter_members(c: Corpus) -> list[Member]:
    takes: dict[str, list[tuple[Op, str, dict[str, Any]]]] = defaultdict(list)
    for op in c.ops:
        for name, loc, schema in op.params:
            takes[name].append((op, loc, schema))
    members: list[Member] = []
    for name, uses in sorted(takes.items()):
        spec_pages: Counter[str] = Counter(op.page for op, _, _ in uses)
        written: Counter[str] = Counter()
        for op, _, _ in uses:
            client = c.written.client_ops.get(op.key) if op.stem == "dgc-rest" else None
            if client and _norm(name) in c.written.client_params.get((client[1], client[0]), ()):
                written[client[1]] += 1
            for file in api_pages_of(op, c.written):
                if f'"name":"{name}"' in c.pages[file].text:
                    written[file] += 1
        ranked_spec = _by_weight(dict(spec_pages))
        expected = [ranked_spec[0], *_by_weight(dict(written)), *ranked_spec[1:]]
        loc = Counter(loc for _, loc, _ in uses).most_common(1)[0][0]
        op, _, schema = uses[0]
        spellings = [("bare", name), ("quoted", f'"{name}"')]
        if loc == "query":
            spellings.append(("query-string", f"{name}={_example_value(name, schema)}"))
        if loc == "path":
            spellings.append(("template", "{" + name + "}"))
        members.append(
            Member(
                "parameter",
                name,
                loc,
                expected,
                spellings,
                f"spec:{op.stem} {op.method} {op.path} {loc} param {name}"
                + (f" (+{len(uses) - 1} more operations)" if len(uses) > 1 else ""),
            )
        )
    return members


def property_members(c: Corpus) -> list[Member]:
    core = c.spec("dgc-rest")
    definers: dict[str, list[str]] = defaultdict(list)
    for schema, props in core.schemas.items():
        for prop in props:
            definers[prop].append(schema)
    members: list[Member] = []
    for prop, schemas in sorted(definers.items()):
        own_titles = {s for s in schemas} | {s + "Impl" for s in schemas}
        models = sorted(
            (f for f, names in c.written.model_props.items() if _norm(prop) in names),
            key=lambda f: (c.pages[f].title not in own_titles, f),
        )
        inline = sorted({op.page for op in core.ops if op.inline_body and prop in op.body})
        members.append(
            Member(
                "property",
                prop,
                "schema",
                _dedupe([core.schema_page, *inline, *models]),
                [("bare", prop), ("quoted", f'"{prop}"')],
                f"spec:{core.stem} schema {schemas[0]} property {prop}"
                + (f" (+{len(schemas) - 1} more schemas)" if len(schemas) > 1 else ""),
            )
        )
    return members


def json_key_members(c: Corpus) -> list[Member]:
    importer = c.spec("dgc-importer-rest")
    pages = [p for p in c.pages.values() if p.section == "import-api"]
    uses: dict[str, Counter[str]] = defaultdict(Counter)
    for page in pages:
        for key in _JSON_KEY_RE.findall(page.text):
            uses[key][page.file] += 1
        for line, lang in zip(page.lines, page.fenced, strict=True):
            cell = None if lang else _first_cell(line)
            if cell and re.fullmatch(r"[a-z][A-Za-z0-9_]*", cell):
                uses.setdefault(cell, Counter())
    for props in importer.schemas.values():
        for prop in props:
            uses.setdefault(prop, Counter())
    members: list[Member] = []
    for key, files in sorted(uses.items()):
        weights = {p.file: w for p in pages if (w := _weight(p, key))}
        definers = [name for name, props in importer.schemas.items() if key in props]
        spec_page = [importer.schema_page] if definers else []
        examples = _by_weight(dict(files))[:4]
        if weights:
            expected = [*_by_weight(weights, files), *spec_page]
            how, stratum = f"markdown:{expected[0]} defines import key {key}", "written"
        elif spec_page:
            expected = [*spec_page, *examples]
            how = f"spec:{importer.stem} schema {definers[0]} property {key}"
            stratum = "spec+examples" if examples else "spec-only"
        else:
            expected = examples
            how, stratum = f"markdown:import-api JSON examples use {key}", "examples-only"
        if files:
            how += f" (in the JSON of {len(files)} import-api page(s))"
        if not expected:
            continue
        members.append(
            Member(
                "json_key",
                key,
                stratum,
                expected,
                [("bare", key), ("quoted", f'"{key}"')],
                how,
            )
        )
    return members


def _weight(page: Page, name: str) -> int:
    """`definition_weight`, except that a plain word (`tags`) counts in a heading only when the
    heading is that word: a title in prose is not a definition of a JSON key."""
    if name not in page.text and name not in page.title:
        return 0
    if _code_shaped(name):
        return definition_weight(page, name)
    headings = sum(3 for h in page.headings if h == name)
    probe = Page(
        page.file, "", page.partial, page.lines, page.fenced, [], page.code_texts, page.text
    )
    return headings + definition_weight(probe, name)


def constant_members(c: Corpus) -> list[Member]:
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for page in c.pages.values():
        for text in page.code_texts:
            for name in _SCREAMING_RE.findall(text):
                if name.startswith("YOUR_") or any(p.isdigit() for p in name.split("_")):
                    continue
                found[name][page.file] += 1
    members: list[Member] = []
    for name, files in sorted(found.items()):
        weights = {f: w for f in sorted(c.pages) if (w := _weight(c.pages[f], name))}
        expected = _by_weight(weights, dict(files)) if weights else _by_weight(dict(files))
        env = any(
            re.search(rf"(?:export\s+|^\s*|\$\{{?){name}\b(?:=|\}}|\s)", p.text, re.M)
            for p in c.pages.values()
            if name in p.text
        )
        spellings = [("bare", name), ("quoted", f'"{name}"')]
        if env:
            spellings += [
                ("shell-var", f"${name}"),
                ("python-env", f'os.environ["{name}"]'),
                ("node-env", f"process.env.{name}"),
            ]
        members.append(
            Member(
                "constant",
                name,
                "defined" if weights else "code-only",
                expected,
                spellings,
                (f"markdown:{expected[0]} defines it" if weights else "markdown:not defined")
                + f"; SCREAMING_CASE in code on {len(files)} page(s)"
                + ("; assigned as an environment variable" if env else ""),
            )
        )
    return members


def type_members(c: Corpus) -> list[Member]:
    w = c.written
    names = {n for s in c.specs for n in s.schemas} | set(w.model_page) | set(w.api_objects)
    names |= set(w.beans)
    members: list[Member] = []
    for name in sorted(names):
        model = w.model_page.get(name, "")
        spec_pages = [s.schema_page for s in c.specs if name in s.schemas]
        written = _dedupe([model, w.api_objects.get(name, ""), w.beans.get(name, "")])
        expected = [*written, *spec_pages]
        stratum = (
            "model+spec"
            if model and spec_pages
            else "spec-only"
            if spec_pages
            else "model-only"
            if model
            else "api-model-or-bean"
        )
        spellings = [("bare", name)]
        if model:
            spellings.append(("python-client", f"collibra_core.{name}"))
        if name.endswith("Request"):
            spellings.append(("builder", f"{name}.builder()"))
        source = (
            f"markdown:{written[0]} defines type {name}"
            if written
            else f"spec:{spec_pages[0].split('/')[0]} schema {name}"
        )
        members.append(Member("type", name, stratum, expected, spellings, source))
    return members


_LABEL_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*(?:[A-Za-z][\w ]{0,40}:\s+)?(?:\$\s+)?")
_ARG_RE = re.compile(r"[a-z][a-z0-9._:-]*|-{1,2}[A-Za-z][\w-]*|\+x")
_EXEC_RE = re.compile(r"(?:\./|\.\\|bin/)[\w.\\/-]+")
_DATA_EXTS = (".yaml", ".yml", ".json", ".md", ".csv", ".txt", ".properties", ".xml")


def _invocation(text: str) -> str | None:
    tokens = _LABEL_RE.sub("", text, count=1).split()
    if not tokens:
        return None
    executable = _EXEC_RE.fullmatch(tokens[0]) and not tokens[0].lower().endswith(_DATA_EXTS)
    if not (tokens[0] in PROGRAMS or executable):
        return None
    words = [tokens[0]]
    for tok in tokens[1:4]:
        if not _ARG_RE.fullmatch(tok):
            break
        words.append(tok)
    while len(words) > 1 and words[-1].startswith(("-", "+")):
        words.pop()
    if len(words) == 1 and not executable:
        return None
    return " ".join(words)


def cli_members(c: Corpus) -> list[Member]:
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for page in c.pages.values():
        for text in page.code_texts:
            inv = _invocation(text)
            if inv:
                found[inv][page.file] += 1
        if page.section == "cli":
            for line in page.lines:
                if re.fullmatch(r"[a-z]+(?:-[a-z]+)+", line.strip()):
                    found[line.strip()][page.file] += 1
    members: list[Member] = []
    for inv, files in sorted(found.items()):
        weights = {f: w for f in sorted(c.pages) if (w := definition_weight(c.pages[f], inv))}
        counts = {f: code_count(c.pages[f], inv) for f in set(weights) | set(files)}
        expected = (
            _by_weight(weights, counts)
            if weights
            else _by_weight({f: n for f, n in counts.items() if n})
        )
        if not expected:
            continue
        members.append(
            Member(
                "cli",
                inv,
                "defined" if weights else "code-only",
                expected,
                [("as-written", inv), ("prompt", ("> " if "\\" in inv else "$ ") + inv)],
                (f"markdown:{expected[0]} defines it" if weights else "markdown:not defined")
                + f"; command line in code on {len(files)} page(s)",
            )
        )
    return members


def near_tie_members(c: Corpus, others: set[str]) -> list[Member]:
    pages_with: dict[str, set[str]] = defaultdict(set)
    for page in c.pages.values():
        for token in set(_TOKEN_RE.findall(page.title + "\n" + page.text)):
            parts = token.split(".")
            for candidate in {token, *parts}:
                pieces = candidate.split(".")
                if pieces[-1].lower() in _FILE_EXTS or not _near_tie_shaped(pieces):
                    continue
                pages_with[candidate].add(page.file)
    members: list[Member] = []
    for token, files in sorted(pages_with.items()):
        if len(files) < 3:
            continue
        token_re = _token_re(token)
        present = [
            f for f in sorted(files) if token_re.search(c.pages[f].title + "\n" + c.pages[f].text)
        ]
        if len(present) < 3:
            continue
        about = [f for f in present if definition_weight(c.pages[f], token)]
        if len(about) != 1:
            continue
        members.append(
            Member(
                "near_tie",
                token,
                "also-other-class" if token in others else "near-tie-only",
                about,
                [("as-written", token)],
                f"markdown:{about[0]} is about it; mentioned on {len(present) - 1} other page(s)",
            )
        )
    return members


def _near_tie_shaped(pieces: list[str]) -> bool:
    def shaped(p: str) -> bool:
        return bool(
            re.fullmatch(r"[a-z]+[A-Z]\w*", p)
            or re.fullmatch(r"[A-Z][a-z0-9]+[A-Z]\w*", p)
            or re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", p)
            or re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", p)
        )

    return any(shaped(p) for p in pieces) and all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in pieces)


# --- sampling --------------------------------------------------------------------------------


def allocate(sizes: dict[str, int], n: int, floor: int) -> dict[str, int]:
    """Per-stratum counts: a floor each, the rest in proportion to size (largest remainder)."""
    if sum(sizes.values()) <= n:
        return dict(sizes)
    take = {s: min(floor, size) for s, size in sizes.items()}
    left = n - sum(take.values())
    spare = {s: sizes[s] - take[s] for s in sizes}
    total = sum(spare.values())
    if left <= 0 or total == 0:
        return take
    quotas = {s: left * spare[s] / total for s in sizes}
    for s in sizes:
        take[s] += int(quotas[s])
    rest = left - sum(int(q) for q in quotas.values())
    for s in sorted(sizes, key=lambda s: (-(quotas[s] - int(quotas[s])), s))[:rest]:
        take[s] += 1
    return take


def draw(members: list[Member], n: int, floor: int, rng: random.Random) -> list[Member]:
    strata: dict[str, list[Member]] = defaultdict(list)
    for m in sorted(members, key=lambda m: m.name):
        strata[m.stratum].append(m)
    counts = allocate({s: len(v) for s, v in sorted(strata.items())}, n, floor)
    chosen: list[Member] = []
    for s in sorted(strata):
        chosen.extend(rng.sample(strata[s], counts[s]))
    return sorted(chosen, key=lambda m: m.name)


def finish(expected: list[str], extra: list[str], pages: dict[str, Page]) -> list[str]:
    """Cap a case's files: primary, up to WRITTEN_IN_CAP written pages, then the rule's order,
    then pages that define the same string under another class's rule."""
    own = _dedupe(expected)
    written = [f for f in own[1:] if f in pages][:WRITTEN_IN_CAP]
    ordered = _dedupe([own[0], *written, *own[1:], *extra])
    return ordered[:CAP]


def build_cases(c: Corpus, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    populations: dict[str, list[Member]] = {
        "path": path_members(c),
        "operation": operation_members(c),
        "parameter": parameter_members(c),
        "property": property_members(c),
        "json_key": json_key_members(c),
        "constant": constant_members(c),
        "type": type_members(c),
        "cli": cli_members(c),
    }
    others = {m.name for members in populations.values() for m in members}
    populations["near_tie"] = near_tie_members(c, others)
    defined_as: dict[str, list[str]] = defaultdict(list)
    for cls in CLASSES:
        for m in populations[cls]:
            defined_as[m.name].extend(m.expected)
    rng = random.Random(seed)
    taken: set[str] = set()
    cases: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    for cls in CLASSES:
        pool = [m for m in populations[cls] if m.name not in taken]
        chosen = draw(pool, PER_CLASS, MIN_PER_STRATUM.get(cls, 1), rng)
        taken.update(m.name for m in chosen)
        for i, m in enumerate(chosen, start=1):
            label, text = random.Random(f"{seed}:{cls}:{m.name}").choice(m.spellings)
            own = _dedupe(m.expected)
            extra = [f for f in defined_as[m.name] if f not in own]
            files = finish(own, extra, c.pages)
            cases.append(
                {
                    "id": f"{cls}-{i:03d}",
                    "category": "identifier",
                    "class": cls,
                    "identifier": text,
                    "spelling": label,
                    "canonical": m.name,
                    "stratum": m.stratum,
                    "expected_files": files,
                    "primary": files[0],
                    "definitions": len(_dedupe([*own, *extra])),
                    "ambiguous": len(_dedupe([*own, *extra])) > CAP,
                    "needs_spec": not any(f in c.pages for f in files),
                    "source": m.source,
                }
            )
        strata = Counter(m.stratum for m in populations[cls])
        summary.append(
            {
                "class": cls,
                "population": len(populations[cls]),
                "strata": dict(sorted(strata.items())),
                "sample": len(chosen),
                "ambiguous": sum(1 for case in cases[-len(chosen) :] if case["ambiguous"])
                if chosen
                else 0,
                "needs_spec": sum(1 for case in cases[-len(chosen) :] if case["needs_spec"])
                if chosen
                else 0,
            }
        )
    return cases, summary


# --- client snippets -------------------------------------------------------------------------

N_SNIPPETS = 72
STYLES = (
    "python-session",
    "python-requests",
    "python-dict-before",
    "python-client-class",
    "python-httpx",
    "javascript-fetch",
    "javascript-axios",
    "typescript-fetch",
    "typescript-axios",
    "shell-curl",
    "groovy-builder",
    "java-builder",
)
LANGUAGE = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "typescript",
    "shell": "shellscript",
    "groovy": "groovy",
    "java": "java",
}
_MARK_RE = re.compile(r"⟦(\d+)\|([^⟧]*)⟧")
_STRINGS = {
    "name": "Customer ID",
    "displayName": "Customer identifier",
    "description": "Synced from the CRM",
    "value": "42",
    "email": "jane.doe@acme.com",
    "content": "Reviewed by the data office",
    "comment": "Reviewed by the data office",
}


@dataclass(slots=True)
class Key:
    name: str
    role: str  # query | body | path
    schema: dict[str, Any]


class Snippet:
    """Code lines with marked cursor texts; `⟦i|text⟧` ties a text to expectation i."""

    def __init__(self) -> None:
        self.expects: list[dict[str, str]] = []

    def mark(self, text: str, op: Op, name: str, role: str) -> str:
        self.expects.append({"method": op.method, "path": op.path, "name": name, "role": role})
        return f"⟦{len(self.expects) - 1}|{text}⟧"

    def endpoint(self, text: str, op: Op) -> str:
        return self.mark(text, op, op.operation_id, "endpoint")

    def render(self, lines: list[str]) -> tuple[str, list[dict[str, Any]]]:
        out: list[str] = []
        cursors: list[dict[str, Any]] = []
        for number, line in enumerate(lines):
            while m := _MARK_RE.search(line):
                text = m.group(2)
                line = line[: m.start()] + text + line[m.end() :]
                cursors.append(
                    {
                        "line": number,
                        "character": m.start() + len(text) // 2,
                        "text": text,
                        "expect": self.expects[int(m.group(1))],
                    }
                )
            out.append(line)
        return "\n".join(out) + "\n", cursors


def _ident(name: str, lang: str) -> str:
    return snake(name) if lang == "python" else name[0].lower() + name[1:]


def _value(key: Key, lang: str, rng: random.Random, variables: list[str]) -> str:
    """A literal or a variable for a key's value in `lang`; ids become function arguments."""
    schema = key.schema
    kind = schema.get("type")
    if schema.get("enum"):
        return json.dumps(str(rng.choice(schema["enum"])))
    if schema.get("format") == "uuid" or (key.name.endswith("Id") and kind == "string"):
        var = _ident(key.name, lang)
        variables.append(var)
        if lang == "java":
            return f"UUID.fromString({var})"
        return f"string2Uuid({var})" if lang == "groovy" else var
    if kind == "array":
        items = schema.get("items") or {}
        inner = _value(Key(_singular(key.name), key.role, items), lang, rng, variables)
        if lang == "java":
            return f"List.of({inner})"
        return f"[{inner}]"
    if kind == "boolean":
        value = rng.choice([True, False])
        return ("True" if value else "False") if lang == "python" else str(value).lower()
    if kind in ("integer", "number"):
        return "100" if key.name in ("limit", "countLimit") else str(rng.choice([0, 1, 10]))
    if kind == "object" or "additionalProperties" in schema or schema.get("properties"):
        if lang == "groovy":
            return '[comment: "Started by the nightly sync"]'
        if lang == "java":
            return 'Map.of("comment", "Started by the nightly sync")'
        return '{"comment": "Started by the nightly sync"}'
    return json.dumps(
        _STRINGS.get(key.name, "Customer ID" if "name" in key.name.lower() else "example")
    )


def _dict_lines(
    keys: list[Key],
    op: Op,
    s: Snippet,
    lang: str,
    rng: random.Random,
    variables: list[str],
    indent: str,
    quote_keys: bool = True,
    strings: bool = False,
) -> list[str]:
    """`"key": value,` lines; `strings` renders values as URLSearchParams needs them."""
    lines = []
    for key in keys:
        name = s.mark(key.name, op, key.name, key.role)
        shown = (
            f'"{name}"' if quote_keys or not re.fullmatch(r"[A-Za-z_$][\w$]*", key.name) else name
        )
        if strings and key.schema.get("type") == "array":
            key = Key(key.name, key.role, key.schema.get("items") or {})
        value = _value(key, lang, rng, variables)
        if strings and re.fullmatch(r"-?\d+|true|false", value):
            value = f'"{value}"'
        lines.append(f"{indent}{shown}: {value},")
    return lines


def _path_text(op: Op, s: Snippet, param: Callable[[str], str]) -> str:
    """The operation's path with its last literal segment marked as the endpoint."""
    segments = op.path.strip("/").split("/")
    last = max(i for i, seg in enumerate(segments) if not seg.startswith("{"))
    shown = []
    for i, seg in enumerate(segments):
        if seg.startswith("{"):
            shown.append(param(seg[1:-1]))
        elif i == last:
            shown.append(s.endpoint(seg, op))
        else:
            shown.append(seg)
    return "/" + "/".join(shown)


def _signature(variables: list[str]) -> str:
    return ", ".join(dict.fromkeys(variables))


def _py_call_args(
    op: Op,
    query: list[Key],
    body: list[Key],
    s: Snippet,
    rng: random.Random,
    variables: list[str],
    indent: str,
) -> list[str]:
    lines: list[str] = []
    if query:
        lines.append(f"{indent}params={{")
        lines += _dict_lines(query, op, s, "python", rng, variables, indent + "    ")
        lines.append(f"{indent}}},")
    if body:
        open_, close = ("[{", "}]") if op.body_is_array else ("{", "}")
        lines.append(f"{indent}json={open_}")
        lines += _dict_lines(body, op, s, "python", rng, variables, indent + "    ")
        lines.append(f"{indent}{close},")
    return lines


def _fn_name(op: Op, lang: str) -> str:
    return snake(op.operation_id) if lang == "python" else op.operation_id


def style_python_session(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = []
    url = _path_text(op, s, lambda p: "{" + snake(p) + "}")
    variables += [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    args = _py_call_args(op, query, body, s, rng, variables, "        ")
    lines = [
        "import requests",
        "",
        'BASE = "https://acme.collibra.com/rest/2.0"',
        "",
        "session = requests.Session()",
        'session.auth = ("svc-catalog", "change-me")',
        "",
        "",
        f"def {_fn_name(op, 'python')}({_signature(variables)}):",
        f"    response = session.{op.method.lower()}(",
        f'        f"{{BASE}}{url}",',
        *args,
        "    )",
        "    response.raise_for_status()",
        "    return response.json()",
    ]
    return "python", lines


def style_python_requests(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    url = _path_text(op, s, lambda p: '" + ' + snake(p) + ' + "')
    url_expr = f'BASE + "{url}"'.replace(' + ""', "")
    args = _py_call_args(op, query, body, s, rng, variables, "        ")
    lines = [
        "import requests",
        "",
        'BASE = "https://acme.collibra.com/rest/2.0"',
        'AUTH = ("svc-catalog", "change-me")',
        "",
        "",
        f"def {_fn_name(op, 'python')}({_signature(variables)}):",
        f"    response = requests.{op.method.lower()}(",
        f"        {url_expr},",
        *args,
        "        auth=AUTH,",
        "    )",
        "    return response.json()",
    ]
    return "python", lines


def style_python_dict_before(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    url = _path_text(op, s, lambda p: "{" + snake(p) + "}")
    body_lines: list[str] = []
    call = [f"requests.{op.method.lower()}(url"]
    if query:
        body_lines += [
            "    params = {",
            *_dict_lines(query, op, s, "python", rng, variables, "        "),
            "    }",
        ]
        call.append("params=params")
    if body:
        entries = _dict_lines(body, op, s, "python", rng, variables, "        ")
        if op.body_is_array:
            body_lines += ["    item = {", *entries, "    }", "    payload = [item]"]
        else:
            body_lines += ["    payload = {", *entries, "    }"]
        call.append("json=payload")
    lines = [
        "import requests",
        "",
        'COLLIBRA = "https://acme.collibra.com"',
        'API = COLLIBRA + "/rest/2.0"',
        "",
        "",
        f"def {_fn_name(op, 'python')}({_signature(variables)}):",
        *body_lines,
        f'    url = f"{{API}}{url}"',
        f'    resp = {", ".join(call)}, auth=("svc-catalog", "change-me"))',
        "    resp.raise_for_status()",
        "    return resp.json()",
    ]
    return "python", lines


def _client_class_fits(op: Op) -> bool:
    segments = op.path.strip("/").split("/")
    return len(segments) > 1 and any(not seg.startswith("{") for seg in segments[1:])


def style_python_client_class(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    first, rest = op.path.strip("/").split("/", 1)
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", rest)]
    tail = Op(
        op.stem,
        op.method,
        "/" + rest,
        op.operation_id,
        op.summary,
        op.tag,
        [],
        {},
        False,
        False,
        "",
        "",
        frozenset(),
    )
    url = _path_text(tail, s, lambda p: "{" + snake(p) + "}")
    s.expects[-1].update({"path": op.path})
    args = _py_call_args(op, query, body, s, rng, variables, "            ")
    cls = "".join(w.capitalize() for w in re.findall(r"[A-Za-z0-9]+", op.tag)) + "Client"
    lines = [
        "import requests",
        "",
        "",
        f"class {cls}:",
        "    def __init__(self, api, session=None):",
        "        self.session = session or requests.Session()",
        f'        self.base = api + "/{first}"',
        "",
        f"    def {_fn_name(op, 'python')}(self{', ' if variables else ''}"
        f"{_signature(variables)}):",
        f"        response = self.session.{op.method.lower()}(",
        f'            f"{{self.base}}{url}",',
        *args,
        "        )",
        "        response.raise_for_status()",
        "        return response.json()",
        "",
        "",
        f'client = {cls}("https://acme.collibra.com/rest/2.0")',
    ]
    return "python", lines


def style_python_httpx(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    variables: list[str] = [snake(p) for p in re.findall(r"\{([^}]+)\}", op.path)]
    url = _path_text(op, s, lambda p: "{" + snake(p) + "}")
    literal = f'f"{url}"' if variables else f'"{url}"'
    args = _py_call_args(op, query, body, s, rng, variables, "        ")
    if body and op.method in ("GET", "DELETE"):
        head = ["    response = client.request(", f'        "{op.method}",', f"        {literal},"]
    else:
        head = [f"    response = client.{op.method.lower()}(", f"        {literal},"]
    lines = [
        "import httpx",
        "",
        "client = httpx.Client(",
        '    base_url="https://acme.collibra.com/rest/2.0",',
        '    auth=("svc-catalog", "change-me"),',
        "    timeout=30.0,",
        ")",
        "",
        "",
        f"def {_fn_name(op, 'python')}({_signature(variables)}):",
        *head,
        *args,
        "    )",
        "    response.raise_for_status()",
        "    return response.json()",
    ]
    return "python", lines


def _js_object(
    keys: list[Key],
    op: Op,
    s: Snippet,
    lang: str,
    rng: random.Random,
    variables: list[str],
    indent: str,
) -> list[str]:
    return _dict_lines(keys, op, s, lang, rng, variables, indent, quote_keys=False)


def style_javascript_fetch(
    op: Op,
    query: list[Key],
    body: list[Key],
    s: Snippet,
    rng: random.Random,
    lang: str = "javascript",
) -> tuple[str, list[str]]:
    variables: list[str] = list(re.findall(r"\{([^}]+)\}", op.path))
    first = variables[0] if variables else ""
    url = _path_text(op, s, lambda p: "${" + (s.mark(p, op, p, "path") if p == first else p) + "}")
    typed = lang == "typescript"
    lines: list[str] = []
    query_part = ""
    pre: list[str] = []
    if query:
        pre += [
            "  const query = new URLSearchParams({",
            *_dict_lines(
                query, op, s, lang, rng, variables, "    ", quote_keys=False, strings=True
            ),
            "  });",
        ]
        query_part = "?${query}"
    if body:
        entries = _js_object(body, op, s, lang, rng, variables, "    ")
        if op.body_is_array:
            pre += ["  const body = [{", *entries, "  }];"]
        else:
            pre += ["  const body = {", *entries, "  };"]
    params = ", ".join(f"{v}: string" if typed else v for v in dict.fromkeys(variables))
    ret = ": Promise<unknown>" if typed else ""
    lines += [
        'const base = process.env.COLLIBRA_URL ?? "https://acme.collibra.com";',
        "const headers = {",
        '  "Content-Type": "application/json",',
        '  Authorization: "Basic " + btoa("svc-catalog:change-me"),',
        "};",
        "",
        f"export async function {_fn_name(op, lang)}({params}){ret} {{",
        *pre,
        f"  const response = await fetch(`${{base}}/rest/2.0{url}{query_part}`, {{",
        f'    method: "{op.method}",',
        "    headers,",
        *(["    body: JSON.stringify(body),"] if body else []),
        "  });",
        "  if (!response.ok) throw new Error(`Collibra answered ${response.status}`);",
        "  return response.json();",
        "}",
    ]
    return lang, lines


def style_typescript_fetch(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    return style_javascript_fetch(op, query, body, s, rng, "typescript")


def style_axios(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random, lang: str
) -> tuple[str, list[str]]:
    typed = lang == "typescript"
    variables: list[str] = list(re.findall(r"\{([^}]+)\}", op.path))
    url = _path_text(op, s, lambda p: "${" + p + "}")
    pre: list[str] = []
    if body:
        entries = _js_object(body, op, s, lang, rng, variables, "    ")
        pre += (
            ["  const payload = [{", *entries, "  }];"]
            if op.body_is_array
            else ["  const payload = {", *entries, "  };"]
        )
    options: list[str] = []
    if query:
        options = [
            "    params: {",
            *_js_object(query, op, s, lang, rng, variables, "      "),
            "    },",
        ]
    params = ", ".join(f"{v}: string" if typed else v for v in dict.fromkeys(variables))
    ret = ": Promise<unknown>" if typed else ""
    method = op.method.lower()
    if typed:
        target = f"`{url}`"
        head = [
            'import axios from "axios";',
            "",
            "const api = axios.create({",
            '  baseURL: "https://acme.collibra.com/rest/2.0",',
            '  auth: { username: "svc-catalog", password: "change-me" },',
            "});",
            "",
        ]
        client = "api"
    else:
        target = f"`${{BASE_URL}}/rest/2.0{url}`"
        head = [
            'const axios = require("axios");',
            "",
            'const BASE_URL = "https://acme.collibra.com";',
            'const auth = { username: "svc-catalog", password: "change-me" };',
            "",
        ]
        client = "axios"
        options.append("    auth,")
    if method in ("post", "put", "patch"):
        call = [
            f"  const {{ data }} = await {client}.{method}({target}, "
            f"{'payload' if body else '{}'}, {{",
            *options,
            "  });",
        ]
    else:
        extra = ["    data: payload,"] if body else []
        call = [
            f"  const {{ data }} = await {client}.{method}({target}, {{",
            *extra,
            *options,
            "  });",
        ]
    lines = [
        *head,
        f"export async function {_fn_name(op, lang)}({params}){ret} {{"
        if typed
        else f"async function {_fn_name(op, lang)}({params}) {{",
        *pre,
        *call,
        "  return data;",
        "}",
        *([] if typed else ["", f"module.exports = {{ {_fn_name(op, lang)} }};"]),
    ]
    return lang, lines


def style_javascript_axios(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    return style_axios(op, query, body, s, rng, "javascript")


def style_typescript_axios(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    return style_axios(op, query, body, s, rng, "typescript")


def _literal(key: Key, rng: random.Random) -> str:
    """A JSON value for curl bodies and query strings."""
    schema = key.schema
    if schema.get("enum"):
        return str(rng.choice(schema["enum"]))
    if schema.get("format") == "uuid" or key.name.endswith("Id"):
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    kind = schema.get("type")
    if kind == "boolean":
        return rng.choice(["true", "false"])
    if kind in ("integer", "number"):
        return "100" if key.name in ("limit", "countLimit") else str(rng.choice([0, 1, 10]))
    return _STRINGS.get(key.name, "Customer ID" if "name" in key.name.lower() else "example")


def _json_literal(key: Key, rng: random.Random) -> str:
    kind = key.schema.get("type")
    if kind == "array":
        return (
            "[" + _json_literal(Key(key.name, key.role, key.schema.get("items") or {}), rng) + "]"
        )
    if kind in ("boolean", "integer", "number") and not key.schema.get("enum"):
        return _literal(key, rng)
    if kind == "object" or "additionalProperties" in key.schema:
        return '{"comment": "nightly sync"}'
    return json.dumps(_literal(key, rng))


def style_shell_curl(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    url = _path_text(op, s, lambda p: str(uuid.UUID(int=rng.getrandbits(128), version=4)))
    lines = [
        "#!/usr/bin/env bash",
        "set -euo pipefail",
        "",
        'COLLIBRA_URL="${COLLIBRA_URL:-https://acme.collibra.com}"',
        "",
    ]
    verb = "" if op.method == "GET" and rng.random() < 0.5 else f" -X {op.method}"
    in_url = query and (op.method != "GET" or rng.random() < 0.5)
    target = f"$COLLIBRA_URL/rest/2.0{url}"
    if in_url:
        target += "?" + "&".join(
            f"{s.mark(k.name, op, k.name, 'query')}={_literal(k, rng).replace(' ', '%20')}"
            for k in query
        )
    head = f'curl -sS -u "svc-catalog:$COLLIBRA_PASSWORD"{verb}'
    if query and not in_url:
        head += " -G"
    parts = [f'{head} "{target}"']
    if query and not in_url:
        parts += [
            f'  --data-urlencode "{s.mark(k.name, op, k.name, "query")}={_literal(k, rng)}"'
            for k in query
        ]
    if body:
        fields = ", ".join(
            f'"{s.mark(k.name, op, k.name, "body")}": {_json_literal(k, rng)}' for k in body
        )
        document = f"[{{{fields}}}]" if op.body_is_array else f"{{{fields}}}"
        parts += ['  -H "Content-Type: application/json"', f"  -d '{document}'"]
    for i, part in enumerate(parts):
        lines.append(part + (" \\" if i < len(parts) - 1 else ""))
    return "shell", lines


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "uses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _singular_receiver(tag: str) -> tuple[str, str]:
    words = re.findall(r"[A-Za-z0-9]+", tag) or ["api"]
    words[-1] = _singular(words[-1])
    type_name = "".join(w[0].upper() + w[1:] for w in words) + "Api"
    return type_name[0].lower() + type_name[1:], type_name


def _request_class(op: Op) -> str:
    if op.body_schema:
        return op.body_schema
    return op.operation_id[0].upper() + op.operation_id[1:] + "Request"


def _builder_lines(
    op: Op,
    keys: list[Key],
    s: Snippet,
    lang: str,
    rng: random.Random,
    variables: list[str],
    indent: str,
) -> list[str]:
    request = _request_class(op)
    lines = [f"{request}.builder()"]
    for key in keys:
        lines.append(
            f"{indent}.{s.mark(key.name, op, key.name, key.role)}"
            f"({_value(key, lang, rng, variables)})"
        )
    lines.append(f"{indent}.build()")
    return lines


def style_groovy_builder(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    receiver, _ = _singular_receiver(op.tag)
    variables: list[str] = []
    built = _builder_lines(op, body or query, s, "groovy", rng, variables, "        ")
    argument = "[request]" if body and op.body_is_array else "request"
    lines = [
        "// Script task: values come from the workflow's start form",
        *[f'def {v} = execution.getVariable("{v}")' for v in dict.fromkeys(variables)],
        f"def request = {built[0]}",
        *built[1:],
        f"def result = {receiver}.{s.endpoint(op.operation_id, op)}({argument})",
        'execution.setVariable("result", result)',
    ]
    return "groovy", lines


def style_java_builder(
    op: Op, query: list[Key], body: list[Key], s: Snippet, rng: random.Random
) -> tuple[str, list[str]]:
    receiver, type_name = _singular_receiver(op.tag)
    variables: list[str] = []
    built = _builder_lines(op, body or query, s, "java", rng, variables, "                ")
    request = _request_class(op)
    argument = "List.of(request)" if body and op.body_is_array else "request"
    cls = type_name.removesuffix("Api") + "Sync"
    params = ", ".join(f"String {v}" for v in dict.fromkeys(variables))
    lines = [
        "import java.util.List;",
        "import java.util.Map;",
        "import java.util.UUID;",
        "",
        f"public class {cls} {{",
        f"    private final {type_name} {receiver};",
        "",
        f"    public {cls}({type_name} {receiver}) {{",
        f"        this.{receiver} = {receiver};",
        "    }",
        "",
        f"    public Object run({params}) {{",
        f"        {request} request = {built[0]}",
        *built[1:-1],
        f"{built[-1]};",
        f"        return {receiver}.{s.endpoint(op.operation_id, op)}({argument});",
        "    }",
        "}",
    ]
    return "java", lines


STYLE_FUNCS: dict[str, Callable[..., tuple[str, list[str]]]] = {
    "python-session": style_python_session,
    "python-requests": style_python_requests,
    "python-dict-before": style_python_dict_before,
    "python-client-class": style_python_client_class,
    "python-httpx": style_python_httpx,
    "javascript-fetch": style_javascript_fetch,
    "javascript-axios": style_javascript_axios,
    "typescript-fetch": style_typescript_fetch,
    "typescript-axios": style_typescript_axios,
    "shell-curl": style_shell_curl,
    "groovy-builder": style_groovy_builder,
    "java-builder": style_java_builder,
}


def _keys(op: Op, rng: random.Random, most: int = 4) -> tuple[list[Key], list[Key]]:
    """Up to `most` query parameters or body keys: required ones first, then a random few."""
    query = [Key(n, "query", sch) for n, loc, sch in op.params if loc == "query"]
    body = (
        [Key(n, "body", sch) for n, sch in op.body.items()]
        if op.body_media == "application/json"
        else []
    )
    pool = body or query
    first = [k for k in pool if k.name in op.required][:most]
    rest = [k for k in pool if k not in first]
    want = rng.randint(1, min(most, len(pool)))
    chosen = first + rng.sample(rest, max(0, min(len(rest), want - len(first))))
    order = {k.name: i for i, k in enumerate(pool)}
    chosen.sort(key=lambda k: order[k.name])
    return (chosen, []) if not body else ([], chosen)


def _eligible(op: Op) -> bool:
    return bool(op.operation_id) and bool(
        any(loc == "query" for _, loc, _ in op.params)
        or (op.body and op.body_media == "application/json")
    )


def _combined_delete(
    find: Op, delete: Op, rng: random.Random
) -> tuple[str, str, list[str], Snippet]:
    """The issue's case: a GET /domains lookup, then requests.delete(".../domains/bulk")."""
    s = Snippet()
    find_url = _path_text(find, s, lambda p: p)
    delete_url = _path_text(delete, s, lambda p: p)
    name_key = s.mark("nameMatchMode", find, "nameMatchMode", "query")
    lines = [
        "import requests",
        "",
        'BASE = "https://acme.collibra.com/rest/2.0"',
        'AUTH = ("svc-catalog", "change-me")',
        "",
        "",
        "def remove_stale_domains(prefix):",
        "    found = requests.get(",
        f'        BASE + "{find_url}",',
        f'        params={{"name": prefix, "{name_key}": "START"}},',
        "        auth=AUTH,",
        "    ).json()",
        '    ids = [domain["id"] for domain in found["results"]]',
        f'    response = requests.delete(BASE + "{delete_url}", json=ids, auth=AUTH)',
        "    response.raise_for_status()",
    ]
    return "python-requests", "python", lines, s


def build_snippets(c: Corpus, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}:snippets")
    core = c.spec("dgc-rest")
    by_key = {(op.method, op.path): op for op in core.ops}
    forced = [
        ("python-session", by_key[("POST", "/workflowInstances")]),
        ("python-dict-before", by_key[("POST", "/relations")]),
    ]
    eligible = [op for op in c.ops if _eligible(op) and all(op is not f[1] for f in forced)]
    by_method: dict[str, dict[str, list[Op]]] = defaultdict(lambda: defaultdict(list))
    for op in eligible:
        by_method[op.method][op.tag].append(op)
    chosen: list[Op] = []
    used_tags: dict[str, set[str]] = defaultdict(set)
    methods = [m for m in ("GET", "POST", "PUT", "PATCH", "DELETE") if m in by_method]
    want = N_SNIPPETS - len(forced) - 1
    while len(chosen) < want and any(by_method[m] for m in methods):
        for method in methods:
            tags = by_method[method]
            if not tags or len(chosen) >= want:
                continue
            fresh = sorted(t for t in tags if t not in used_tags[method]) or sorted(tags)
            if not [t for t in tags if t not in used_tags[method]]:
                used_tags[method].clear()
            tag = rng.choice(fresh)
            used_tags[method].add(tag)
            op = rng.choice(tags[tag])
            tags[tag].remove(op)
            if not tags[tag]:
                del tags[tag]
            chosen.append(op)
    queue: list[str] = []
    plan: list[tuple[str, Op]] = list(forced)
    for op in chosen:
        if not queue:
            queue = list(STYLES)
            rng.shuffle(queue)
        style = next(
            (st for st in queue if st != "python-client-class" or _client_class_fits(op)), queue[0]
        )
        queue.remove(style)
        plan.append((style, op))
    snippets: list[dict[str, Any]] = []
    for style, op in plan:
        # The fetch styles also mark the first path parameter; a snippet has at most 5 cursors.
        marked_path = style.endswith("-fetch") and "{" in op.path
        query, body = _keys(op, rng, 3 if marked_path else 4)
        if op.method == "POST" and op.path == "/workflowInstances":
            body = [
                Key(n, "body", op.body[n])
                for n in ("workflowDefinitionId", "businessItemIds", "businessItemType")
            ]
        if style == "python-client-class" and not _client_class_fits(op):
            style = "python-session"
        s = Snippet()
        lang, lines = STYLE_FUNCS[style](op, query, body, s, rng)
        snippets.append(_finish_snippet(style, lang, lines, s, f"{op.method} {op.path}"))
    style, lang, lines, s = _combined_delete(
        by_key[("GET", "/domains")], by_key[("DELETE", "/domains/bulk")], rng
    )
    snippets.append(_finish_snippet(style, lang, lines, s, "GET /domains; DELETE /domains/bulk"))
    snippets.sort(key=lambda r: (r["operation"], r["style"]))
    for i, record in enumerate(snippets, start=1):
        record["id"] = f"snippet-{i:03d}"
    return snippets


def _finish_snippet(
    style: str, lang: str, lines: list[str], s: Snippet, operation: str
) -> dict[str, Any]:
    code, cursors = s.render(lines)
    return {
        "id": "",
        "language": LANGUAGE[lang],
        "style": style,
        "operation": operation,
        "code": code,
        "cursors": cursors,
    }


def validate_snippet(record: dict[str, Any]) -> list[str]:
    """Problems with one snippet: it must parse (Python) or balance its brackets (others), and
    each cursor must sit inside its text."""
    problems: list[str] = []
    code: str = record["code"]
    lines = code.split("\n")
    if record["language"] == "python":
        try:
            ast.parse(code)
        except SyntaxError as exc:
            problems.append(f"python does not parse: {exc}")
    else:
        stripped = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', code)
        stripped = re.sub(r"`(?:\\.|[^`\\])*`", '""', stripped)
        stripped = re.sub(r"//[^\n]*", "", stripped)
        for open_, close in ("()", "[]", "{}"):
            if stripped.count(open_) != stripped.count(close):
                problems.append(f"unbalanced {open_}")
    if not 2 <= len(record["cursors"]) <= 5:
        problems.append(f"{len(record['cursors'])} cursors")
    for cursor in record["cursors"]:
        line = lines[cursor["line"]]
        text = cursor["text"]
        start = cursor["character"] - len(text) // 2
        if line[start : start + len(text)] != text or not text:
            problems.append(f"cursor {cursor} is not on its text")
    return problems


# --- main ------------------------------------------------------------------------------------


def load_corpus(shared: Path) -> Corpus:
    markdown = shared / "collibra-docs" / "markdown"
    specs_dir = shared / "collibra-openapi"
    if not markdown.is_dir():
        raise SystemExit(
            f"{markdown}: no such folder (pass --shared, the folder holding "
            "collibra-docs/ and collibra-openapi/)"
        )
    missing = [name for name in SPEC_FILES if not (specs_dir / name).is_file()]
    if missing:
        raise SystemExit(f"{specs_dir}: missing {', '.join(missing)}")
    pages = read_pages(markdown)
    specs = [read_spec(specs_dir / name) for name in SPEC_FILES]
    return Corpus(pages, specs, read_written(pages), call_examples(pages))


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, sort_keys=True, ensure_ascii=True) + "\n" for r in records)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/identifier_cases.jsonl"))
    parser.add_argument(
        "--snippets-out", type=Path, default=Path("benchmarks/client_snippets.jsonl")
    )
    args = parser.parse_args(argv)
    corpus = load_corpus(args.shared)
    cases, summary = build_cases(corpus, args.seed)
    snippets = build_snippets(corpus, args.seed)
    problems = [f"{r['id']}: {p}" for r in snippets for p in validate_snippet(r)]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    write_jsonl(args.out, cases)
    write_jsonl(args.snippets_out, snippets)
    print(
        f"{'class':<10} {'population':>10} {'sample':>6} {'ambiguous':>9} {'needs_spec':>10}"
        "  strata (population)"
    )
    for row in summary:
        strata = ", ".join(f"{k} {v}" for k, v in row["strata"].items())
        print(
            f"{row['class']:<10} {row['population']:>10} {row['sample']:>6} "
            f"{row['ambiguous']:>9} {row['needs_spec']:>10}  {strata}"
        )
    print(f"{'total':<10} {sum(r['population'] for r in summary):>10} {len(cases):>6}")
    styles = Counter(r["style"] for r in snippets)
    cursors = sum(len(r["cursors"]) for r in snippets)
    print(
        f"\n{len(snippets)} client snippets, {cursors} cursors; styles: "
        + ", ".join(f"{k} {v}" for k, v in sorted(styles.items()))
    )
    print(f"wrote {args.out} and {args.snippets_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
