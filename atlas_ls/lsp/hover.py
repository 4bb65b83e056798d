"""textDocument/hover: the documentation of the identifier under the cursor, as markdown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.demo import DEMO_NOTE
from atlas_core.engine import DescribeContext
from atlas_core.identifiers import subject_keys
from atlas_core.sources import PUBLISHER_WORDS
from atlas_core.types import Candidate, Definition, Param, Usage
from atlas_ls.lsp import handlers
from atlas_ls.lsp.answer import MAX_DEFINITIONS, Answer, Place, answer_at
from atlas_ls.lsp.cursor import client_range
from atlas_ls.lsp.hover_keys import undocumented_markdown, value_markdown
from atlas_ls.lsp.resolve import file_uri, mirror_file

if TYPE_CHECKING:
    from atlas_core.engine import Description, Engine
    from atlas_core.identifiers import CallTarget
    from atlas_ls.lsp.server import AtlasLanguageServer

MAX_SUMMARY_CHARS = 1200
MAX_PARAM_ROWS = 15
MAX_CELL_CHARS = 140
MAX_OTHERS = 5
MAX_OTHER_PAGES = 3
MAX_USES = 3  # places in the project's code a hover lists

_KIND_LABELS = {
    "endpoint": "REST endpoint",
    "operation": "operation",
    "schema": "schema",
    "type": "type",
    "json_key": "Import API JSON key",
    "cli": "CLI command",
    "graphql": "GraphQL",
    "heading": "documentation section",
    "parameter": "parameter",
    "property": "property",
    "mention": "named on this page",
}
MAX_ENUM_SHOWN = 20
MAX_ENUM_IN_TABLE = 8  # values listed in an endpoint's parameter table cell
MAX_OWNERS_SHOWN = 8


def _cell(text: str) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _code(text: str) -> str:
    """A value as inline code in a table cell, even one holding backticks (JSON examples)."""
    text = _cell(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " …"


def title_line(cand: Candidate) -> str:
    label = _KIND_LABELS.get(cand.kind, cand.kind)
    if cand.kind == "endpoint" and cand.method and cand.path:
        head = f"**{cand.method}** `{cand.path}`"
        if cand.operation_id:
            head += f" · `{cand.operation_id}`"
    elif cand.kind == "operation" and cand.method and cand.path:
        head = f"`{cand.name}` · **{cand.method}** `{cand.path}`"
    elif cand.kind == "heading":
        head = f"**{cand.name}**"
    else:
        head = f"`{cand.name}`"
    return f"{head} — *{label}*"


def _param_facts(p: Param) -> str:
    """What a parameter table's description cell ends with: values, default, example."""
    facts = []
    if p.deprecated:
        facts.append("**Deprecated.**")
    if p.enum:
        shown = ", ".join(f"`{_cell(v)}`" for v in p.enum[:MAX_ENUM_IN_TABLE])
        more = " …" if len(p.enum) > MAX_ENUM_IN_TABLE else ""
        facts.append(f"Values: {shown}{more}.")
    if p.default:
        facts.append(f"Default: `{_cell(p.default)}`.")
    if p.example:
        facts.append(f"Example: {_code(p.example)}.")
    return " ".join(facts)


def param_table(params: tuple[Param, ...]) -> str:
    rows = ["| Parameter | In | Type | Required | Description |", "|---|---|---|---|---|"]
    for p in params[:MAX_PARAM_ROWS]:
        # The values are what a caller needs most: the description is cut to make room.
        description, facts = _cell(p.description), _param_facts(p)
        if description and facts and not description.endswith((".", "!", "?", ":", "…")):
            description += "."
        description = " ".join(filter(None, (description, facts)))
        rows.append(
            f"| `{_cell(p.name)}` | {_cell(p.location)} | {_cell(p.type) or ' '} | "
            f"{'yes' if p.required else 'no'} | {description or ' '} |"
        )
    if len(params) > MAX_PARAM_ROWS:
        rows.append(f"| … | | | | {len(params) - MAX_PARAM_ROWS} more in the docs |")
    return "\n".join(rows)


