"""Identifier entries found in one markdown page.

Endpoint mentions (`GET /path`, GraphQL endpoint URLs), operation tables (the Python-client
method tables with their parameter sections, and any table row pairing an operation name with an
endpoint), operation names in prose, Java/Groovy types and beans, Import API JSON keys, CLI
commands, GraphQL names and every H1-H3 heading, each tied to the file, line and section that
documents it, with a weight saying how much that section is about it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from atlas_core.identifiers.extract.code_names import (
    TYPE_RE,
    TYPE_SUFFIXES,
    cli_page_command,
    graphql_names,
    java_names,
    shell_command,
)
from atlas_core.identifiers.extract.document_scan import (
    CODE_WEIGHT,
    DEFINITION_WEIGHT,
    LONG_LINE,
    Scan,
    Section,
    bound,
)
from atlas_core.identifiers.extract.table_definitions import (
    example_definitions,
    is_spec_dump,
    model_type,
    table_definitions,
)
from atlas_core.identifiers.spelling import strip_path
from atlas_core.identifiers.store.table import OWNED_KINDS
from atlas_core.types import Document, IdentifierEntry, Param

METHOD_ALT = "GET|POST|PUT|PATCH|DELETE"
# At most 8 marks before the method: an unbounded `[*`]*` rescanned a long run of `*` from every
# position in it (quadratic); a match inside a longer run still starts at a later position.
ENDPOINT_RE = re.compile(
    rf"(?<![\w/])[*`]{{0,8}}\b({METHOD_ALT})\b[*`]*[ \t]+`?((?:https?://[^\s/`]+|\$?\{{\w+\}})?/[\w{{}}\-./:<>$%]*[\w}}>])"
)
# A GraphQL endpoint is named by its URL alone ("https://<host>/graphql/knowledgeGraph/v1"); the
# protocol posts every query to it.
_GRAPHQL_URL_RE = re.compile(
    r"(?<![\w.-])(?:https?://[^\s/`'\"]+|<[^>\s]+>|\{\{?\w+\}?\}|\$\{\w+\})?"
    r"(/graphql(?:/[\w.-]*\w)*)(?![\w/])"
)
_CLIENT_ROW_RE = re.compile(
    rf"^\s*\[\*\*(\w+)\*\*\]\([^)#]*#?([^)]*)\)\s*\|\s*\*\*({METHOD_ALT})\*\*\s+(\S+)\s*\|\s*(.*?)\s*\|?\s*$"
)
_PARAM_ROW_RE = re.compile(r"^\s*\*\*(\w+)\*\*\s*\|\s*(.*?)\|\s*(.*?)\|\s*(.*)$")
_SIGNATURE_RE = re.compile(r"^>\s*([\w\[\]]+)\s+\w+\(")
_RETURN_RE = re.compile(r"\[\*\*([\w\[\]]+)\*\*\]")
_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# camelCase or snake_case; each hump starts at its capital, so matching cannot backtrack.
_OPERATION_CELL_RE = re.compile(r"[a-z][a-z0-9]*(?:(?:[A-Z][a-z0-9]*)+|(?:_[a-z0-9]+)+)")
_API_VERBS = (
    "get|find|add|create|change|update|remove|delete|list|search|import|export|start|cancel"
)
# An API verb and at least one more hump, not inside a path, URL, query string or quoted key:
# plain English never capitalises inside a word, so this is an operation written without code
# formatting ("call getEventResourceId on the event bean").
_OPERATION_WORD_RE = re.compile(
    rf"(?<![\w/$&=?\"'{{<-])((?:{_API_VERBS})(?:[A-Z][a-z0-9]*)+)(?![\w/\"'=-])"
)
_URL_OR_QUERY_RE = re.compile(r"\S+://\S+|[?&][\w.\[\]-]+=[^\s&`]*")
_INLINE_CODE_RE = re.compile(r"`([^`\n]{2,80})`")
_JSON_KEY_RE = re.compile(r'"([A-Za-z_][\w.-]{1,60})"\s*:')
_RESOURCE_TYPE_RE = re.compile(r'"resourceType"\s*:\s*"([A-Za-z]\w*)"')
_CAMEL_WORD_RE = re.compile(r"\b([a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)\b")
PASCAL_RE = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$")
# Kinds named by one word, whose mentions can be counted to tell which section documents them.
_WEIGHTED_KINDS = frozenset({"operation", "schema", "type", "json_key", "graphql"})
_SHELL_LANGS = ("bash", "sh", "shell", "console", "zsh", "powershell")


@dataclass(frozen=True, slots=True)
class Found:
    """One entry of a page, with what ranks it against entries of the same name elsewhere."""

    entry: IdentifierEntry
    weight: int = 0  # Scan.weight of its section: how much that section is about the name
    mention: bool = False  # named in plain prose or a call: kept where nothing documents it better
    generated: bool = False  # from a page generated out of an API spec, not written by people


class _Collector:
    """Entries of one page, one per (kind, name); a plain mention moves to a later section of
    the page that is more about the name."""

    def __init__(self, doc: Document, scan: Scan) -> None:
        self.doc = doc
        self.scan = scan
        self.found: dict[tuple[str, str, int], Found] = {}
        self.pinned: set[tuple[str, str, int]] = set()  # added with fields: a documented place
        # Section anchor -> (method, path, operation id) of the operation it documents.
        self.operations: dict[str, tuple[str, str, str]] = {}

    def add(
        self,
        name: str,
        kind: str,
        line: int,
        *,
        mention: bool = False,
        weight: int | None = None,
        **fields: Any,
    ) -> None:
        name = name.strip()
        if not name:
            return
        # Headings repeat legitimately ("Parameters" under every operation), and so do the
        # parameters of different operations; other names do not.
        key = (kind, name, line if kind == "heading" or kind in OWNED_KINDS else 0)
        if weight is None:
            weight = self.scan.weight(name, line) if kind in _WEIGHTED_KINDS else 0
        old = self.found.get(key)
        if old is not None:
            if key in self.pinned:
                return
            promoted = old.mention and not mention
            if not (promoted or (not fields and weight > old.weight)):
                return
            mention = mention and old.mention
        if fields:
            self.pinned.add(key)
        section = self.scan.section_at(line)
        anchor = fields.pop("anchor", None)
        if anchor is None:
            anchor = section.anchor if section else ""
        summary = fields.pop("summary", "") or (section.summary if section else "")
        url = self.doc.url + (f"#{anchor}" if anchor and self.doc.url else "")
        entry = IdentifierEntry(
            name=name,
            kind=kind,
            file=self.doc.path,
            line=line,
            anchor=anchor,
            url=url,
            summary=bound(summary),
            publication=self.doc.publication,
            **fields,
        )
        self.found[key] = Found(entry, weight, mention)


def _is_publication(doc: Document, *words: str) -> bool:
    """Whether the page's publication, path or title names one of `words` (as a whole word, so
    "cli" does not match a Java client page)."""
    hay = f"{doc.publication} {doc.path} {doc.title}".lower()
    return any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", hay) for w in words)


def _section_params(
    scan: Scan, section: Section, template: str
) -> tuple[tuple[Param, ...], str, str]:
    """Parameters, request schema and response schema from a Python-client operation section."""
    params: list[Param] = []
    request = response = ""
    in_params = in_return = False
    end = len(scan.lines)
    for s in scan.sections:
        if s.line > section.line and s.level and s.level <= max(section.level, 1):
            end = s.line - 1
            break
    for i in range(section.line, end):
        line = scan.lines[i]
        if scan.in_code[i]:
            continue
        low = line.strip().lower()
        if low.startswith("#"):
            in_params = low.lstrip("# ").startswith("parameters")
            in_return = low.lstrip("# ").startswith("return type")
            continue
        sig = _SIGNATURE_RE.match(line.strip())
        if sig and not response:
            response = sig.group(1)
        if in_return and not response:
            m = _RETURN_RE.search(line)
            if m:
                response = m.group(1)
        m = _PARAM_ROW_RE.match(line) if in_params else None
        if m:
            pname, ptype, desc, notes = (g.strip() for g in m.groups())
            wrapped = _RETURN_RE.search(ptype)
            ptype = (wrapped.group(1) if wrapped else ptype).strip("*")
            camel = re.sub(r"_([a-z0-9])", lambda x: x.group(1).upper(), pname)
            if "{" + camel + "}" in template or "{" + pname + "}" in template:
                where = "path"
            elif ptype.endswith("Request]") or ptype.endswith("Request"):
                where, request = "body", request or ptype
            else:
                where = "query"
            params.append(Param(pname, where, ptype, "[optional]" not in notes, bound(desc, 200)))
    return tuple(params), request, response


def extract_document(doc: Document, scan: Scan | None = None) -> list[Found]:
    """Identifier entries found in one document's markdown (`scan`: its scan, when made already)."""
    scan = scan or Scan(doc.text, doc.title)
    out = _Collector(doc, scan)
    for s in scan.sections:
        if s.level:
            out.add(s.title, "heading", s.line, anchor=s.anchor, summary=s.summary)
        elif s.title:
            out.add(s.title, "heading", 1, anchor="", summary=s.summary)
        if s.level == 1:
            _heading_type(out, s)
    is_import = _is_publication(doc, "import")
    if is_import:
        _import_keys(out, scan)
    is_cli = _is_publication(doc, "cli", "command", "commands", "harvester")
    is_graphql = _is_publication(doc, "graphql", "knowledge-graph")
    programs: set[str] = set()
    # Lines of a pasted OpenAPI document: the spec's own pages define its keys, not this page.
    dumped = {
        block.start + n
        for block in scan.blocks
        if is_spec_dump(block)
        for n in range(len(block.lines))
    }
    for i, line in enumerate(scan.lines):
        lineno = i + 1
        code = scan.in_code[i]
        row = _CLIENT_ROW_RE.match(line)
        if row:
            _client_row(out, scan, row, lineno)
            continue
        table_row = not code and line.count("|") >= 2 and len(line) <= LONG_LINE
        if table_row and _operation_row(out, line, lineno):
            continue
        _endpoints(out, line, lineno)
        if len(line) > LONG_LINE:
            continue  # a pasted spec or minified JSON: a schema dump, not names the page documents
        if not is_graphql:
            for text in [line] if code else _INLINE_CODE_RE.findall(line):
                for name, kind in java_names(text):
                    out.add(name, kind, lineno)
            if not code:
                # Type-shaped names in plain prose ("uses a different kind of ViewConfig, called
                # TableViewConfig") are as much a type's documentation as backticked ones.
                for name in TYPE_RE.findall(_INLINE_CODE_RE.sub(" ", line)):
                    out.add(name, "type", lineno, mention=True)
        calls = _operation_words(out, line, lineno, code=code, calls_only=code or is_import)
        if is_import and (code or '"' in line) and lineno not in dumped:
            for key in _JSON_KEY_RE.findall(line):
                out.add(key, "json_key", lineno)
            for value in _RESOURCE_TYPE_RE.findall(line):
                out.add(value, "json_key", lineno)
        if is_import and not code:
            # Option names in prose and parameter tables: "the continueOnError parameter". A
            # query string or URL in the line names request parameters, not import-file keys.
            for word in _CAMEL_WORD_RE.findall(_URL_OR_QUERY_RE.sub(" ", line)):
                if word not in calls:
                    out.add(word, "json_key", lineno)
        if is_cli and not code:
            out.add(cli_page_command(line.strip(), programs), "cli", lineno)
        if is_graphql:
            for name in graphql_names(line):
                out.add(name, "graphql", lineno)
    for block in scan.blocks:
        if block.lang in _SHELL_LANGS or (is_cli and not block.lang):
            for n, line in enumerate(block.lines):
                out.add(shell_command(line.strip()), "cli", block.start + n)
        if block.lang == "json" and is_import and not is_spec_dump(block):
            for n, line in enumerate(block.lines):
                if len(line) > LONG_LINE:
                    continue  # as in prose: minified JSON is a dump, not keys the page documents
                for key in _JSON_KEY_RE.findall(line):
                    out.add(key, "json_key", block.start + n)
        if block.lang in ("graphql", "gql"):
            for n, line in enumerate(block.lines):
                for name in graphql_names(line):
                    out.add(name, "graphql", block.start + n)
    _definitions(out, scan, is_import=is_import)
    return list(out.found.values())


