"""textDocument/signatureHelp: the operation a call sends, while its params, body or arguments
are written.

Inside the params or body literal of a call whose method and URL name a documented operation,
one signature: ``GET /assets(name?, nameMatchMode?, limit?)``, its parameters the query
parameters (params) or top-level body properties (body), required ones first and without the
``?``, the active one the key under the cursor (or the one parameter a half-typed key can become,
or the key whose value the cursor is in). In the call's argument
list outside any literal, the same with the query parameters, or the body's properties for an
operation that takes none. The documentation is the operation's summary and a link to its page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from atlas_core.recognize import BODY, QUERY
from atlas_ls.lsp import handlers
from atlas_ls.lsp.completion import param_markdown, type_label
from atlas_ls.lsp.cursor import code_point_position

if TYPE_CHECKING:
    from atlas_core.apicheck import Operation
    from atlas_core.types import Param
    from atlas_ls.lsp.server import AtlasLanguageServer

MAX_PARAMETERS = 40
MAX_SUMMARY_CHARS = 1200


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def signature(op: Operation, role: str, active: str) -> types.SignatureHelp | None:
    """One signature for `op` listing its query parameters (`role` QUERY) or body properties
    (BODY), with `active` (a key name, "" for none) as the active parameter."""
    params = op.query_params() if role == QUERY else (op.body or ())
    ordered = sorted(enumerate(params), key=lambda pair: (not pair[1].required, pair[0]))
    shown: list[Param] = [p for _i, p in ordered[:MAX_PARAMETERS]]
    label = f"{op.method} {op.path}("
    parameters = []
    for index, param in enumerate(shown):
        if index:
            label += ", "
        start = _utf16(label)
        label += param.name + ("" if param.required else "?")
        parameters.append(
            types.ParameterInformation(
                # Offsets, not the name: "name" is also the start of "nameMatchMode".
                label=(start, _utf16(label)),
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value=f"`{param.name}`: `{type_label(param)}`\n\n" + param_markdown(param),
                ),
            )
        )
    if len(params) > len(shown):
        label += ", …"
    label += ")"
    summary = " ".join(op.summary.split())
    if len(summary) > MAX_SUMMARY_CHARS:
        summary = summary[: MAX_SUMMARY_CHARS - 1] + "…"
    docs = [summary] if summary else []
    if op.deprecated:
        docs.append("**Deprecated.**" + (f" Use {op.replacement}." if op.replacement else ""))
    if op.url:
        docs.append(f"[Documentation]({op.url})")
    names = [p.name for p in shown]
    if active and active not in names:
        # A key half typed: the parameter it can only become.
        started = [name for name in names if name.startswith(active)]
        active = started[0] if len(started) == 1 else ""
    return types.SignatureHelp(
        signatures=[
            types.SignatureInformation(
                label=label,
                documentation=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value="\n\n".join(docs)
                ),
                parameters=parameters,
            )
        ],
        active_signature=0,
        active_parameter=names.index(active) if active in names else None,
    )


def register(server: AtlasLanguageServer) -> None:
    @handlers.request(
        server,
        types.TEXT_DOCUMENT_SIGNATURE_HELP,
        "signature help",
        types.SignatureHelpOptions(trigger_characters=["(", ",", "{"]),
    )
    async def on_signature_help(
        ls: AtlasLanguageServer, params: types.SignatureHelpParams
    ) -> types.SignatureHelp | None:
        engine = await ls.engine()
        snap = await ls.snapshot(params.text_document.uri) if engine is not None else None
        if engine is None or snap is None:
            return None
        where = code_point_position(snap, params.position, ls.position_encoding)
        if where is None:
            return None
        line, column = where
        from atlas_ls.lsp.typed_call import KEY, PLACEHOLDER  # imported on first use

        typed = await ls.typed_calls.at(snap, line, column)
        if typed is not None:
            site, typing = typed.site, typed.typing
            op = engine.api_operation(site.method, site.url)
            if op is None:
                return None
            active = site.name if typing.kind == KEY else typing.key
            return signature(op, site.role, "" if active == PLACEHOLDER else active)
        site = await ls.typed_calls.arguments(snap, line, column)
        op = engine.api_operation(site.method, site.url) if site is not None else None
        if op is None:
            return None
        role = QUERY if op.query_params() or not op.body else BODY
        return signature(op, role, "")
