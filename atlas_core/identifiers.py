"""Build-time extraction of the identifier table and its on-disk writer.

`write_identifier_table` is called by the bundle pipeline. Entries come from what the sources
already attach to documents (OpenAPI operations and schemas) plus what the markdown says: endpoint
mentions, the Python-client method tables, Java/Groovy types and beans, Import API JSON keys, CLI
commands, GraphQL names and every H1-H3 heading. Deprecation statements become `Deprecation` rows.
The format is described in ``bundle_spec/SPEC.md`` (section "identifiers/").
"""

from __future__ import annotations

import bisect
import json
import logging
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from pathlib import Path
from typing import Any

from atlas_core.chunker import fence_ids, scan_headings
from atlas_core.symbols import (
    DEPRECATIONS_FILE,
    KEY_FAMILIES,
    KIND_ORDER,
    META_FILE,
    RECORDS_FILE,
    TABLE_DIR,
    TABLE_FORMAT,
    TABLE_VERSION,
    compact,
    initials,
    path_key,
    split_words,
    strip_path,
    write_lines,
    write_npy,
)
from atlas_core.types import Chunk, Deprecation, Document, IdentifierEntry, Param

log = logging.getLogger(__name__)

SUMMARY_CHARS = 400
_SUMMARY_WORD_RE = re.compile(r"[a-z0-9]{2,}")
_STOPWORD_TEXT = (
    "a an and are as at be by for from has have if in into is it its of on or that the this to "
    "was were when which will with you your can not use used using"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# ---------------------------------------------------------------------------------------------
# Markdown structure: headings, anchors, sections and their first paragraph.

_FENCE_LANG_RE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*([\w+-]*)")


@dataclass(frozen=True, slots=True)
class Section:
    level: int  # 1-3 for headings, 0 for the document's implicit top section
    title: str
    line: int  # 1-based
    anchor: str
    summary: str


@dataclass(frozen=True, slots=True)
class CodeBlock:
    lang: str
    start: int  # 1-based line of the first content line
    lines: tuple[str, ...]


class Scan:
    """One pass over a document: its sections (H1-H3), code blocks and the section of each line."""

    def __init__(self, text: str, title: str) -> None:
        # Same line split, fences and anchors as the chunker, so entries and chunks agree.
        self.lines = text.split("\n")
        ids = fence_ids(self.lines)
        self.in_code = [n >= 0 for n in ids]
        self.blocks: list[CodeBlock] = []
        i = 0
        while i < len(ids):
            if ids[i] < 0:
                i += 1
                continue
            j = i
            while j + 1 < len(ids) and ids[j + 1] == ids[i]:
                j += 1
            m = _FENCE_LANG_RE.match(self.lines[i])
            lang = m.group(1).lower() if m else ""
            self.blocks.append(CodeBlock(lang, i + 2, tuple(self.lines[i + 1 : j])))
            i = j + 1
        heads = [h for h in scan_headings(self.lines, self.in_code) if h.level <= 3]
        self.sections: list[Section] = []
        if not any(h.level == 1 for h in heads):
            first = heads[0].line if heads else len(self.lines)
            self.sections.append(Section(0, title, 1, "", self._summary(-1, first, title)))
        for n, h in enumerate(heads):
            end = heads[n + 1].line if n + 1 < len(heads) else len(self.lines)
            self.sections.append(
                Section(h.level, h.text, h.line + 1, h.anchor, self._summary(h.end, end))
            )
        self._starts = [s.line for s in self.sections]

    def _summary(self, head: int, end: int, skip: str = "") -> str:
        """The first prose paragraph after line index `head`, bounded to SUMMARY_CHARS."""
        para: list[str] = []
        for i in range(head + 1, end):
            line = self.lines[i].strip()
            prose = (
                line
                and not self.in_code[i]
                and not line.startswith(("|", ">", "<a ", "<!--", "!["))
                and not re.fullmatch(r"[-|: ]+", line)
                and line.count("|") < 2
                and not (skip and line == skip)
            )
            if prose:
                para.append(line)
            elif para:
                break
        return bound(" ".join(para))

    def section_at(self, line: int) -> Section | None:
        """The section that contains 1-based `line`."""
        import bisect

        i = bisect.bisect_right(self._starts, line) - 1
        return self.sections[i] if i >= 0 else (self.sections[0] if self.sections else None)

    def section_by_anchor(self, anchor: str) -> Section | None:
        for s in self.sections:
            if s.anchor == anchor:
                return s
        return None


def bound(text: str, limit: int = SUMMARY_CHARS) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + " …"


# ---------------------------------------------------------------------------------------------
# Extraction from one document.

_METHOD_ALT = "GET|POST|PUT|PATCH|DELETE"
_ENDPOINT_RE = re.compile(
    rf"(?<![\w/])[*`]*\b({_METHOD_ALT})\b[*`]*[ \t]+`?((?:https?://[^\s/`]+|\$?\{{\w+\}})?/[\w{{}}\-./:<>$%]*[\w}}>])"
)
_CLIENT_ROW_RE = re.compile(
    rf"^\s*\[\*\*(\w+)\*\*\]\([^)#]*#?([^)]*)\)\s*\|\s*\*\*({_METHOD_ALT})\*\*\s+(\S+)\s*\|\s*(.*?)\s*\|?\s*$"
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
_PASCAL_RE = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$")
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


def extract_document(doc: Document) -> tuple[list[IdentifierEntry], list[Deprecation]]:
    """Identifier entries and deprecations found in one document's markdown."""
    scan = Scan(doc.text, doc.title)
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
        for m in _ENDPOINT_RE.finditer(line):
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
    entries = list(out.entries.values())
    return entries, extract_deprecations(doc, scan)


def _heading_type(out: _Collector, s: Section) -> None:
    """An H1 that names a type (AddAssetRequest, collibra_core.AssetsApi) is that type's page."""
    name = s.title.split(".")[-1].strip()
    if _PASCAL_RE.match(name):
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
    if words[0] in _STOPWORDS or words[0] in _SHELL_SKIP:
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
    if f and len(f.group(1)) > 1 and f.group(1) not in _STOPWORDS and len(line.strip()) < 60:
        out.add(f.group(1), "graphql", lineno)


# ---------------------------------------------------------------------------------------------
# Deprecations.

_DEPRECATED_RE = re.compile(r"deprecat", re.IGNORECASE)
_REPLACEMENT_RE = re.compile(
    r"(?:use\s+(?:the\s+)?|replaced\s+(?:by|with)\s+(?:the\s+)?|in\s+favou?r\s+of\s+(?:the\s+)?|"
    r"superseded\s+by\s+(?:the\s+)?|renamed\s+to\s+)"
    rf"(`[^`]+`|(?:(?:{_METHOD_ALT})\s+)?/[\w{{}}/.-]+|[A-Za-z_][\w.]*(?:\(\))?)",
    re.IGNORECASE,
)
_TERM_BEFORE_RE = re.compile(
    r"(`[^`]+`|[A-Za-z_][\w.]*(?:\(\))?)\s+(?:\w+\s+){0,2}(?:is|are|has been|have been|was|were)\s+"
    r"(?:now\s+|officially\s+)?deprecated",
    re.IGNORECASE,
)
_TERM_AFTER_RE = re.compile(
    r"\bdeprecated\s+(?:(?:field|parameter|property|endpoint|method|flag|key|option|class|api)\s+)?"
    r"(`[^`]+`|[A-Za-z_][\w.]*)(?:\s+(?:field|parameter|property|endpoint|method|flag|key|option))?",
    re.IGNORECASE,
)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def _codeish(term: str) -> bool:
    """A term worth warning about in code: backticked, an endpoint, or an identifier shape."""
    if term.startswith("`") or term.startswith("/") or re.match(rf"^(?:{_METHOD_ALT})\s+/", term):
        return True
    return bool(re.search(r"[a-z][A-Z]|_|\.\w|\(\)$", term)) or bool(_PASCAL_RE.match(term))


def _same_term(term: str) -> str:
    """A term as compared with its replacement: endpoints without base, prefix or param names."""
    if "/" in term:
        method, path = strip_path(term)
        return f"{method} {path_key(path)}"
    return term


def _strip_term(term: str) -> str:
    return term.strip().strip("`").strip().rstrip(".,;:")


_OLD_COLUMN_RE = re.compile(r"\b(?:deprecated|old|legacy|former|previous|removed)\b")
_NEW_COLUMN_RE = re.compile(r"\b(?:current|new|replacement|instead|use|now)\b")


def _deprecation_table(scan: Scan, doc: Document, i: int, out: list[Deprecation]) -> int:
    """A `Deprecated | Current` (or `Old name | Use instead`) table whose header is line index i,
    in a passage that talks about deprecation; returns the index after the table."""
    header = [c.strip().lower() for c in scan.lines[i].strip().strip("|").split("|")]
    old = next((n for n, c in enumerate(header) if _OLD_COLUMN_RE.search(c)), None)
    new = next((n for n, c in enumerate(header) if n != old and _NEW_COLUMN_RE.search(c)), None)
    if old is None or new is None:
        return i + 1
    note = ""
    for back in range(i - 1, max(-1, i - 10), -1):
        if _DEPRECATED_RE.search(scan.lines[back]):
            note = bound(scan.lines[back], 300)
            break
    if not note and "deprecated" not in header[old]:
        return i + 1  # an "old | new" table about something else (a changelog, a migration)
    j = i + 1
    while j < len(scan.lines) and "|" in scan.lines[j]:
        cells = [c.strip() for c in scan.lines[j].strip().strip("|").split("|")]
        if not re.fullmatch(r"[-: ]*", "".join(cells)) and len(cells) > max(old, new):
            term, repl = _strip_term(cells[old]), _strip_term(cells[new])
            if term and len(term) <= 80:
                out.append(_deprecation(scan, doc, term, repl, j + 1, note or doc.title))
        j += 1
    return j


def _deprecation(
    scan: Scan, doc: Document, term: str, repl: str, line: int, note: str
) -> Deprecation:
    section = scan.section_at(line)
    anchor = section.anchor if section else ""
    url = doc.url + (f"#{anchor}" if anchor and doc.url else "")
    whole = not term.startswith("/") and " " not in term
    return Deprecation(term, repl, doc.path, line, url, bound(note, 300), whole)


def _paragraphs(scan: Scan) -> Iterable[tuple[str, list[int], list[int]]]:
    """Prose paragraphs as (joined text, start offset of each line, 1-based line numbers): a
    sentence that says "deprecated" often wraps onto the next line."""
    lines: list[int] = []
    for i, line in enumerate([*scan.lines, ""]):
        text = line.strip()
        prose = (
            text
            and i < len(scan.lines)
            and not scan.in_code[i]
            and not text.startswith(("#", "|"))
            and text.count("|") < 2
        )
        if prose:
            lines.append(i)
            continue
        if lines:
            parts = [scan.lines[n].strip() for n in lines]
            starts = list(accumulate((len(p) + 1 for p in parts[:-1]), initial=0))
            yield " ".join(parts), starts, [n + 1 for n in lines]
            lines = []


def extract_deprecations(doc: Document, scan: Scan) -> list[Deprecation]:
    out: list[Deprecation] = []
    i = 0
    while i < len(scan.lines):
        header = not scan.in_code[i] and "|" in scan.lines[i] and i + 1 < len(scan.lines)
        if header and re.fullmatch(r"\s*\|?\s*:?-{2,}.*", scan.lines[i + 1]):
            i = _deprecation_table(scan, doc, i, out)
            continue
        i += 1
    for text, starts, numbers in _paragraphs(scan):
        if not _DEPRECATED_RE.search(text) or len(text) > 5000:
            continue
        sentences = _SENTENCE_RE.split(text)
        offset = 0
        for n, sentence in enumerate(sentences):
            offset = text.find(sentence, offset)
            if not _DEPRECATED_RE.search(sentence):
                continue
            follow = " ".join(sentences[n : n + 2])
            terms = [m.group(1) for m in _TERM_BEFORE_RE.finditer(sentence)]
            terms += [m.group(1) for m in _TERM_AFTER_RE.finditer(sentence)]
            terms += [
                f"{m.group(1)} {strip_path(m.group(2))[1]}" for m in _ENDPOINT_RE.finditer(sentence)
            ]
            after = follow.split("deprecat", 1)[-1]
            repl_m = _REPLACEMENT_RE.search(after) or _REPLACEMENT_RE.search(follow)
            repl = _strip_term(repl_m.group(1)) if repl_m else ""
            line = numbers[max(0, bisect.bisect_right(starts, offset) - 1)]
            for raw in dict.fromkeys(terms):
                term = _strip_term(raw)
                if term and _codeish(raw.strip()) and _same_term(term) != _same_term(repl):
                    out.append(_deprecation(scan, doc, term, repl, line, sentence))
    return out


def _entry_deprecation(entry: IdentifierEntry) -> Deprecation:
    replacement = entry.replacement
    if not replacement:
        m = _REPLACEMENT_RE.search(entry.summary)
        replacement = _strip_term(m.group(1)) if m else ""
    return Deprecation(
        term=entry.name,
        replacement=replacement,
        file=entry.file,
        line=entry.line,
        url=entry.url,
        note=bound(entry.summary, 300),
        whole_word=entry.kind != "endpoint",
    )


# ---------------------------------------------------------------------------------------------
# The table.


def extract(documents: Sequence[Document]) -> tuple[list[IdentifierEntry], list[Deprecation]]:
    """All entries and deprecations of a corpus, before writing."""
    entries: list[IdentifierEntry] = []
    deprecations: list[Deprecation] = []
    for doc in documents:
        entries.extend(doc.identifiers)
        if doc.source != "openapi":
            found, deps = extract_document(doc)
            entries.extend(found)
            deprecations.extend(deps)
    by_term = {d.term: d for d in deprecations}
    marked: list[IdentifierEntry] = []
    for e in entries:
        if e.kind in ("endpoint", "operation", "schema", "type"):
            dep = by_term.get(e.name)
            if e.deprecated and dep is None:
                dep = by_term[e.name] = _entry_deprecation(e)
                deprecations.append(dep)
            if dep is not None and not (e.deprecated and e.replacement):
                e = replace(e, deprecated=True, replacement=e.replacement or dep.replacement)
        marked.append(e)
    seen: set[tuple[str, str, int]] = set()
    unique_deps = []
    for d in deprecations:
        if (d.term, d.file, d.line) not in seen:
            seen.add((d.term, d.file, d.line))
            unique_deps.append(d)
    return marked, unique_deps


def write_identifier_table(documents: list[Document], chunks: list[Chunk], out_dir: Path) -> dict:
    """Extract identifiers from `documents` and write ``out_dir/identifiers/``; returns its manifest
    section. `chunks` is accepted for the pipeline's uniform call and not needed: line numbers and
    anchors come from the documents themselves."""
    del chunks
    entries, deprecations = extract(documents)
    return write_table(entries, deprecations, out_dir)


_RECORD_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _record(e: IdentifierEntry) -> bytes:
    rec: dict[str, Any] = {"file": e.file, "line": e.line}
    for key in ("anchor", "url", "summary", "publication", "method", "path", "operation_id"):
        value = getattr(e, key)
        if value:
            rec[key] = value
    if e.params:
        rec["params"] = [[p.name, p.location, p.type, p.required, p.description] for p in e.params]
    for key in ("request_schema", "response_schema", "replacement"):
        value = getattr(e, key)
        if value:
            rec[key] = value
    if e.deprecated:
        rec["deprecated"] = True
    return _RECORD_ENCODER.encode(rec).encode("utf-8") + b"\n"


def _aliases(e: IdentifierEntry, search: str) -> set[str]:
    """Extra lookup keys of an entry besides its name, compact name and path keys."""
    keys = set()
    if e.kind == "endpoint":
        keys.add("path:" + e.path)
        if e.operation_id:
            keys.add(compact(e.operation_id))
    if e.kind == "operation" and e.operation_id:
        keys.add(compact(e.operation_id))
    parts = [p for p in re.split(r"[.#]|::", e.name) if p]
    if len(parts) > 1:
        keys.add(compact(parts[-1]))
    if e.kind == "cli":
        words = e.name.split()
        if len(words) > 1:
            keys.add(compact(" ".join(words[1:])))
    keys.discard(search)
    keys.discard("")
    return keys


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def _write_family(target: Path, family: str, pairs: list[tuple[str, int]]) -> int:
    pairs = sorted(p for p in pairs if p[0])
    write_lines(target / f"keys_{family}.txt", [_one_line(k) for k, _ in pairs])
    write_npy(target / f"rows_{family}.npy", "i", (r for _, r in pairs))
    return len(pairs)


def write_table(
    entries: Iterable[IdentifierEntry], deprecations: Iterable[Deprecation], out_dir: Path
) -> dict:
    """Write the identifier table under ``out_dir/identifiers/``; returns the manifest section."""
    order = {k: n for n, k in enumerate(KIND_ORDER)}
    unique: dict[tuple[str, str, str, int], IdentifierEntry] = {}
    for e in entries:
        if e.kind not in order:
            log.warning("identifier %r has unknown kind %r; stored as heading", e.name, e.kind)
            e = replace(e, kind="heading")
        e = replace(e, name=_one_line(e.name).strip()) if "\n" in e.name or "\r" in e.name else e
        unique.setdefault((e.kind, e.name, e.file, e.line if e.kind == "heading" else 0), e)
    # Kind-major order: the first rows are endpoints, which is what an empty symbol query shows.
    rows = sorted(unique.values(), key=lambda e: (order[e.kind], e.name.lower(), e.file, e.line))
    target = Path(out_dir) / TABLE_DIR
    target.mkdir(parents=True, exist_ok=True)

    names = [e.name for e in rows]
    search = [compact(n) for n in names]
    hints = [initials(n) for n in names]
    families: dict[str, list[tuple[str, int]]] = {f: [] for f in KEY_FAMILIES}
    families["search"] = [(k, r) for r, k in enumerate(search)]
    families["initials"] = [(k, r) for r, k in enumerate(hints) if k]
    postings: dict[str, list[int]] = {}
    offsets = [0]
    with open(target / RECORDS_FILE, "wb") as records:
        for row, e in enumerate(rows):
            data = _record(e)
            records.write(data)
            offsets.append(offsets[-1] + len(data))
            if e.kind == "endpoint":
                pkey = path_key(e.path or strip_path(e.name)[1])
                method = e.method or e.name.split(" ", 1)[0]
                families["path"] += [(pkey, row), (f"{method} {pkey}", row)]
                families["template"].append(((e.path or strip_path(e.name)[1]).lower(), row))
            families["alias"] += [(a, row) for a in _aliases(e, search[row])]
            name_words = set(split_words(e.name)) | {search[row]}
            for token in name_words:
                postings.setdefault(token, []).append(row * 4 + 2)
            summary_words = set(_SUMMARY_WORD_RE.findall(e.summary.lower()[:600]))
            for token in summary_words - name_words - _STOPWORDS:
                postings.setdefault(token, []).append(row * 4 + 1)
    write_lines(target / "names.txt", names)
    write_lines(target / "search.txt", search)
    write_npy(target / "kind.npy", "B", (order[e.kind] for e in rows))
    write_npy(target / "record_offsets.npy", "q", offsets)
    key_counts = {f: _write_family(target, f, pairs) for f, pairs in families.items()}
    terms = sorted(postings)
    write_lines(target / "keyword_terms.txt", terms)
    write_npy(
        target / "keyword_offsets.npy",
        "q",
        accumulate((len(postings[t]) for t in terms), initial=0),
    )
    write_npy(target / "keyword_postings.npy", "i", (p for t in terms for p in postings[t]))
    deps = [
        {
            "term": d.term,
            "replacement": d.replacement,
            "file": d.file,
            "line": d.line,
            "url": d.url,
            "note": d.note,
            "whole_word": d.whole_word,
        }
        for d in deprecations
    ]
    (target / DEPRECATIONS_FILE).write_text(
        json.dumps(deps, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    counts = Counter(e.kind for e in rows)
    meta = {
        "format": TABLE_FORMAT,
        "version": TABLE_VERSION,
        "count": len(rows),
        "kinds": list(KIND_ORDER),
        "kind_counts": {k: counts.get(k, 0) for k in KIND_ORDER},
        "keys": key_counts,
        "keyword_terms": len(terms),
        "deprecations": len(deps),
    }
    (target / META_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    files = sorted(p.name for p in target.iterdir() if p.is_file())
    return {
        "format": TABLE_FORMAT,
        "version": TABLE_VERSION,
        "count": len(rows),
        "kinds": meta["kind_counts"],
        "deprecations": len(deps),
        "files": [f"{TABLE_DIR}/{name}" for name in files],
    }


# ---------------------------------------------------------------------------------------------
# Synthetic tables for benchmarks.

_SYN_NOUN_TEXT = (
    "asset community domain relation attribute responsibility workflow task user group role scope "
    "tag status view job import export comment rating assignment mapping lineage contract product "
    "policy rule schema table column report dashboard"
)
_SYN_NOUNS = _SYN_NOUN_TEXT.split()
_SYN_VERB_TEXT = "find get add remove change set start cancel list search bulk merge"
_SYN_VERBS = _SYN_VERB_TEXT.split()


def synthetic_entries(n: int, seed: int = 0) -> list[IdentifierEntry]:
    """`n` plausible entries of every kind (no real doc text), for benchmarks of 100,000 rows."""
    rnd = random.Random(seed)
    out: list[IdentifierEntry] = []
    kinds = ("endpoint", "operation", "schema", "type", "json_key", "cli", "graphql", "heading")
    for i in range(n):
        kind = kinds[i % len(kinds)]
        noun, noun2 = rnd.choice(_SYN_NOUNS), rnd.choice(_SYN_NOUNS)
        verb = rnd.choice(_SYN_VERBS)
        tag = f"{i // len(kinds)}"
        file = f"synthetic/{noun}-{i % 997}.md"
        summary = f"{verb.title()} the {noun} and its {noun2} records number {tag}."
        fields: dict[str, Any] = {}
        if kind == "endpoint":
            method = rnd.choice(("GET", "POST", "PUT", "PATCH", "DELETE"))
            path = f"/{noun}s{tag}/{{{noun}Id}}/{noun2}s"
            name = f"{method} {path}"
            fields = {
                "method": method,
                "path": path,
                "operation_id": f"{verb}{noun.title()}{noun2.title()}{tag}",
                "params": (Param(f"{noun}Id", "path", "string", True, f"The id of the {noun}."),),
            }
        elif kind == "operation":
            name = f"{verb}{noun.title()}{noun2.title()}s{tag}"
        elif kind in ("schema", "type"):
            name = f"{verb.title()}{noun.title()}{noun2.title()}{'Request' if kind == 'schema' else 'Api'}{tag}"
        elif kind == "json_key":
            name = f"{noun}{noun2.title()}{tag}"
        elif kind == "cli":
            name = f"atlas-{noun} {verb}-{noun2}{tag}"
        elif kind == "graphql":
            name = f"{noun}{noun2.title()}Field{tag}"
        else:
            name = f"{verb.title()} {noun} {noun2}s {tag}"
        anchor = f"{noun}-{tag}"
        out.append(
            IdentifierEntry(
                name=name,
                kind=kind,
                file=file,
                line=1 + i % 400,
                anchor=anchor,
                url=f"https://docs.example.test/{file}#{anchor}",
                summary=summary,
                publication="synthetic",
                **fields,
            )
        )
    return out


def write_synthetic_table(out_dir: Path, n: int = 100_000, seed: int = 0) -> Path:
    """A synthetic table of `n` rows under ``out_dir/identifiers/``, reused when one with the same
    `n` and `seed` is already there (writing 100,000 rows takes seconds). Returns ``out_dir``."""
    out_dir = Path(out_dir)
    meta_path = out_dir / TABLE_DIR / META_FILE
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("synthetic") == {"n": n, "seed": seed} and meta.get("version") == TABLE_VERSION:
            return out_dir
    except (OSError, ValueError):
        pass
    write_table(synthetic_entries(n, seed), [], out_dir)
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["synthetic"] = {"n": n, "seed": seed}
    meta_path.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return out_dir
