"""Parameter and property definitions written in markdown pages.

Three shapes of page define a parameter or property by name:
- a definition table: a header row whose first cell is Name, Parameter, Property, Field, Key,
  Attribute, Argument or Option and which has a Type or Description column, then one row per
  name (``| `domainId` | string | The ID of ... |``, the generated clients' ``**domain_id** |
  **str** | ... | [optional]``);
- a JSON request or response example in a section: each ``"key":`` in the block;
- a model page, whose H1 or title is a type name: its table rows are that type's properties.

Each becomes a `parameter` or `property` row, tied to the section that holds it: the operation
the section documents (a generated client's operation table links its sections) or the type the
page is about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from atlas_core.identifiers.extract.document_scan import LONG_LINE, CodeBlock, Scan
from atlas_core.markdown import spec_inline

# First header cells of a definition table, and what a row of it defines.
_NAME_HEADERS = {
    "name": "",
    "parameter": "parameter",
    "parameters": "parameter",
    "parameter name": "parameter",
    "argument": "parameter",
    "option": "parameter",
    "property": "property",
    "properties": "property",
    "field": "property",
    "fields": "property",
    "key": "property",
    "attribute": "property",
}
_DETAIL_HEADER_RE = re.compile(r"type|description|required|notes|default", re.IGNORECASE)
_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_NAME_RE = re.compile(r"[A-Za-z_$@][\w.$@-]{0,79}")
_LINK_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_DEFAULT_RE = re.compile(r"\[default to ([^\]]+)\]")
_JSON_KEY_RE = re.compile(r'"([A-Za-z_][\w.-]{0,60})"\s*:')
_SPEC_DUMP_RE = re.compile(r'"(?:openapi|swagger)"\s*:')
# Words of a section heading that say what its table rows are.
_PARAMETER_WORDS = ("parameter", "argument", "option", "query")
_PROPERTY_WORDS = ("propert", "field", "attribute", "model", "body", "object")
MAX_CELLS = 12


@dataclass(frozen=True, slots=True)
class Definition:
    """One name a page defines in a table row or a JSON example."""

    name: str
    kind: str  # "parameter" | "property"
    line: int  # 1-based
    type: str = ""
    description: str = ""
    required: bool = False
    default: str = ""
    in_table: bool = True  # False: a key of a JSON example, not a row that documents it


def cells_of(line: str) -> list[str]:
    """A markdown table row's cells, with or without outer pipes (escaped pipes kept)."""
    row = line.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", row)][:MAX_CELLS]


def _plain(cell: str) -> str:
    """A cell without links, emphasis and code marks: ``[**AddAssetRequest**](x.md)`` ->
    AddAssetRequest."""
    return _LINK_RE.sub(r"\1", cell).replace("**", "").replace("`", "").strip()


def _table_kind(header: list[str], heading: str, model: bool) -> str | None:
    """What the rows of a table with `header` define under `heading`, or None: not a
    definition table."""
    first = _plain(header[0]).lower() if header else ""
    if first not in _NAME_HEADERS or len(header) < 2:
        return None
    if not any(_DETAIL_HEADER_RE.search(h) for h in header[1:]):
        return None
    kind = _NAME_HEADERS[first]
    if kind:
        return kind
    words = heading.lower()
    if any(w in words for w in _PARAMETER_WORDS):
        return "parameter"
    if model or any(w in words for w in _PROPERTY_WORDS):
        return "property"
    return "parameter"


def _column(header: list[str], *words: str) -> int:
    for n, h in enumerate(header):
        if any(w in h.lower() for w in words):
            return n
    return -1


def _at(row: list[str], n: int) -> str:
    return row[n] if 0 <= n < len(row) else ""


def table_definitions(scan: Scan, *, model: bool) -> list[Definition]:
    """The rows of every definition table of the page (`model`: the page documents a type)."""
    out: list[Definition] = []
    lines = scan.lines
    i = 0
    while i + 1 < len(lines):
        line = lines[i]
        if scan.in_code[i] or "|" not in line or len(line) > LONG_LINE:
            i += 1
            continue
        if not _SEPARATOR_RE.match(lines[i + 1]):
            i += 1
            continue
        header = cells_of(line)
        section = scan.section_at(i + 1)
        kind = _table_kind(header, section.title if section else "", model)
        if kind is None:
            i += 2
            continue
        type_at = _column(header, "type")
        text_at = _column(header, "description")
        required_at = _column(header, "required")
        notes_at = _column(header, "notes")
        i += 2
        while i < len(lines) and "|" in lines[i] and not scan.in_code[i]:
            row = cells_of(lines[i])
            name = _plain(row[0]) if row else ""
            if _NAME_RE.fullmatch(name) and len(lines[i]) <= LONG_LINE:
                notes = _at(row, notes_at)
                required = _at(row, required_at).strip().lower()
                default = _DEFAULT_RE.search(notes)
                out.append(
                    Definition(
                        name=name,
                        kind=kind,
                        line=i + 1,
                        type=_plain(_at(row, type_at)),
                        description=spec_inline(_at(row, text_at), 400),
                        required=required in ("yes", "true", "required", "y", "✓")
                        or (notes_at >= 0 and required_at < 0 and "optional" not in notes),
                        default=spec_inline(default.group(1)).strip("'\"") if default else "",
                    )
                )
            i += 1
    return out


def example_definitions(scan: Scan) -> list[Definition]:
    """The keys of JSON examples (a ``json`` block, or an unlabelled one that opens with ``{``
    or ``[``): a request or response body shown in its section."""
    out: list[Definition] = []
    for block in scan.blocks:
        opening = next((ln.strip() for ln in block.lines if ln.strip()), "")
        if block.lang not in ("json", "jsonc", "json5") and not (
            not block.lang and opening[:1] in ("{", "[")
        ):
            continue
        if is_spec_dump(block):
            continue  # the spec's own pages define its names
        seen: set[str] = set()
        for n, line in enumerate(block.lines):
            if len(line) > LONG_LINE:
                continue  # a pasted spec: a schema dump, not an example
            for key in _JSON_KEY_RE.findall(line):
                if key not in seen:
                    seen.add(key)
                    out.append(Definition(key, "property", block.start + n, in_table=False))
    return out


def is_spec_dump(block: CodeBlock) -> bool:
    """Whether a code block is a pasted OpenAPI document rather than an example."""
    return any(_SPEC_DUMP_RE.search(line[:200]) for line in block.lines[:3])


def model_type(title: str, h1: str, type_re: re.Pattern[str]) -> str:
    """The type a model page documents: its H1, else its title, when that is a type name
    (``AddAssetRequest``, ``collibra_core.AssetsApi``), else ""."""
    for text in (h1, title):
        name = text.strip().split(".")[-1].strip().strip("`*")
        if name and type_re.fullmatch(name):
            return name
    return ""