def _definitions(out: _Collector, scan: Scan, *, is_import: bool) -> None:
    """Parameter and property rows: definition tables (a model page's rows are its type's
    properties) and JSON example keys, except on Import API pages, where they are `json_key`s."""
    h1 = next((s.title for s in scan.sections if s.level == 1), "")
    model = model_type(out.doc.title, h1, PASCAL_RE)
    if model and not h1:
        # A page titled by a type name with no H1 of its own documents that type too.
        out.add(model, "type", 1, anchor="", summary=scan.sections[0].summary)
    if is_import:
        return  # its tables were read first (`_import_keys`); its JSON examples are json_keys
    found = table_definitions(scan, model=bool(model)) + example_definitions(scan)
    # An endpoint written in a section ("POST /rest/2.0/assets") is the operation it documents
    # when no client table links the section.
    for f in list(out.found.values()):
        e = f.entry
        if e.kind == "endpoint" and e.anchor:
            out.operations.setdefault(e.anchor, (e.method, e.path, e.operation_id))
    for d in found:
        method, template, operation = _owner_operation(out, scan, d.line)
        if not d.in_table and not method:
            continue  # a JSON block outside any operation's section is not its example
        if d.kind == "parameter":
            camel = re.sub(r"_([a-z0-9])", lambda x: x.group(1).upper(), d.name)
            in_path = "{" + camel + "}" in template or "{" + d.name + "}" in template
            location = "path" if in_path else "query"
        else:
            location = "body"
        param = Param(d.name, location, d.type, d.required, d.description, default=d.default)
        out.add(
            d.name,
            d.kind,
            d.line,
            weight=DEFINITION_WEIGHT if d.in_table else CODE_WEIGHT,
            method=method,
            path=template,
            operation_id=operation,
            params=(param,),
            owner=model if d.kind == "property" and not method else "",
            summary=d.description,
        )


