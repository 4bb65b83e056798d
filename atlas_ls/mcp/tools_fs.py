"""Filesystem tools over the docs mirror: list, read and grep the verbatim pages.

These are how an agent verifies what search found: the mirror holds each page exactly as indexed,
so a line number from any result points at the same line here.
"""

from __future__ import annotations

import fnmatch
import functools
import json
from typing import Annotated, Any

import anyio
from pydantic import Field

from atlas_core.errors import QueryError
from atlas_core.markdown import Outline
from atlas_core.pages import (
    RESOURCE_PREFIX,
    LineMatch,
    Mirror,
    MirrorSet,
    files_in_scope,
    search_lines,
)
from atlas_ls.mcp._sdk import CallToolResult, Context, report_progress, send_log, text_result
from atlas_ls.mcp.context import app_of, tool_errors, warn_injection
from atlas_ls.mcp.models import (
    FileEntry,
    FilesResult,
    InjectionFlag,
    PublicationInfo,
    PublicationsResult,
    ReadFileResult,
    ReleaseInfo,
    SearchTextResult,
    TextHit,
    bounded_facts,
    demo_sentence,
    flag_note,
)
from atlas_ls.mcp.safety import scan

MAX_LIST_LIMIT = 1000
MAX_READ_LINES = 2000
MAX_READ_CHARS = 38_000  # read_file's text budget less room for its header lines
MAX_TEXT_RESULTS = 500


Bundle = Annotated[
    str | None,
    Field(description="with several bundles open: a result's bundle"),
]


@tool_errors
async def list_publications(ctx: Context) -> Annotated[CallToolResult, PublicationsResult]:
    """The docs' top-level publications with file counts: what they cover, and
    the values publication arguments take.
    """
    docs = await app_of(ctx).docs()
    items = [
        PublicationInfo(name=name, files=len(files), example=files[0], bundle=docs.tag(bundle))
        for bundle, mirror in docs.select(None)
        for name, files in mirror.publications.items()
    ]
    result = PublicationsResult(
        mirror=str(docs.first.root),
        count=len(items),
        publications=items,
        mirrors={name: str(m.root) for name, m in docs.mirrors.items()} if docs.several else {},
    )
    where = f"bundles {', '.join(docs.mirrors)}" if docs.several else str(docs.first.root)
    lines = [f"{len(items)} publications in {where}:"]
    lines += [
        f"- {p.name or '(top level)'}{f' [{p.bundle}]' if p.bundle else ''}: {p.files} files, "
        f"e.g. {p.example}"
        for p in items
    ]
    return text_result("\n".join(lines), result.model_dump())


@tool_errors
async def list_files(
    ctx: Context,
    publication: Annotated[str, Field(description="from list_publications")],
    glob: Annotated[str | None, Field(description="e.g. '*asset*'")] = None,
    limit: Annotated[int, Field(ge=1)] = 100,
    offset: Annotated[int, Field(ge=0, description="files to skip")] = 0,
    bundle: Bundle = None,
) -> Annotated[CallToolResult, FilesResult]:
    """The files of a publication with title, url and line count; glob filters
    names.
    """
    docs = await app_of(ctx).docs()
    files = [
        (name, mirror, rel)
        for name, mirror, members in docs.files_of(publication, bundle)
        for rel in members
        if not glob or fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(rel.rsplit("/", 1)[-1], glob)
    ]
    limit = min(limit, MAX_LIST_LIMIT)
    page = files[offset : offset + limit]
    entries = await anyio.to_thread.run_sync(functools.partial(_file_entries, docs, page))
    more = offset + len(page) < len(files)
    continue_with = None
    if more:
        glob_arg = f", glob={glob!r}" if glob else ""
        bundle_arg = f", bundle={bundle!r}" if bundle else ""
        continue_with = (
            f"list_files(publication={publication!r}{glob_arg}{bundle_arg}, limit={limit}, "
            f"offset={offset + len(page)})"
        )
    result = FilesResult(
        publication=publication,
        bundle=bundle,
        glob=glob,
        total=len(files),
        offset=offset,
        count=len(entries),
        files=entries,
        truncated=more,
        continue_with=continue_with,
    )
    lines = [f"{len(files)} files in {publication!r}" + (f" matching {glob!r}" if glob else "")]
    lines += [
        f"- {_shown(e.bundle, e.file)} ({e.line_end} lines): {e.title}  {e.url}".rstrip()
        for e in entries
    ]
    if continue_with:
        lines.append(f"[{len(files) - offset - len(page)} more: {continue_with}]")
    return text_result("\n".join(lines), result.model_dump())


