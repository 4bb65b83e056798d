"""The protocol wiring: one handler per LSP method and command, each a thin adapter.

Handlers read the engine once through the server, call the feature module that does the work
(hover.py, definition.py, ...), and return protocol types. `create_server` registers them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError

from atlas_core.errors import AtlasError
from atlas_core.serving.holder import EngineHolder
from atlas_core.serving.loader import BundleLoader
from atlas_ls.lsp import code_actions, completion, definition, diagnostics, hover, workspace_symbol
from atlas_ls.lsp.server import (
    DEBUG_INFO,
    OPEN_DIAGNOSTICS_DELAY_MS,
    RELOAD,
    AtlasLanguageServer,
    encoding_of,
)
from atlas_ls.lsp.settings import SECTION, Settings, parse_settings

P = TypeVar("P")
R = TypeVar("R")
Handler = Callable[[AtlasLanguageServer, P], Awaitable[R]]


def reporting(what: str) -> Callable[[Handler[P, R]], Handler[P, R | None]]:
    """Wrap a request handler so that a failure reaches the user once, without a traceback.

    An AtlasError (a damaged bundle found at query time) is shown with its reason and the request
    answers None; anything else is logged with its traceback, shown, and answered with a one-line
    InternalError (pygls would put the traceback in the response).
    """

    def wrap(handler: Handler[P, R]) -> Handler[P, R | None]:
        @functools.wraps(handler)
        async def run(ls: AtlasLanguageServer, params: P) -> R | None:
            try:
                return await handler(ls, params)
            except AtlasError as exc:
                ls.report_failure(what, exc)
                return None
            except Exception as exc:
                ls.report_failure(what, exc)
                detail = str(exc).splitlines()[0][:200] if str(exc) else ""
                raise JsonRpcInternalError(
                    f"{what} failed: {type(exc).__name__}" + (f": {detail}" if detail else "")
                ) from None

        return run

    return wrap


def create_server(
    cli_bundles: Sequence[str] = (),
    *,
    loader: BundleLoader | None = None,
    holder: EngineHolder[Any] | None = None,
) -> AtlasLanguageServer:
    """Build the server with every feature registered (tests and `main` both use this)."""
    server = AtlasLanguageServer(cli_bundles=cli_bundles, holder=holder, loader=loader)
    _register(server)
    return server


def _register(server: AtlasLanguageServer) -> None:
    @server.feature(types.INITIALIZE)
    def on_initialize(ls: AtlasLanguageServer, params: types.InitializeParams) -> None:
        with contextlib.suppress(RuntimeError):
            ls.loop = asyncio.get_running_loop()
        parsed = parse_settings(params.initialization_options)
        ls.init_settings = parsed.settings
        ls.init_problems = parsed.message()
        ls.settings = Settings()
        ls._install(parsed.settings)
        if not parsed.settings.bundle:
            ls.load()  # usually already started by main(); a no-op then

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: AtlasLanguageServer, params: types.InitializedParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.initialized = True
        if ls.init_problems:
            ls.show(types.MessageType.Warning, ls.init_problems)
        await ls.pull_configuration()
        last = ls.loader.last
        if ls.loader.loading():
            ls._begin_progress(ls.loader.seq)
        elif last is not None:
            ls._on_load(last)  # finished before the client could hear about it

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_config(
        ls: AtlasLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and settings.get(SECTION) is not None:
            ls.apply_settings({SECTION: settings[SECTION]})
        else:
            await ls.pull_configuration()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: AtlasLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        # A short wait lets the hover that editors often send right after opening go first.
        delay = min(OPEN_DIAGNOSTICS_DELAY_MS, ls.settings.diagnostics_debounce_ms)
        ls.schedule_diagnostics(params.text_document.uri, delay_ms=delay)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def on_change(ls: AtlasLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule_diagnostics(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def on_close(ls: AtlasLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @reporting("hover")
    async def on_hover(ls: AtlasLanguageServer, params: types.HoverParams) -> types.Hover | None:
        found = await ls.resolve(params.text_document.uri, params.position)
        if found is None:
            return None
        engine, snap, line, resolution = found
        rec = resolution.recognition
        result = hover.hover_result(
            engine,
            resolution,
            ls.client_range(snap, line, rec.start, rec.end),
            ls.matcher(engine),
        )
        formats = ls.client_capabilities.text_document
        formats = formats.hover.content_format if formats and formats.hover else None
        if formats and types.MarkupKind.Markdown not in formats:
            result.contents = types.MarkupContent(
                kind=types.MarkupKind.PlainText, value=result.contents.value
            )
        return result

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @reporting("go to definition")
    async def on_definition(
        ls: AtlasLanguageServer, params: types.DefinitionParams
    ) -> types.Location | None:
        found = await ls.resolve(params.text_document.uri, params.position)
        if found is None:
            return None
        engine, _, _, resolution = found
        return definition.definition_result(engine, resolution)

    @server.feature(types.WORKSPACE_SYMBOL)
    @reporting("workspace symbols")
    async def on_workspace_symbol(
        ls: AtlasLanguageServer, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation] | None:
        engine = await ls.engine()
        if engine is None:
            return []
        limit = ls.settings.max_symbol_results
        return workspace_symbol.workspace_symbols(engine, params.query, limit)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False
        ),
    )
    @reporting("code actions")
    async def on_code_action(
        ls: AtlasLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        only = [str(getattr(k, "value", k)) for k in (params.context.only or [])] or None
        actions: list[types.CodeAction] = []
        if code_actions.wanted(only, types.CodeActionKind.QuickFix.value):
            diags = list(params.context.diagnostics or [])
            seen = {(_range_key(d.range), d.message) for d in diags}
            for diag in ls.published.get(uri, []):
                if (
                    _overlaps(diag.range, params.range)
                    and (_range_key(diag.range), diag.message) not in seen
                ):
                    diags.append(diag)
            actions.extend(diagnostics.quick_fixes(uri, diags))
        if code_actions.wanted(only, ""):
            found = await ls.resolve(uri, params.range.start)
            if found is not None:
                engine, _, _, resolution = found
                actions.extend(code_actions.doc_actions(engine, resolution))
        return actions or None

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=["/", '"', "'", "`"]),
    )
    @reporting("completion")
    async def on_completion(
        ls: AtlasLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        engine = await ls.engine()
        snap = await ls.snapshot(params.text_document.uri) if engine is not None else None
        if engine is None or snap is None:
            return None
        where = ls.position(snap, params.position)
        if where is None:
            return None
        caps = ls.client_capabilities.text_document
        item_caps = caps.completion.completion_item if caps and caps.completion else None
        tag_support = bool(item_caps and item_caps.tag_support)
        return completion.completion_items(
            engine, snap, where[0], where[1], encoding_of(ls), deprecated_tag=tag_support
        )

    @server.command(code_actions.OPEN_DOCS)
    async def open_docs(ls: AtlasLanguageServer, uri: str, line: int = 1) -> dict[str, Any]:
        return await ls.show_document(code_actions.show_document_params(uri, line))

    @server.command(code_actions.OPEN_WEB)
    async def open_web(ls: AtlasLanguageServer, url: str) -> dict[str, Any]:
        return await ls.show_document(types.ShowDocumentParams(uri=url, external=True))

    @server.command(RELOAD)
    def reload(ls: AtlasLanguageServer, *args: Any) -> dict[str, Any]:
        ls.load(force=True)
        return {"reloading": True, "bundle": list(ls.bundle_request())}

    @server.command(DEBUG_INFO)
    def debug(ls: AtlasLanguageServer, *args: Any) -> dict[str, Any]:
        info = ls.debug_info()
        # Also in the client's log, for editors that do not show a command's result.
        bundle = info["bundle"] or {}
        ls.log(
            types.MessageType.Info,
            f"Atlas {info['version']}: bundle {bundle.get('name') or '-'} "
            f"({', '.join(info['bundle_paths']) or 'none'}), generation {info['generation']}, "
            f"last error: {info['last_error'] or 'none'}, recognisers: "
            f"{', '.join(info['recognizers'])}",
        )
        return info


def _range_key(r: types.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)