def _import_keys(out: _Collector, scan: Scan) -> None:
    """An Import API page's option and key tables: each row a `json_key` with its type and
    description, added before the page's prose names the same key without them."""
    for d in table_definitions(scan, model=False):
        param = Param(d.name, "body", d.type, d.required, d.description, default=d.default)
        weight = max(scan.weight(d.name, d.line), DEFINITION_WEIGHT)
        out.add(d.name, "json_key", d.line, weight=weight, params=(param,))


def _owner_operation(out: _Collector, scan: Scan, line: int) -> tuple[str, str, str]:
    """The operation documented by the section holding `line` or by a section enclosing it, as
    (method, path, operation id); empty when none is known. A sibling section before it (the
    operation's "Response fields" after its "Request") is not its owner."""
    i = bisect_right([s.line for s in scan.sections], line) - 1
    level = 99
    while i >= 0:
        section = scan.sections[i]
        if section.level < level:
            if section.anchor in out.operations:
                return out.operations[section.anchor]
            level = section.level
            if level <= 1:
                break
        i -= 1
    return "", "", ""


def _endpoints(out: _Collector, line: str, lineno: int) -> None:
    for m in ENDPOINT_RE.finditer(line):
        _, template = strip_path(m.group(2).rstrip(".,;:)"))
        if template != "/":
            out.add(
                f"{m.group(1)} {template}", "endpoint", lineno, method=m.group(1), path=template
            )
    if "/graphql" in line:
        for m in _GRAPHQL_URL_RE.finditer(line):
            _, template = strip_path(m.group(1))
            out.add(f"POST {template}", "endpoint", lineno, method="POST", path=template)