def _shown(bundle: str, rel: str) -> str:
    return f"{rel} [{bundle}]" if bundle else rel


def _file_entries(docs: MirrorSet, files: list[tuple[str, Mirror, str]]) -> list[FileEntry]:
    entries = []
    for bundle, mirror, rel in files:
        meta = mirror.meta(rel)
        try:
            line_count = max(1, len(mirror.read_lines(rel)))
        except (OSError, QueryError):
            line_count = 1
        entries.append(
            FileEntry(
                file=rel,
                title=meta.title,
                heading=meta.title,
                line_end=line_count,
                url=meta.url,
                uri=RESOURCE_PREFIX + docs.address(bundle, rel),
                bundle=docs.tag(bundle),
            )
        )
    return entries


@tool_errors
async def read_file(
    ctx: Context,
    path: Annotated[str, Field(description="a result's file")],
    start_line: Annotated[int, Field(ge=1)] = 1,
    max_lines: Annotated[int, Field(ge=1)] = 400,
    bundle: Bundle = None,
) -> Annotated[CallToolResult, ReadFileResult]:
    """A docs page verbatim by line range, to verify a result. A cut answer names the
    call that reads on.
    """
    docs = await app_of(ctx).docs()
    result = await anyio.to_thread.run_sync(
        functools.partial(_read, docs, path, bundle, start_line, min(max_lines, MAX_READ_LINES))
    )
    await warn_injection(ctx, [result.file] if result.injection_flags else [])
    header = f"{_shown(result.bundle, result.file)} lines {result.line_start}-{result.line_end}"
    header += f" of {result.total_lines}"
    if result.heading:
        header += f" ({result.heading})"
    parts = [header]
    if result.url:
        parts.append(result.url)
    parts += [flag_note(result.injection_flags), result.text]
    if result.continue_with:
        parts.append(f"[truncated; continue with {result.continue_with}]")
    return text_result("\n".join(p for p in parts if p), result.model_dump())


def read_call(rel: str, bundle: str, start_line: int) -> str:
    """The read_file call that reads `rel` of `bundle` ("": the only one) from `start_line`."""
    bundle_arg = f", bundle={bundle!r}" if bundle else ""
    return f"read_file(path={rel!r}{bundle_arg}, start_line={start_line})"


def _read(
    docs: MirrorSet, raw_path: str, bundle: str | None, start_line: int, max_lines: int
) -> ReadFileResult:
    name, mirror, rel, path = docs.find_file(raw_path, bundle)
    lines = mirror.read_lines(rel, path)
    total = len(lines)
    if start_line > max(total, 1):
        raise QueryError(
            f"start_line {start_line} is past the end of {rel!r}, which has {total} lines",
            hint="start_line=1 reads from the top",
        )
    chosen: list[str] = []
    size = 0
    for line in lines[start_line - 1 : start_line - 1 + max_lines]:
        if chosen and size + len(line) + 1 > MAX_READ_CHARS:
            break
        chosen.append(line if len(line) <= MAX_READ_CHARS else line[:MAX_READ_CHARS] + "…")
        size += len(chosen[-1]) + 1
    end = start_line + len(chosen) - 1
    text = "\n".join(chosen)
    meta = mirror.meta(rel)
    truncated = end < total
    tag = docs.tag(name)
    return ReadFileResult(
        file=rel,
        bundle=tag,
        title=meta.title,
        url=meta.url,
        uri=RESOURCE_PREFIX + docs.address(name, rel),
        heading=Outline.of(lines).section_at(start_line).heading if lines else "",
        line_start=start_line,
        line_end=max(end, start_line),
        total_lines=total,
        text=text,
        truncated=truncated,
        continue_with=read_call(rel, tag, end + 1) if truncated else None,
        injection_flags=InjectionFlag.from_flags(scan(text, first_line=start_line)),
    )