def file_link(engine: Engine, cand: Candidate | Definition | Place) -> str:
    """A markdown link to the candidate's (or place's) line in its bundle's mirror."""
    path = mirror_file(engine, cand.bundle, cand.file)
    target = f"{file_uri(path)}#L{max(cand.line, 1)}"
    return f"[{cand.file}:{max(cand.line, 1)}]({target})"


def links_line(engine: Engine, cand: Candidate, place: Place | None = None) -> str:
    """The hover's own page (`place`, the line go-to-definition opens), then the web page and
    whose page it is: the line right under a hover's title, so the first link a reader meets
    is the page definition opens."""
    parts = []
    if place is not None:
        parts.append(file_link(engine, place))
    if cand.url:
        parts.append(f"[Open on the web]({cand.url})")
    if cand.publisher in PUBLISHER_WORDS:  # which publisher's page this is
        parts.append(f"*{PUBLISHER_WORDS[cand.publisher]}*")
    return " · ".join(parts)


def usages_line(engine: Engine, uses: Sequence[Usage]) -> str:
    """ "Used in your project at [src/sync.py:41](...)": where the project index's code calls
    the operation, each linked to the file in the repository; "" without a project or calls."""
    if not uses:
        return ""
    shown = []
    for use in uses[:MAX_USES]:
        path = engine.project_file(use.bundle, use.file)
        label = f"{use.file}:{use.line}"
        shown.append(f"[{label}]({file_uri(path)}#L{use.line})" if path else f"`{label}`")
    more = " and more" if len(uses) > MAX_USES else ""
    return f"Used in your project at {', '.join(shown)}{more}"


def _operation(d: Definition) -> str:
    return f"{d.method} {d.path}".strip() or d.owner


def definition_markdown(
    definition: Definition, others: Sequence[Definition] = (), links: str = ""
) -> str:
    """A parameter or property as hover markdown: what it belongs to ("query parameter of GET
    /assets", "property of AssetRequest") and under it `links` (the hover's own page); its type,
    format, whether it is required, its values and default, its description; then, from
    `others` (every definition of the name, most common meaning first, as `Engine.definitions`
    lists them), the operations and schemas that also take it."""
    d = definition
    blocks = [f"`{d.name}` — *{d.owner_label}*"]
    if links:
        blocks.append(links)
    if d.deprecated:
        blocks.append("> ⚠ **Deprecated.**")
    facts = []
    if d.type:
        facts.append(f"Type: `{_cell(d.type)}`")
    if d.format and d.format not in d.type:
        facts.append(f"format `{_cell(d.format)}`")
    facts.append("required" if d.required else "optional")
    if d.enum:
        shown = ", ".join(f"`{_cell(v)}`" for v in d.enum[:MAX_ENUM_SHOWN])
        more = len(d.enum) - MAX_ENUM_SHOWN
        facts.append(f"Values: {shown}" + (f" and {more} more" if more > 0 else ""))
    if d.default:
        facts.append(f"Default: `{_cell(d.default)}`")
    if d.example:
        facts.append(f"Example: {_code(d.example)}")
    blocks.append(" · ".join(facts))
    if d.description:
        blocks.append(_clip(d.description, MAX_SUMMARY_CHARS))
    owners = _owners(d, others)
    if owners:
        blocks.append(owners)
    return "\n\n".join(blocks)


