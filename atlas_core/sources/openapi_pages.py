"""Markdown reference pages for an OpenAPI spec: one per tag, one for the schemas.

Pages are written for people first (hover cards and search results show them): an operation's
section opens with its method and path, then its description, a parameter table, the request body
and a response table. Spec text is HTML in places, so it goes through the GitBook cleaner, and any
line that would read as a heading or an open code fence is neutralised so the page's structure is
exactly the one written here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atlas_core.markdown import clean_gitbook as clean
from atlas_core.markdown import github_slug, heading_anchors

if TYPE_CHECKING:
    from atlas_core.sources.openapi_model import Operation, SchemaInfo
    from atlas_core.types import Param

MAX_HEADING = 90
MAX_CELL_VALUES = 30
MAX_RESPONSE_EXAMPLES = 3  # an operation's response examples shown, in the spec's order
_HEADING_LINE_RE = re.compile(r"^(\s{0,3})(#{1,6})(\s|$)")
_RULE_LINE_RE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_FENCE_LINE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


@dataclass(slots=True)
class Page:
    text: str
    positions: list[tuple[int, str]] = field(default_factory=list)  # (1-based line, anchor)
    # The 1-based line of each parameter or property table row, by (operation or schema number
    # on the page, location, name): where its identifier entry points.
    rows: dict[tuple[int, str, str], int] = field(default_factory=dict)


# A slug names a page file: well under the 255-byte file name limit, with room for a suffix.
MAX_SLUG_CHARS = 100


def slug(text: str) -> str:
    text = re.sub(r"-{2,}", "-", github_slug(text).replace("_", "-")).strip("-")
    return text[:MAX_SLUG_CHARS].strip("-")


def prose(text: str) -> str:
    """Spec prose (often HTML) as markdown that cannot change the page's structure."""
    body = clean(text.replace("\r\n", "\n")).strip()
    out: list[str] = []
    fences = 0
    for line in body.split("\n"):
        if _FENCE_LINE_RE.match(line):
            fences += 1
        elif fences % 2 == 0:
            line = _HEADING_LINE_RE.sub(r"\1\\\2\3", line)
            if _RULE_LINE_RE.match(line):
                line = "***"
        out.append(line)
    if fences % 2:
        out.append("```")
    return "\n".join(out)


def cell(text: str) -> str:
    """Text for one markdown table cell: one line, pipes escaped."""
    flat = " ".join(clean(text).split())
    return flat.replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{text}`" if text and "`" not in text else text


