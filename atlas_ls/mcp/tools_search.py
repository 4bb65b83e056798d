"""Retrieval tools: search, identifier lookup, chunks and bundle facts, over the engine.

Thin adapters: the engine ranks and resolves; these bound the text, add where each answer lives
(file, heading, line range, URL), flag injection-looking text and render a readable summary.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated, Literal

import anyio
from pydantic import Field

from atlas_core.engine import DescribeContext
from atlas_core.errors import QueryError
from atlas_core.pages import find_ripgrep
from atlas_core.search import ELLIPSIS, cut_point
from atlas_core.types import Chunk, SearchFilters
from atlas_ls.mcp._sdk import CallToolResult, Context, report_progress, text_result
from atlas_ls.mcp.budgets import budget_of
from atlas_ls.mcp.context import app_of, tool_errors, warn_injection
from atlas_ls.mcp.models import (
    BundleInfoResult,
    BundleSummary,
    ChunkResult,
    IdentifierMatch,
    InjectionFlag,
    LookupResult,
    PageInfo,
    ParameterDefinition,
    ParamInfo,
    ProjectUse,
    SearchHit,
    SearchResult,
    bounded_facts,
    demo_sentence,
    flag_note,
)
from atlas_ls.mcp.safety import scan
from atlas_ls.mcp.tools_fs import read_call

if TYPE_CHECKING:
    from atlas_core.engine import Description
    from atlas_core.types import Definition, Hit

MAX_TOP_K = 50
MAX_LOOKUP = 20
MAX_ALSO_PAGES = 10  # other pages of one subject listed per candidate
MAX_USES = 10  # places in the project's code listed per candidate
# Definitions of a parameter name counted, and shown in full (`nameMatchMode` has 13, `id` hundreds).
MAX_DEFINITIONS = 100  # the engine's MAX_LIMIT
MAX_DEFINITIONS_SHOWN = 30
MAX_ENUM_TEXT = 8  # values of one parameter in a lookup's text (all are in its data)
MAX_EXAMPLE_TEXT = 60  # characters of a default or example in a lookup's text
MAX_CHARS = 20_000
# A search answer lists several passages, each cut short: the locations say where to read on.
DEFAULT_HIT_CHARS = 300
HIT_OVERHEAD_CHARS = 250  # a result's heading, location and URL lines, about
MIN_HIT_CHARS = 100

Mode = Literal["hybrid", "vector", "keyword"]
Query = Annotated[str, Field(description="a question, or an API name")]
TopK = Annotated[int, Field(ge=1)]  # more than MAX_TOP_K are clamped, with a note
MinScore = Annotated[float, Field(ge=0)]
Publication = Annotated[str | None, Field(description="one publication only")]
MaxChars = Annotated[int, Field(ge=1, description="characters per result")]
Scope = Annotated[
    Literal["all", "docs", "project"],
    Field(description="docs, project (your indexed code) or all"),
]


@tool_errors
async def search_docs(
    ctx: Context,
    query: Query,
    mode: Annotated[
        Mode,
        Field(description="keyword for exact names, vector for meaning"),
    ] = "hybrid",
    top_k: TopK = 5,
    min_score: MinScore = 0,
    publication: Publication = None,
    max_chars: MaxChars = DEFAULT_HIT_CHARS,
    scope: Scope = "all",
) -> Annotated[CallToolResult, SearchResult]:
    """Search the Collibra developer docs for passages that answer a question. Start here.
    Results give file, line_start, url (cite it) and chunk_id; verify with
    read_file(path=file, start_line=line_start). API names: lookup_identifier; code: search_code;
    exact strings: search_text.
    """
    return await _search(ctx, query, mode, top_k, min_score, publication, max_chars, False, scope)


@tool_errors
async def search_code(
    ctx: Context,
    query: str,
    mode: Mode = "hybrid",
    top_k: Annotated[int, Field(ge=1)] = 5,
    min_score: MinScore = 0,
    publication: str | None = None,
    max_chars: Annotated[int, Field(ge=1)] = DEFAULT_HIT_CHARS,
    scope: Literal["all", "docs", "project"] = "all",
) -> Annotated[CallToolResult, SearchResult]:
    """search_docs limited to passages with code: request bodies, scripts, snippets, and with
    scope='project' your indexed code.
    """
    return await _search(ctx, query, mode, top_k, min_score, publication, max_chars, True, scope)


async def _search(
    ctx: Context,
    query: str,
    mode: str,
    top_k: int,
    min_score: float,
    publication: str | None,
    max_chars: int,
    code_only: bool,
    scope: str = "all",
) -> CallToolResult:
    app = app_of(ctx)
    engine = await app.engine()
    if scope == "project" and all(
        engine.scope_of(info.name) != "project" for info in engine.bundle_infos()
    ):
        from atlas_core.project import no_project_error

        raise no_project_error(
            "start the server with `--project PATH` (or `atlas setup CLIENT --project PATH`), "
            "or from inside the repository"
        )
    if publication is not None:
        (await app.bundle_docs()).files_of(publication)  # unknown: an error naming the known ones
    notes = []
    if top_k > MAX_TOP_K:
        notes.append(f"top_k clamped to {MAX_TOP_K}")
        top_k = MAX_TOP_K
    tool = "search_code" if code_only else "search_docs"
    share = max(MIN_HIT_CHARS, budget_of(tool) // top_k - HIT_OVERHEAD_CHARS)
    if min(max_chars, MAX_CHARS) > share:
        notes.append(f"max_chars lowered to {share} so {top_k} results fit the answer")
    max_chars = min(max_chars, MAX_CHARS, share)
    filters = SearchFilters(publication=publication, code_only=code_only, min_score=min_score)
    await report_progress(ctx, 0, 1, f"{mode} search")
    # The hits show the passages themselves (cut to max_chars), not the engine's snippets.
    search = functools.partial(
        engine.search, query, mode, top_k, filters, scope=scope, snippets=False, fallback=True
    )
    # A keyword search takes a millisecond or two even at 100,000 chunks: it runs here, since
    # handing it to a worker thread cost more than the search itself (and, with many requests at
    # once, the worker threads' contention for the interpreter more again). A query that embeds
    # goes to a thread, so the event loop keeps answering meanwhile.
    found = search() if mode == "keyword" else await anyio.to_thread.run_sync(search)
    hits = [_hit(engine.chunk(hit.chunk_id), hit, max_chars) for hit in found]
    for off, why in engine.search_off().items():  # answered from the search list left
        notes.append(f"{why}; mode={off!r} answers from the other list until it is back")
    await report_progress(ctx, 1, 1, f"{len(hits)} results")
    await warn_injection(ctx, [f"{h.file}:{h.line_start}" for h in hits if h.injection_flags])
    if not hits:
        notes.append(
            "no results: try other words, mode='keyword' for exact names, "
            "or search_text for a literal string"
        )
    result = SearchResult(query=query, mode=mode, count=len(hits), hits=hits, note="; ".join(notes))
    kind = "code passages" if code_only else "results"
    lines = [f"{len(hits)} {kind} for {query!r} ({mode}):"]
    for hit in hits:
        where = f"[{hit.bundle}] " if hit.scope == "project" else ""
        lines.append(
            f"\n{hit.rank}. {hit.heading or hit.title} - {where}{hit.file}:{hit.line_start}-"
            f"{hit.line_end} (score {hit.score:.3f}, chunk {hit.chunk_id})"
        )
        if hit.url:
            lines.append(hit.url)
        if hit.injection_flags:
            lines.append(flag_note(hit.injection_flags))
        lines.append(hit.text + (" […]" if hit.continue_with else ""))
    if any(hit.continue_with for hit in hits):
        lines.append(
            f"\n[[…] = cut at {max_chars} characters: get_chunk(chunk_id), or read_file(path, "
            "start_line) from the result's continue_with, reads on]"
        )
    if result.note:
        lines.append(f"\n[{result.note}]")
    return text_result("\n".join(lines), result.model_dump())


def _bounded(
    text: str, line_start: int, file: str, max_chars: int, bundle: str = ""
) -> tuple[str, str | None]:
    """Text cut to max_chars (on a line break when one is near, else after a word and outside any
    string, marked "…") and how to read the rest."""
    if len(text) <= max_chars:
        return text, None
    cut = text.rfind("\n", 0, max_chars)
    at_line = cut >= max_chars // 2
    if not at_line:
        cut = cut_point(text, max_chars - len(ELLIPSIS))
        at_line = text.startswith("\n", cut)  # the last word that fits ends its line
    shown = text[:cut]
    # a cut inside a line continues from that line, which the reader then sees again in full
    next_line = line_start + shown.count("\n") + (1 if at_line else 0)
    return shown + ("" if at_line else ELLIPSIS), read_call(file, bundle, next_line)


def _hit(chunk: Chunk | None, hit: Hit, max_chars: int) -> SearchHit:
    full = chunk.text if chunk is not None and chunk.text else (chunk.embed_text if chunk else "")
    text, continue_with = _bounded(full, hit.line_start, hit.file, max_chars, hit.bundle)
    return SearchHit(
        rank=hit.rank,
        score=hit.score,
        chunk_id=hit.chunk_id,
        file=hit.file,
        publication=hit.publication,
        title=hit.title,
        heading=hit.heading,
        line_start=hit.line_start,
        line_end=hit.line_end,
        url=hit.url,
        is_code=hit.is_code,
        bundle=hit.bundle,
        scope=hit.scope,
        text=text,
        truncated=continue_with is not None,
        continue_with=continue_with,
        injection_flags=InjectionFlag.from_flags(scan(text, first_line=hit.line_start or 1)),
    )


@tool_errors
async def lookup_identifier(
    ctx: Context,
    identifier: Annotated[
        str,
        Field(description="'GET /assets/{assetId}', 'findAssets', a class or a JSON key"),
    ],
    limit: Annotated[int, Field(ge=1)] = 5,
) -> Annotated[CallToolResult, LookupResult]:
    """Where an API name is documented (an endpoint in any spelling, operationId,
    class, JSON key, parameter): method, path, params, deprecation and url. Prefer it to search_docs
    for a name.
    """
    app = app_of(ctx)
    engine = await app.engine()
    note = f"limit clamped to {MAX_LOOKUP}" if limit > MAX_LOOKUP else ""
    context = DescribeContext(
        limit=min(limit, MAX_LOOKUP), usages=MAX_USES, sections=True, definitions=MAX_DEFINITIONS
    )
    described = await anyio.to_thread.run_sync(
        functools.partial(engine.describe, identifier, context)
    )
    matches = _matches(described)
    if not matches:
        note = "no identifier matched: try search_docs(query=...) or search_text(pattern=...)"
    named, definitions = described.defined, described.definitions
    result = LookupResult(
        identifier=identifier,
        count=len(matches),
        candidates=matches,
        definitions=[_definition(d) for d in definitions[:MAX_DEFINITIONS_SHOWN]],
        definitions_total=len(definitions),
        note=note,
    )
    lines = [f"{len(matches)} candidates for {identifier!r}:"]
    for m in matches:
        lines.append(
            f"\n- {m.name} [{m.kind}, {m.match}, confidence {m.confidence:.2f}]"
            f"{' DEPRECATED' + (f' (use {m.replacement})' if m.replacement else '') if m.deprecated else ''}"
        )
        lines.append(f"  {m.file}:{m.line_start}-{m.line_end} {m.heading}  {m.url}".rstrip())
        if m.also_documented_in:
            pages = ", ".join(f"{p.file}:{p.line}" for p in m.also_documented_in)
            lines.append(f"  also documented in: {pages}")
        if m.summary:
            lines.append(f"  {m.summary[:500]}")
        if m.params:
            lines.append("  params: " + ", ".join(_param_text(p) for p in m.params[:20]))
        for use in m.used_in:
            symbol = f" in {use.symbol}" if use.symbol else ""
            lines.append(f"  used in your project at {use.file}:{use.line}{symbol}")
    if result.definitions:
        lines.append(f"\n{named} is defined by {result.definitions_total} operations or schemas:")
        for d in result.definitions:
            facts = [d.type or "?", "required" if d.required else "optional"]
            if d.enum:
                facts.append("one of " + ", ".join(d.enum[:20]))
            if d.default:
                facts.append(f"default {d.default}")
            if d.example:
                facts.append(f"e.g. {_clipped(d.example)}")
            if d.deprecated:
                facts.append("deprecated")
            lines.append(f"- {d.of} ({'; '.join(facts)}) {d.file}:{d.line}")
        if result.definitions_total > len(result.definitions):
            more = result.definitions_total - len(result.definitions)
            lines.append(f"  [{more} more not shown]")
    if note:
        lines.append(f"[{note}]")
    return text_result("\n".join(lines), result.model_dump())


def _clipped(text: str, limit: int = MAX_EXAMPLE_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _param_text(p: ParamInfo) -> str:
    """ "nameMatchMode (query; START|END|ANYWHERE|EXACT; default ANYWHERE)": a parameter as
    the text of a lookup lists it, with what a call needs to write it."""
    facts = [p.location]
    if p.enum:
        facts.append(
            "|".join(p.enum[:MAX_ENUM_TEXT]) + ("|…" if len(p.enum) > MAX_ENUM_TEXT else "")
        )
    if p.default:
        facts.append(f"default {_clipped(p.default)}")
    if p.example:
        facts.append(f"e.g. {_clipped(p.example)}")
    if p.deprecated:
        facts.append("deprecated")
    return f"{p.name} ({'; '.join(facts)})"


def _definition(d: Definition) -> ParameterDefinition:
    return ParameterDefinition(
        name=d.name,
        kind=d.kind,
        of=d.owner_label,
        location=d.location,
        method=d.method,
        path=d.path,
        operation_id=d.operation_id,
        schema_name=d.owner,
        type=d.type,
        format=d.format,
        required=d.required,
        enum=list(d.enum),
        default=d.default,
        example=d.example,
        deprecated=d.deprecated,
        description=d.description[:1000],
        file=d.file,
        line=d.line,
        url=d.url,
        same_meaning=d.meaning,
        bundle=d.bundle,
    )


def _matches(described: Description) -> list[IdentifierMatch]:
    out = []
    for c, section, uses in zip(
        described.candidates, described.sections, described.usages, strict=True
    ):
        out.append(
            IdentifierMatch(
                name=c.name,
                kind=c.kind,
                match=c.match,
                confidence=round(float(c.confidence), 4),
                file=c.file,
                heading=section.heading,
                line_start=section.line_start,
                line_end=section.line_end,
                url=c.url,
                summary=c.summary[:2000],
                publication=c.publication,
                method=c.method,
                path=c.path,
                operation_id=c.operation_id,
                params=[
                    ParamInfo(
                        name=p.name,
                        location=p.location,
                        type=p.type,
                        required=p.required,
                        description=p.description[:500],
                        format=p.format,
                        enum=list(p.enum[:200]),
                        default=p.default,
                        example=p.example,
                        deprecated=p.deprecated,
                    )
                    for p in c.params[:50]
                ],
                request_schema=c.request_schema,
                response_schema=c.response_schema,
                deprecated=c.deprecated,
                replacement=c.replacement,
                owner=c.owner,
                bundle=c.bundle,
                also_documented_in=[
                    PageInfo(file=p.file, line=p.line, url=p.url, bundle=p.bundle)
                    for p in c.also[:MAX_ALSO_PAGES]
                ],
                used_in=[
                    ProjectUse(file=u.file, line=u.line, symbol=u.symbol, bundle=u.bundle)
                    for u in uses
                ],
            )
        )
    return out


@tool_errors
async def get_chunk(
    ctx: Context,
    chunk_id: Annotated[str, Field(description="from a search result")],
    max_chars: MaxChars = 8000,
) -> Annotated[CallToolResult, ChunkResult]:
    """The whole passage of a search result, by its chunk_id."""
    engine = await app_of(ctx).engine()
    chunk = await anyio.to_thread.run_sync(functools.partial(engine.chunk, chunk_id))
    if chunk is None:
        raise QueryError(
            f"no chunk with id {chunk_id[:80]!r} in the loaded bundle",
            hint="chunk ids come from search_docs results (they change when the docs are rebuilt)",
        )
    # The passage and its header lines within the tool's budget.
    shown = min(max_chars, MAX_CHARS, budget_of("get_chunk") - HIT_OVERHEAD_CHARS * 4)
    text, continue_with = _bounded(chunk.text, chunk.line_start, chunk.file, shown)
    flags = InjectionFlag.from_flags(scan(text, first_line=chunk.line_start or 1))
    await warn_injection(ctx, [chunk.file] if flags else [])
    result = ChunkResult(
        chunk_id=chunk.chunk_id,
        file=chunk.file,
        publication=chunk.publication,
        title=chunk.title,
        heading=chunk.heading,
        line_start=chunk.line_start,
        line_end=chunk.line_end,
        url=chunk.url,
        is_code=chunk.is_code,
        cluster_tags=list(chunk.cluster_tags),
        text=text,
        truncated=continue_with is not None,
        continue_with=continue_with,
        injection_flags=flags,
    )
    parts = [f"{chunk.heading or chunk.title} - {chunk.file}:{chunk.line_start}-{chunk.line_end}"]
    parts += [chunk.url, flag_note(flags), text]
    if continue_with:
        parts.append(f"[cut; continue with {continue_with}]")
    return text_result("\n".join(p for p in parts if p), result.model_dump())


@tool_errors
async def get_bundle_info(ctx: Context) -> Annotated[CallToolResult, BundleInfoResult]:
    """The loaded bundle: build date, sources, counts, model, embedding backend,
    load and reload times. For troubleshooting.
    """
    app = app_of(ctx)
    engine = await app.engine()
    info = engine.info()
    bundles = [
        BundleSummary(
            path=b.path,
            name=b.name,
            format_version=b.format_version,
            built_at=b.built_at,
            chunks=b.chunks,
            files=b.doc_files,
            identifiers=b.identifiers,
            model=b.model,
            dims=b.dims,
            sources=[bounded_facts(dict(s)) for s in b.sources][:20],
            atlas_version=b.atlas_version,
            mirror=b.mirror,
        )
        for b in engine.bundle_infos()
    ]
    rg = find_ripgrep(app.options.settings.ripgrep)
    result = BundleInfoResult(
        bundles=bundles,
        backend=info.backend or "not loaded yet",
        backend_reason=info.backend_reason
        or "the embedding model loads on the first vector or hybrid search",
        load_ms=round(app.load_ms, 1),
        loaded_at=app.loaded_at,
        last_reload_at=app.reloaded_at,
        generation=app.holder.generation,
        last_reload_error=app.holder.last_error,
        server_started_at=app.started_at,
        tools=app.options.tools,
        text_search_engine=f"ripgrep ({rg})" if rg else "python",
        demo=engine.serves_demo(),
    )
    lines = [
        f"{b.name}: format {b.format_version}, built {b.built_at}, {b.chunks} chunks, "
        f"{b.files} files, {b.identifiers} identifiers, model {b.model} ({b.dims} dims), {b.path}"
        for b in bundles
    ]
    lines += [
        f"backend: {result.backend} ({result.backend_reason})",
        f"loaded {result.loaded_at} in {result.load_ms} ms; last reload: "
        f"{result.last_reload_at or 'none'}; text search: {result.text_search_engine}",
    ]
    if result.last_reload_error:
        lines.append(f"last reload failed: {result.last_reload_error}")
    if result.demo:
        lines.insert(0, demo_sentence())
    return text_result("\n".join(lines), result.model_dump())