def _owners(d: Definition, others: Sequence[Definition]) -> str:
    """ "Query parameter of 13 operations: GET /assets, ..." for each meaning of the name, the
    most common first (`others` come so ordered); "" when `d` is its only definition. An
    operation a spec page and a client page both document is named once."""
    groups: dict[tuple[str, str], list[str]] = {}
    for other in others:
        label = _operation(other)
        names = groups.setdefault((other.kind, other.location), [])
        if label and label not in names:
            names.append(label)
    if sum(len(names) for names in groups.values()) <= 1:
        return ""
    lines = []
    for (kind, location), names in list(groups.items())[:MAX_OTHERS]:
        if kind == "parameter":
            what, owner = f"{location.capitalize()} parameter", "operation"
        else:
            what, owner = "Property", "schema or body" if len(names) == 1 else "schemas or bodies"
        count = f"{len(names)} {owner}{'s' if kind == 'parameter' and len(names) != 1 else ''}"
        shown = ", ".join(f"`{_cell(n)}`" for n in names[:MAX_OWNERS_SHOWN])
        more = len(names) - MAX_OWNERS_SHOWN
        lines.append(f"- {what} of {count}: {shown}" + (f" and {more} more" if more > 0 else ""))
    return "\n".join(lines)


def _definition_hover(own: Definition, others: Sequence[Definition], links: str) -> str:
    """The parameter view of a parameter or property candidate: its own definition, and the
    other operations and schemas that take the name (`others`, every definition of it)."""
    text = definition_markdown(own, others, links)
    if len(others) >= MAX_DEFINITIONS:
        text += f"\n\n*Counted over its first {MAX_DEFINITIONS} definitions.*"
    return text


def hover_markdown(engine: Engine, described: Description, place: Place | None) -> str:
    """The hover of a name described at the cursor (`Engine.describe` with its resolution),
    linking `place`, where the answer documents it, under its title before any other link."""
    assert described.resolution is not None and described.subject is not None
    resolution = described.resolution
    best = resolution.best
    links = links_line(engine, best, place)
    if best.kind in ("parameter", "property"):
        assert described.definition is not None
        blocks = [_definition_hover(described.definition, described.definitions, links)]
        # Other pages of the same parameter of the same owner (a client's page beside the
        # spec's); the other owners are listed by the definition already.
        pages = [
            p
            for p in described.other_pages
            if (p.method, p.path, p.owner) == (best.method, best.path, best.owner)
        ]
        if pages:
            shown = ", ".join(file_link(engine, page) for page in pages[:MAX_OTHER_PAGES])
            blocks.append(f"Also documented in: {shown}")
        return "\n\n".join(blocks)
    # The best doc section stays the one linked; a page that lists the same operation's
    # parameters and schemas (the OpenAPI reference) lends them.
    source, cand = described.source, described.subject
    blocks = [title_line(cand)]
    if links:
        blocks.append(links)
    if cand.summary:
        blocks.append(_clip(cand.summary, MAX_SUMMARY_CHARS))
    schemas = []
    if cand.request_schema:
        schemas.append(f"Request body: `{cand.request_schema}`")
    if cand.response_schema:
        schemas.append(f"Response: `{cand.response_schema}`")
    if schemas:
        blocks.append(" · ".join(schemas))
    if cand.params:
        blocks.append(param_table(cand.params))
    if source is not None:
        blocks.append(f"*Parameters and schemas from {file_link(engine, source)}*")
    replacement = cand.replacement
    dep = described.deprecation
    if dep is not None and not replacement:
        replacement = dep.replacement
    if cand.deprecated or dep is not None:
        notice = "> ⚠ **Deprecated**"
        notice += f": use `{replacement}` instead." if replacement else "."
        blocks.append(notice)
    others: dict[str, None] = {}
    for other in resolution.candidates[1:]:
        # Another page of the same operation is not another answer: it is listed below.
        if other.name != cand.name and not subject_keys(other) & subject_keys(cand):
            others.setdefault(other.name, None)
    if others:
        blocks.append("Also: " + ", ".join(f"`{name}`" for name in list(others)[:MAX_OTHERS]))
    pages = described.other_pages
    if pages:
        shown = ", ".join(file_link(engine, page) for page in pages[:MAX_OTHER_PAGES])
        more = len(pages) - MAX_OTHER_PAGES
        blocks.append(f"Also documented in: {shown}" + (f" and {more} more" if more > 0 else ""))
    used = usages_line(engine, described.usages[0] if described.usages else ())
    if used:
        blocks.append(used)
    return "\n\n".join(blocks)