@tool_errors
async def search_text(
    ctx: Context,
    pattern: Annotated[str, Field(description="text, or a regex with regex=true")],
    publication: Annotated[str | None, Field(description="one publication only")] = None,
    regex: bool = False,
    case_sensitive: bool = False,
    max_results: Annotated[int, Field(ge=1)] = 50,
    bundle: Bundle = None,
) -> Annotated[CallToolResult, SearchTextResult]:
    """Grep the docs for an exact string or regex (names, JSON keys, error
    messages); each match has file, line, heading and url.
    """
    app = app_of(ctx)
    docs = await app.docs()
    scope = files_in_scope(docs, publication, bundle)
    clamped = min(max_results, MAX_TEXT_RESULTS)
    note = f"max_results clamped to {MAX_TEXT_RESULTS}. " if clamped < max_results else ""
    await report_progress(ctx, 0, 1, f"searching {scope} files")
    found = await anyio.to_thread.run_sync(
        functools.partial(
            search_lines,
            docs,
            pattern,
            publication=publication,
            bundle=bundle,
            regex=regex,
            case_sensitive=case_sensitive,
            max_results=clamped,
            timeout=app.options.search_timeout_s,  # for all the mirrors together
            ripgrep=app.options.settings.ripgrep,
        )
    )
    hits = [_text_hit(match) for match in found.matches]
    engine, truncated = found.engine, found.truncated
    await report_progress(ctx, 1, 1, f"{len(hits)} matches")
    await warn_injection(ctx, [f"{h.file}:{h.line}" for h in hits if h.injection_flags])
    if engine == "python":
        await send_log(
            ctx.session,
            "info",
            "ripgrep not found; used the Python text search",
            request_id=ctx.request_id,
        )
    if truncated:
        note += f"Stopped at {clamped} matches: narrow with publication= or a longer pattern."
    result = SearchTextResult(
        pattern=pattern,
        regex=regex,
        case_sensitive=case_sensitive,
        publication=publication,
        bundle=bundle,
        engine=engine,
        count=len(hits),
        truncated=truncated,
        matches=hits,
        note=note.strip(),
    )
    lines = [f"{len(hits)} matching lines for {pattern!r}" + (" (more exist)" if truncated else "")]
    for hit in hits:
        lines.append(f"{_shown(hit.bundle, hit.file)}:{hit.line}: {hit.text}")
        if hit.injection_flags:
            lines.append("  " + flag_note(hit.injection_flags))
    if result.note:
        lines.append(f"[{result.note}]")
    return text_result("\n".join(lines), result.model_dump())


def _text_hit(match: LineMatch) -> TextHit:
    return TextHit(
        file=match.file,
        bundle=match.bundle,
        line=match.line,
        heading=match.heading,
        line_start=match.line_start,
        line_end=match.line_end,
        url=match.url,
        text=match.text,
        injection_flags=InjectionFlag.from_flags(scan(match.text, first_line=match.line)),
    )


@tool_errors
async def get_release_info(ctx: Context) -> Annotated[CallToolResult, ReleaseInfo]:
    """Which docs these are: bundle version, build date, sources, crawl date, and what changed
    since the bundle this one replaced; to say how current they are or what changed in the API.
    """
    app = app_of(ctx)
    docs = await app.docs()  # --mirror, else the bundles': an error when there is neither
    await app.wait_ready()
    engine = app.holder.engine
    bundles: list[dict[str, Any]] = []
    sources: list[dict[str, Any]] = []
    if engine is not None:
        for info in engine.bundle_infos():
            bundles.append(
                {
                    "name": info.name,
                    "format_version": info.format_version,
                    "built_at": info.built_at,
                    "atlas_version": info.atlas_version,
                    "path": info.path,
                    "mirror": info.mirror,
                    "files": info.doc_files,
                }
            )
            sources += [bounded_facts(dict(s)) for s in info.sources]
    crawl = next((m.crawl_meta for m in docs.mirrors.values() if m.crawl_meta), None)
    result = ReleaseInfo(
        bundle=bundles[0] if bundles else None,
        bundles=bundles,
        sources=sources,
        crawl=_crawl_summary(crawl) if crawl else None,
        mirror=str(docs.first.root),
        files=docs.file_count,
        mirrors={name: str(m.root) for name, m in docs.mirrors.items()} if docs.several else {},
        changes=await app.changes() if engine is not None else None,
        demo=engine is not None and engine.serves_demo(),
    )
    text = json.dumps(result.model_dump(), indent=2)
    return text_result(f"{demo_sentence()}\n{text}" if result.demo else text, result.model_dump())


def _crawl_summary(meta: Any) -> dict[str, Any]:
    keep = ("source_url", "started_at", "finished_at", "duration_s", "incremental", "totals")
    summary = {key: meta[key] for key in keep if key in meta}
    sections = meta.get("sections")
    if isinstance(sections, dict):
        summary["sections"] = sorted(sections)[:100]
    return bounded_facts(summary)


async def read_doc_resource(ctx: Context, path: str) -> str:
    """The resource view of a docs file: the whole file, verbatim."""
    docs = await app_of(ctx).docs()
    return await anyio.to_thread.run_sync(functools.partial(_whole_file, docs, path))


def _whole_file(docs: MirrorSet, raw_path: str) -> str:
    _, mirror, rel, path = docs.find_file(raw_path)
    return "\n".join(mirror.read_lines(rel, path)) + "\n"