def _operation_words(
    out: _Collector, line: str, lineno: int, *, code: bool, calls_only: bool
) -> set[str]:
    """Operation names written without code formatting; returns those shaped like a call or a
    request (`x.getFoo`, `getFoo(`, `findAssets?tagNames=`). In code and on Import API pages
    (where a bare camelCase word is an import-file key) only those count."""
    calls: set[str] = set()
    for m in _OPERATION_WORD_RE.finditer(line):
        after = line[m.end() : m.end() + 1]
        called = after in ("(", "?") or line[m.start() - 1 : m.start()] == "."
        if called:
            calls.add(m.group(1))
        if called or not calls_only:
            out.add(m.group(1), "operation", lineno, mention=True)
    return calls


def _operation_cell(cell: str) -> str:
    """The operation a table cell names (`findAssets`, [**find_assets**](...)), or ""."""
    if len(cell) > 200:
        return ""
    text = _LINK_RE.sub(r"\1", cell).strip().strip("*`").strip()
    text = text.removesuffix("()")
    return text if _OPERATION_CELL_RE.fullmatch(text) else ""


def _operation_row(out: _Collector, line: str, lineno: int) -> bool:
    """A table row that pairs an operation name with its endpoint (``| `findAssets` | `GET
    /assets` | Find assets |``, or a client README row led by its class); False if it is not."""
    endpoint = ENDPOINT_RE.search(line)
    if not endpoint:
        return False
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    op = next((name for c in cells if (name := _operation_cell(c))), "")
    if not op:
        return False
    method = endpoint.group(1)
    _, template = strip_path(endpoint.group(2).rstrip(".,;:)"))
    described = [c for c in cells if " " in c and not ENDPOINT_RE.search(c)]
    # Keyword fields of the entry, passed through `_Collector.add(**fields)`.
    fields: dict[str, Any] = dict(
        method=method,
        path=template,
        operation_id=op,
        summary=described[-1].strip("*` ") if described else "",
    )
    out.add(f"{method} {template}", "endpoint", lineno, **fields)
    out.add(op, "operation", lineno, **fields)
    return True