def call_parameter_markdown(engine: Engine, target: CallTarget, answer: Answer) -> str:
    """The hover of a parameter or body key inside an API call: the definition the call's
    operation gives it (`answer.definition`, as a name hover shows a definition, its own page
    linked under its title), then the call's operation, the client's spelling where the code
    writes another, and the operation's other pages."""
    assert target.param is not None and answer.definition is not None
    d, others = answer.definition, answer.definitions
    op = target.operation
    links = [file_link(engine, answer.place)] if answer.place is not None else []
    if d.url or op.url:
        links.append(f"[Open on the web]({d.url or op.url})")
    shown = replace(d, name=target.client_name) if target.client_name else d
    blocks = [definition_markdown(shown, others, " · ".join(links))]
    if d.kind == "property":
        call = f"Request body of **{op.method}** `{op.path}`"
        blocks.append(call + (f" · `{op.operation_id}`" if op.operation_id else ""))
    if target.client_name:
        blocks.append(f"Written `{target.client_name}` here; the API's name is `{d.name}`.")
    if target.pages:
        shown_pages = ", ".join(file_link(engine, page) for page in target.pages[:MAX_OTHER_PAGES])
        more = len(target.pages) - MAX_OTHER_PAGES
        blocks.append(
            f"Also documented in: {shown_pages}" + (f" and {more} more" if more > 0 else "")
        )
    return "\n\n".join(blocks)


def demo_footer(engine: Engine) -> str:
    """The line closing every hover while the demo bundle is served ("" otherwise), so sample
    docs are never taken for Collibra's."""
    return f"\n\n---\n*Atlas demo: {DEMO_NOTE}.*" if engine.serves_demo() else ""


def markup_kind(ls: AtlasLanguageServer) -> types.MarkupKind:
    caps = ls.client_capabilities.text_document
    formats = caps.hover.content_format if caps and caps.hover else None
    if formats and types.MarkupKind.Markdown not in formats:
        return types.MarkupKind.PlainText
    return types.MarkupKind.Markdown


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(server, types.TEXT_DOCUMENT_HOVER, "hover")
    async def on_hover(ls: AtlasLanguageServer, params: types.HoverParams) -> types.Hover | None:
        answer = await answer_at(ls, params.text_document.uri, params.position)
        if answer is None:
            return None
        engine, cursor, value = answer.engine, answer.cursor, answer.value
        if value is not None:
            text = value_markdown(value.target, value.written)
            text += "\n\n" + call_parameter_markdown(engine, value.target, answer)
            end = value.start + len(value.written)
            where = client_range(value.snapshot, value.line, value.start, end, ls.position_encoding)
            return _hover(ls, engine, text, where)
        assert cursor is not None
        rec = cursor.resolution.recognition
        where = client_range(cursor.snapshot, cursor.line, rec.start, rec.end, ls.position_encoding)
        target = cursor.target
        if target is not None and target.param is not None:
            text = call_parameter_markdown(engine, target, answer)
        elif cursor.undocumented is not None:
            text = undocumented_markdown(engine, cursor.undocumented)
        else:
            context = DescribeContext(resolution=cursor.resolution, usages=MAX_USES + 1)
            described = engine.describe(rec.identifier, context)
            text = hover_markdown(engine, described, answer.place)
        return _hover(ls, engine, text, where)


def _hover(ls: AtlasLanguageServer, engine: Engine, text: str, where: types.Range) -> types.Hover:
    return types.Hover(
        contents=types.MarkupContent(kind=markup_kind(ls), value=text + demo_footer(engine)),
        range=where,
    )
