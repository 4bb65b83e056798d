"""textDocument/hover: the documentation of the identifier under the cursor, as markdown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.demo import DEMO_NOTE
from atlas_core.engine import DescribeContext
from atlas_core.identifiers import pick_definition, subject_keys
from atlas_core.sources import PUBLISHER_WORDS
from atlas_core.types import Candidate, Definition, Param, Usage
from atlas_ls.lsp import handlers
from atlas_ls.lsp.cursor import client_range, code_point_position, cursor_at
from atlas_ls.lsp.hover_keys import undocumented_markdown, value_markdown, value_target_at
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
MAX_DEFINITIONS = 100  # definitions of one name read for a hover (the engine's MAX_LIMIT)


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


def file_link(engine: Engine, cand: Candidate) -> str:
    """A markdown link to the candidate's line in its bundle's mirror."""
    path = mirror_file(engine, cand.bundle, cand.file)
    target = f"{file_uri(path)}#L{max(cand.line, 1)}"
    return f"[{cand.file}:{max(cand.line, 1)}]({target})"


def links_line(engine: Engine, cand: Candidate) -> str:
    parts = []
    if cand.file:
        parts.append(file_link(engine, cand))
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


def definition_markdown(definition: Definition, others: Sequence[Definition] = ()) -> str:
    """A parameter or property as hover markdown: what it belongs to ("query parameter of GET
    /assets", "property of AssetRequest"), its type, format, whether it is required, its values
    and default, its description; then, from `others` (every definition of the name, most
    common meaning first, as `Engine.definitions` lists them), the operations and schemas that
    also take it."""
    d = definition
    blocks = [f"`{d.name}` — *{d.owner_label}*"]
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


def _definition_hover(own: Definition, others: Sequence[Definition]) -> str:
    """The parameter view of a parameter or property candidate: its own definition, and the
    other operations and schemas that take the name (`others`, every definition of it)."""
    text = definition_markdown(own, others)
    if len(others) >= MAX_DEFINITIONS:
        text += f"\n\n*Counted over its first {MAX_DEFINITIONS} definitions.*"
    return text


def hover_markdown(engine: Engine, described: Description) -> str:
    """The hover of a name described at the cursor (`Engine.describe` with its resolution)."""
    assert described.resolution is not None and described.subject is not None
    resolution = described.resolution
    best = resolution.best
    if best.kind in ("parameter", "property"):
        assert described.definition is not None
        blocks = [_definition_hover(described.definition, described.definitions)]
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
        links = links_line(engine, best)
        if links:
            blocks.append("---\n" + links)
        return "\n\n".join(blocks)
    # The best doc section stays the one linked; a page that lists the same operation's
    # parameters and schemas (the OpenAPI reference) lends them.
    source, cand = described.source, described.subject
    blocks = [title_line(cand)]
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
    links = links_line(engine, best)
    if links:
        blocks.append("---\n" + links)
    return "\n\n".join(blocks)


def _call_definition(target: CallTarget, found: Sequence[Definition]) -> Definition:
    """The definition of the parameter under the cursor: the table's row for the call's
    operation among `found`, or (a table written before parameter rows) one made of the
    operation's own `Param`."""
    assert target.param is not None
    own = target.definition or pick_definition(found, target.param, target.schema, target.operation)
    if own is not None:
        return own
    op, p = target.operation, target.param
    return Definition(
        name=p.name,
        kind="property" if target.schema or p.location == "body" else "parameter",
        location=p.location,
        type=p.type,
        required=p.required,
        description=p.description,
        file=op.file,
        line=op.line,
        format=p.format,
        enum=p.enum,
        default=p.default,
        example=p.example,
        deprecated=p.deprecated,
        owner=target.schema,
        method=op.method,
        path=op.path,
        operation_id=op.operation_id,
        url=op.url,
        bundle=op.bundle,
    )


def call_parameter_markdown(engine: Engine, target: CallTarget) -> str:
    """The hover of a parameter or body key inside an API call: the definition the call's
    operation gives it (as a name hover shows a definition), then the call's operation, the
    client's spelling where the code writes another, and the operation's other pages."""
    assert target.param is not None
    others = engine.definitions(target.param.name, limit=MAX_DEFINITIONS)
    d = _call_definition(target, others)
    shown = replace(d, name=target.client_name) if target.client_name else d
    blocks = [definition_markdown(shown, others)]
    op = target.operation
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
    links = []
    if d.file:
        path = mirror_file(engine, d.bundle, d.file)
        links.append(f"[{d.file}:{max(d.line, 1)}]({file_uri(path)}#L{max(d.line, 1)})")
    if d.url or op.url:
        links.append(f"[Open on the web]({d.url or op.url})")
    if links:
        blocks.append("---\n" + " · ".join(links))
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
        cursor = await cursor_at(ls, params.text_document.uri, params.position)
        if cursor is None or (cursor.target is None and cursor.undocumented is None):
            # Not a call's key or endpoint: perhaps the literal value of one of its keys.
            of_value = await _value_hover(ls, params)
            if of_value is not None or cursor is None:
                return of_value
        rec = cursor.resolution.recognition
        hover_range = client_range(
            cursor.snapshot, cursor.line, rec.start, rec.end, ls.position_encoding
        )
        target = cursor.target
        if target is not None and target.param is not None:
            value = call_parameter_markdown(cursor.engine, target)
        elif cursor.undocumented is not None:
            value = undocumented_markdown(cursor.engine, cursor.undocumented)
        else:
            context = DescribeContext(resolution=cursor.resolution, usages=MAX_USES + 1)
            described = cursor.engine.describe(rec.identifier, context)
            value = hover_markdown(cursor.engine, described)
        return types.Hover(
            contents=types.MarkupContent(
                kind=markup_kind(ls), value=value + demo_footer(cursor.engine)
            ),
            range=hover_range,
        )


async def _value_hover(ls: AtlasLanguageServer, params: types.HoverParams) -> types.Hover | None:
    """The hover of a literal value of a documented enum parameter in a call: the parameter with
    every value it takes; None anywhere else."""
    engine = await ls.engine()
    snap = await ls.snapshot(params.text_document.uri) if engine is not None else None
    if engine is None or snap is None:
        return None
    where = code_point_position(snap, params.position, ls.position_encoding)
    if where is None:
        return None
    line, column = where
    found = await value_target_at(ls, engine, snap, line, column)
    if found is None:
        return None
    target, written, start = found
    text = value_markdown(target, written) + "\n\n" + call_parameter_markdown(engine, target)
    return types.Hover(
        contents=types.MarkupContent(kind=markup_kind(ls), value=text + demo_footer(engine)),
        range=client_range(snap, line, start, start + len(written), ls.position_encoding),
    )