def _code_span(text: str) -> str:
    """`text` as one inline code span, whatever backticks it holds (an example's JSON)."""
    runs = [len(run) for run in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _heading_text(op: Operation) -> str:
    if op.summary and len(op.summary) <= MAX_HEADING:
        return op.summary
    return op.operation_id or f"{op.method} {op.path}"


def _described(p: Param) -> str:
    """The description cell: a deprecation mark, the description, then the allowed values,
    the default and an example."""
    text = cell(p.description)
    if text and (p.enum or p.default or p.example) and not text.endswith((".", "!", "?", ":")):
        text += "."
    parts = ["**Deprecated.**"] if p.deprecated else []
    parts += [text] if text else []
    if p.enum:
        shown = ", ".join(_code(cell(v)) for v in p.enum[:MAX_CELL_VALUES])
        more = len(p.enum) - MAX_CELL_VALUES
        parts.append(f"Values: {shown}" + (f" and {more} more" if more > 0 else "") + ".")
    if p.default:
        parts.append(f"Default: {_code(cell(p.default))}.")
    if p.example:
        parts.append(f"Example: {_code_span(cell(p.example))}.")
    return " ".join(parts)


def _param_table(params: Sequence[Param], *, location: bool) -> list[str]:
    if location:
        rows = ["| Name | In | Type | Required | Description |", "| --- | --- | --- | --- | --- |"]
    else:
        rows = ["| Name | Type | Required | Description |", "| --- | --- | --- | --- |"]
    for p in params:
        cells = [_code(p.name)] + ([p.location] if location else [])
        cells += [
            _code(p.type) if p.type else "",
            "yes" if p.required else "no",
            _described(p),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


class _Lines:
    """A page being written: its lines, the headings to locate and the table rows to locate."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.headings: list[int] = []
        self.rows: dict[tuple[int, str, str], int] = {}

    def table(self, item: int, params: Sequence[Param], *, location: bool) -> None:
        first = len(self.lines) + 2  # after the header and separator rows
        self.lines += _param_table(params, location=location)
        for n, p in enumerate(params):
            self.rows.setdefault((item, p.location, p.name), first + n)

    def finish(self) -> Page:
        """The page text and the 1-based line (and anchor) of each heading and table row."""
        starts: list[int] = []
        line = 1
        for entry in self.lines:
            starts.append(line)
            line += entry.count("\n") + 1
        text = "\n".join(self.lines).rstrip("\n") + "\n"
        anchors = heading_anchors(text)
        numbers = [starts[i] for i in self.headings]
        rows = {key: starts[i] for key, i in self.rows.items()}
        return Page(text, [(n, anchors.get(n, "")) for n in numbers], rows)


def render_tag_page(
    *,
    file: str,
    tag: str,
    tag_description: str,
    operations: Sequence[Operation],
    elsewhere: Sequence[tuple[Operation, str]],
    url: str,
    api_title: str,
    version: str,
    base_path: str,
    publication: str,
) -> Page:
    out = _Lines()
    lines = out.lines
    lines += [f"# {tag}", ""]
    if tag_description:
        lines += [prose(tag_description), ""]
    about = f"Operations of the {api_title}" + (f" {version}" if version else "")
    if base_path:
        about += f"; paths are relative to the base path `{base_path}`"
    lines += [about + ".", ""]
    if elsewhere:
        lines.append("Also tagged here, documented on another page:")
        lines.append("")
        for op, page in elsewhere:
            name = page.rsplit("/", 1)[-1]
            lines.append(f"- [{op.method} {op.path}]({name}#{github_slug(_heading_text(op))})")
        lines.append("")
    for item, op in enumerate(operations):
        out.headings.append(len(lines))
        lines += [f"## {_heading_text(op)}", ""]
        head = f"`{op.method} {op.path}`"
        if op.operation_id:
            head += f" · operationId `{op.operation_id}`"
        lines += [head, ""]
        if op.deprecated:
            note = "**Deprecated.**"
            if op.replacement:
                note += f" Use `{op.replacement}` instead."
            lines += [note, ""]
        if op.summary and _heading_text(op) != op.summary:
            lines += [op.summary, ""]
        if op.description.strip():
            lines += [prose(op.description), ""]
        plain = [p for p in op.params if p.location != "body"]
        if plain:
            lines += ["**Parameters**", ""]
            out.table(item, plain, location=True)
            lines.append("")
        fields = [p for p in op.params if p.location == "body" and p.name != "body"]
        if op.request_schema or op.request_media:
            body = "**Request body**"
            if op.request_media:
                body += f" (`{op.request_media}`{', required' if op.request_required else ''})"
            body += ":"
            if op.request_schema:
                body += f" {_code(op.request_schema)}"
            if op.request_description:
                body += f" — {cell(op.request_description)}"
            lines += [body, ""]
        if op.request_example:
            lines += [f"Example request: {_code_span(op.request_example)}", ""]
        if fields:
            lines += ["**Request fields**", ""]
            out.table(item, fields, location=False)
            lines.append("")
        if op.responses:
            lines += [
                "**Responses**",
                "",
                "| Status | Description | Schema |",
                "| --- | --- | --- |",
            ]
            for status, description, schema in op.responses:
                lines.append(f"| {status} | {cell(description)} | {_code(schema)} |")
            lines.append("")
        for status, example in list(op.response_examples.items())[:MAX_RESPONSE_EXAMPLES]:
            lines += [f"Example response ({status}): {_code_span(example)}", ""]
    return out.finish()


def render_schema_page(
    *,
    file: str,
    schemas: Sequence[SchemaInfo],
    url: str,
    api_title: str,
    version: str,
    base_path: str,
    publication: str,
) -> Page:
    out = _Lines()
    lines = out.lines
    lines += [f"# Schemas of the {api_title}", ""]
    lines += [
        f"Request and response types of the {api_title}"
        + (f" {version}" if version else "")
        + ", one section per type.",
        "",
    ]
    for item, schema in enumerate(schemas):
        out.headings.append(len(lines))
        lines += [f"## {schema.name}", ""]
        kind = f"Type: `{schema.type}`"
        if schema.composed_of:
            kind += "; extends " + ", ".join(_code(name) for name in schema.composed_of)
        if schema.deprecated:
            kind += ". **Deprecated.**"
        lines += [kind, ""]
        if schema.description.strip():
            lines += [prose(schema.description), ""]
        if schema.enum:
            lines += ["Values: " + ", ".join(_code(v) for v in schema.enum[:200]), ""]
        if schema.example:
            lines += [f"Example: {_code_span(schema.example)}", ""]
        if schema.properties:
            out.table(item, schema.properties, location=False)
            lines.append("")
    return out.finish()
