"""Identifier entries found in one markdown page.

Endpoint mentions (`GET /path`), the Python-client method tables with their parameter sections,
Java/Groovy types and beans, Import API JSON keys, CLI commands, GraphQL names and every H1-H3
heading, each tied to the file, line and section that documents it.
"""

from __future__ import annotations

import re
from typing import Any

from atlas_core.identifier_normalize import STOPWORDS, strip_path
from atlas_core.identifier_scan import Scan, Section, bound
from atlas_core.types import Document, IdentifierEntry, Param

# Extraction from one document.

METHOD_ALT = "GET|POST|PUT|PATCH|DELETE"
ENDPOINT_RE = re.compile(
    rf"(?<![\w/])[*`]*\b({METHOD_ALT})\b[*`]*[ \t]+`?((?:https?://[^\s/`]+|\$?\{{\w+\}})?/[\w{{}}\-./:<>$%]*[\w}}>])"
)
_CLIENT_ROW_RE = re.compile(
    rf"^\s*\[\*\*(\w+)\*\*\]\([^)#]*#?([^)]*)\)\s*\|\s*\*\*({METHOD_ALT})\*\*\s+(\S+)\s*\|\s*(.*?)\s*\|?\s*$"
)
_PARAM_ROW_RE = re.compile(r"^\s*\*\*(\w+)\*\*\s*\|\s*(.*?)\|\s*(.*?)\|\s*(.*)$")
_SIGNATURE_RE = re.compile(r"^>\s*([\w\[\]]+)\s+\w+\(")
_RETURN_RE = re.compile(r"\[\*\*([\w\[\]]+)\*\*\]")
_TYPE_SUFFIXES = (
    "Api|Request|Response|Service|Command|Bean|Impl|Config|Configuration|Client|Builder|"
    "Exception|Listener|Delegate|Filter|Order|Fragment|Reference|Factory|Manager|Helper|Util|Utils"
)
_TYPE_RE = re.compile(rf"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*(?:{_TYPE_SUFFIXES}))\b")
_BEAN_CALL_RE = re.compile(r"\b([a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*(?:Api|Service))\.([a-z]\w*)\b")
_STATIC_CALL_RE = re.compile(
    r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\.(builder|newBuilder|of|from)\s*\("
)
_JAVA_IMPORT_RE = re.compile(r"^\s*import\s+(?:static\s+)?[\w.]*\.([A-Z]\w+)\s*;?\s*$")
_NEW_RE = re.compile(r"\bnew\s+([A-Z][A-Za-z0-9]+)\s*[(<]")
_INLINE_CODE_RE = re.compile(r"`([^`\n]{2,80})`")
_JSON_KEY_RE = re.compile(r'"([A-Za-z_][\w.-]{1,60})"\s*:')
_RESOURCE_TYPE_RE = re.compile(r'"resourceType"\s*:\s*"([A-Za-z]\w*)"')
_CAMEL_WORD_RE = re.compile(r"\b([a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)\b")
PASCAL_RE = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$")
_CLI_LINE_RE = re.compile(
    r"^(?:\$\s+)?([a-z][\w.-]*(?:[ \t]+[a-z][a-z0-9-]*){0,3})(?:[ \t]+-{1,2}[\w-].*)?$"
)
_SHELL_TEXT = (
    "cd ls cp mv rm mkdir chmod chown sudo export echo cat touch git go pip npm npx curl wget "
    "source set unset python python3 java docker kubectl tar unzip which brew apt apt-get"
)
_SHELL_SKIP = frozenset(_SHELL_TEXT.split())
_GRAPHQL_OP_RE = re.compile(
    r"^\s*(query|mutation|subscription|fragment|type|input|enum|interface)\s+([A-Za-z_]\w*)"
)
_GRAPHQL_TYPE_REF_RE = re.compile(r"(?:Returns|-)\s+\[?([A-Z][A-Za-z0-9]+)\]?!?")
_GRAPHQL_FIELD_RE = re.compile(r"^\s*(?:\.\.\.)?([a-z][A-Za-z0-9_]*)\s*(?:[({]|$)")
_GRAPHQL_SPREAD_RE = re.compile(r"\.\.\.\s*([A-Z]\w+)|\$\w+\s*:\s*\[?([A-Z]\w+)")


class _Collector:
    """Entries of one document, deduplicated by (kind, name)."""

    def __init__(self, doc: Document, scan: Scan) -> None:
        self.doc = doc
        self.scan = scan
        self.entries: dict[tuple[str, str, int], IdentifierEntry] = {}

    def add(self, name: str, kind: str, line: int, **fields: Any) -> None:
        name = name.strip()
        # Headings repeat legitimately ("Parameters" under every operation); names do not.
        key = (kind, name, line if kind == "heading" else 0)
        if not name or key in self.entries:
            return
        section = self.scan.section_at(line)
        anchor = fields.pop("anchor", None)
        if anchor is None:
            anchor = section.anchor if section else ""
        summary = fields.pop("summary", "") or (section.summary if section else "")
        url = self.doc.url + (f"#{anchor}" if anchor and self.doc.url else "")
        self.entries[key] = IdentifierEntry(
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
            ptype = (
                _RETURN_RE.search(ptype).group(1) if _RETURN_RE.search(ptype) else ptype
            ).strip("*")
            camel = re.sub(r"_([a-z0-9])", lambda x: x.group(1).upper(), pname)
            if "{" + camel + "}" in template or "{" + pname + "}" in template:
                where = "path"
            elif ptype.endswith("Request]") or ptype.endswith("Request"):
                where, request = "body", request or ptype
            else:
                where = "query"
            params.append(Param(pname, where, ptype, "[optional]" not in notes, bound(desc, 200)))
    return tuple(params), request, response


def extract_document(doc: Document, scan: Scan | None = None) -> list[IdentifierEntry]:
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
    is_cli = _is_publication(doc, "cli", "command", "commands", "harvester")
    is_graphql = _is_publication(doc, "graphql", "knowledge-graph")
    programs: set[str] = set()
    for i, line in enumerate(scan.lines):
        lineno = i + 1
        row = _CLIENT_ROW_RE.match(line)
        if row:
            _client_row(out, scan, row, lineno)
            continue
        for m in ENDPOINT_RE.finditer(line):
            _, template = strip_path(m.group(2).rstrip(".,;:)"))
            if template != "/":
                out.add(
                    f"{m.group(1)} {template}", "endpoint", lineno, method=m.group(1), path=template
                )
        code = scan.in_code[i]
        if not is_graphql:
            for text in [line] if code else _INLINE_CODE_RE.findall(line):
                _java_names(out, text, lineno)
        # A minified spec pasted into a page is a schema dump, not import-file keys.
        if is_import and (code or '"' in line) and len(line) < 2000:
            for key in _JSON_KEY_RE.findall(line):
                out.add(key, "json_key", lineno)
            for value in _RESOURCE_TYPE_RE.findall(line):
                out.add(value, "json_key", lineno)
        if is_import and not code:
            # Option names in prose and parameter tables: "the continueOnError parameter".
            for word in _CAMEL_WORD_RE.findall(line):
                out.add(word, "json_key", lineno)
        if is_cli and not code:
            _cli_line(out, line.strip(), lineno, programs)
        if is_graphql:
            _graphql_line(out, line, lineno)
    for block in scan.blocks:
        if block.lang in ("bash", "sh", "shell", "console", "zsh", "powershell") or (
            is_cli and not block.lang
        ):
            for n, line in enumerate(block.lines):
                _cli_shell(out, line.strip(), block.start + n)
        if block.lang == "json":
            for n, line in enumerate(block.lines):
                for key in _JSON_KEY_RE.findall(line):
                    if is_import:
                        out.add(key, "json_key", block.start + n)
        if block.lang in ("graphql", "gql"):
            for n, line in enumerate(block.lines):
                _graphql_line(out, line, block.start + n)
    return list(out.entries.values())


def _heading_type(out: _Collector, s: Section) -> None:
    """An H1 that names a type (AddAssetRequest, collibra_core.AssetsApi) is that type's page."""
    name = s.title.split(".")[-1].strip()
    if PASCAL_RE.match(name):
        kind = (
            "type"
            if re.search(rf"(?:{_TYPE_SUFFIXES})$", name) and name.endswith("Api")
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
    fields = dict(
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


def _java_names(out: _Collector, text: str, lineno: int) -> None:
    for bean, member in _BEAN_CALL_RE.findall(text):
        out.add(bean[0].upper() + bean[1:], "type", lineno)
        out.add(member, "operation", lineno)
    for cls, _ in _STATIC_CALL_RE.findall(text):
        out.add(cls, "type", lineno)
    for pattern in (_JAVA_IMPORT_RE, _NEW_RE):
        for cls in pattern.findall(text):
            out.add(cls, "type", lineno)
    for cls in _TYPE_RE.findall(text):
        out.add(cls, "type", lineno)


def _cli_shell(out: _Collector, line: str, lineno: int) -> None:
    line = line.removeprefix("$ ").strip()
    if not line or line.startswith("#"):
        return
    words = []
    for word in line.split():
        if not re.fullmatch(r"[a-z][a-z0-9._-]*", word) or len(words) >= 3:
            break
        words.append(word)
    if not words or words[0] in _SHELL_SKIP or "=" in words[0]:
        return
    if len(words) > 1 or "-" in words[0]:
        out.add(" ".join(words), "cli", lineno)


def _cli_line(out: _Collector, line: str, lineno: int, programs: set[str]) -> None:
    """A command named on its own line of a CLI page (`full-sync`, `collibra data-contract init`)."""
    if not line:
        return
    m = _CLI_LINE_RE.match(line) if len(line) <= 80 else None
    words = m.group(1).split() if m else []
    if not m:
        # "collibra data-contract draft Generate a new ..." : a known program then its subcommand.
        lead = re.match(r"^([a-z][\w-]*(?:\s+[a-z][a-z0-9-]*){1,3})\s+[A-Z]", line)
        if not lead or lead.group(1).split()[0] not in programs:
            return
        words = lead.group(1).split()
    if words[0] in STOPWORDS or words[0] in _SHELL_SKIP:
        return
    if len(words) == 1 and "-" not in words[0]:
        return
    if len(words) > 3 and not any("-" in w for w in words) and words[0] not in programs:
        return
    if len(words) > 1:
        programs.add(words[0])
    out.add(" ".join(words), "cli", lineno)


def _graphql_line(out: _Collector, line: str, lineno: int) -> None:
    m = _GRAPHQL_OP_RE.match(line)
    if m:
        out.add(m.group(2), "graphql", lineno)
    for name in _GRAPHQL_TYPE_REF_RE.findall(line):
        out.add(name, "graphql", lineno)
    for spread, variable_type in _GRAPHQL_SPREAD_RE.findall(line):
        out.add(spread or variable_type, "graphql", lineno)
    f = None if m else _GRAPHQL_FIELD_RE.match(line)
    if f and len(f.group(1)) > 1 and f.group(1) not in STOPWORDS and len(line.strip()) < 60:
        out.add(f.group(1), "graphql", lineno)