def _heading_type(out: _Collector, s: Section) -> None:
    """An H1 that names a type (AddAssetRequest, collibra_core.AssetsApi) is that type's page."""
    name = s.title.split(".")[-1].strip()
    if PASCAL_RE.match(name):
        kind = (
            "type"
            if re.search(rf"(?:{TYPE_SUFFIXES})$", name) and name.endswith("Api")
            else "schema"
        )
        out.add(name, kind, s.line, anchor=s.anchor, summary=s.summary)


def _client_row(out: _Collector, scan: Scan, row: re.Match[str], lineno: int) -> None:
    op, anchor, method, raw_path, desc = row.groups()
    _, template = strip_path(raw_path)
    section = scan.section_by_anchor(anchor) if anchor else None
    line = section.line if section else lineno
    summary = desc or (section.summary if section else "")
    params: tuple[Param, ...] = ()
    request = response = ""
    if section:
        params, request, response = _section_params(scan, section, template)
    fields: dict[str, Any] = dict(
        method=method,
        path=template,
        operation_id=op,
        params=params,
        request_schema=request,
        response_schema=response,
        anchor=section.anchor if section else None,
        summary=summary,
    )
    out.add(f"{method} {template}", "endpoint", line, **fields)
    out.add(op, "operation", line, **fields)
    if section:
        out.operations.setdefault(section.anchor, (method, template, op))
