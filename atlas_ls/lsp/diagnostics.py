"""Diagnostics: terms and endpoints the docs name as deprecated, with their replacement, and
what the API checks find in a document's calls, as LSP diagnostics and quick fixes.

`register` runs them as documents open and change (when: `scheduler.DiagnosticsScheduler`). The
terms are found by the engine's matcher (`Engine.deprecated_terms`); this module only places them
in the client's positions, severities and ignore comments.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from atlas_core.engine import find_terms
from atlas_core.types import ApiFinding
from atlas_ls.lsp import handlers
from atlas_ls.lsp.documents import Snapshot, column_to_client, line_starts

if TYPE_CHECKING:
    from atlas_core.engine import DeprecationMatcher, TermFinding
    from atlas_core.recognize import Located
    from atlas_ls.lsp.server import AtlasLanguageServer
    from atlas_ls.lsp.settings import Settings

SOURCE = "atlas"
CODE = "deprecated"
MAX_DIAGNOSTICS = 500
MAX_FIXES = 4  # quick fixes offered per diagnostic
INFORMATION, WARNING = "information", "warning"
_SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
# ``# atlas: ignore`` or ``// atlas: ignore[unknown-param, bad-value]`` silences a line.
IGNORE_COMMENT = re.compile(r"atlas:\s*ignore(?:\[([\w\s,\-]*)\])?")
OPEN_DIAGNOSTICS_DELAY_MS = 100


def _message(finding: TermFinding) -> str:
    dep = finding.deprecation
    text = f"'{finding.text}' is deprecated in the Collibra docs"
    if dep.replacement:
        text += f"; use '{dep.replacement}' instead"
    if dep.note:
        note = " ".join(dep.note.split())
        text += f". {note[:200]}"
    return text


def diagnostics_for(
    snapshot: Snapshot,
    matcher: DeprecationMatcher,
    encoding: str,
    api: Sequence[ApiFinding] = (),
    settings: Settings | None = None,
    sites: Sequence[Located] | None = None,
) -> list[types.Diagnostic]:
    """The deprecated terms `matcher` finds in the snapshot and the `api` findings of its calls,
    as LSP diagnostics: severities as the settings set them, lines that silence a check
    (``# atlas: ignore[unknown-param]``) left out. `sites` are the document's calls when already
    scanned: in code a deprecated word counts only as a name of one of them."""
    levels = dict(settings.check_severity) if settings is not None else {}
    out = _deprecation_diagnostics(snapshot, matcher, encoding, levels, sites)
    out += _api_diagnostics(snapshot, api, encoding, levels)
    if not out:
        return out
    lines = snapshot.lines
    kept = [d for d in out if not _silenced(lines, d)]
    kept.sort(key=lambda d: (d.range.start.line, d.range.start.character))
    return kept[:MAX_DIAGNOSTICS]


def _deprecation_diagnostics(
    snapshot: Snapshot,
    matcher: DeprecationMatcher,
    encoding: str,
    levels: dict[str, str],
    sites: Sequence[Located] | None,
) -> list[types.Diagnostic]:
    if not matcher or levels.get(CODE) == "off":
        return []
    findings = find_terms(matcher, snapshot.text, snapshot.language_id, sites)
    if not findings:
        return []
    from atlas_core.apicheck import says_removed

    starts = line_starts(snapshot.text)
    lines = snapshot.lines
    out = []
    for f in findings:
        line = bisect.bisect_right(starts, f.start) - 1
        col = f.start - starts[line]
        text_line = lines[line] if line < len(lines) else ""
        start = types.Position(line, column_to_client(text_line, col, encoding))
        end = types.Position(line, column_to_client(text_line, col + len(f.text), encoding))
        dep = f.deprecation
        # Deprecated but still working is a heads-up, struck through; a warning only where the
        # docs say it is or will be removed.
        default = WARNING if says_removed(dep.note) else INFORMATION
        out.append(
            types.Diagnostic(
                range=types.Range(start=start, end=end),
                message=_message(f) + (f" (docs page {dep.file})" if dep.file else ""),
                severity=_SEVERITIES[levels.get(CODE, default)],
                code=CODE,
                code_description=types.CodeDescription(href=dep.url) if dep.url else None,
                source=SOURCE,
                tags=[types.DiagnosticTag.Deprecated],
                data={"term": f.text, "replacement": dep.replacement, "fix": f.fix},
            )
        )
    return out


def _api_diagnostics(
    snapshot: Snapshot, api: Sequence[ApiFinding], encoding: str, levels: dict[str, str]
) -> list[types.Diagnostic]:
    lines = snapshot.lines
    out = []
    for f in api:
        level = levels.get(f.check, f.severity)
        if level == "off" or not 0 <= f.line < len(lines):
            continue
        text_line = lines[f.line]
        start = types.Position(f.line, column_to_client(text_line, f.start, encoding))
        last = f.line if f.end_line is None or not f.line < f.end_line < len(lines) else f.end_line
        end = types.Position(last, column_to_client(lines[last], f.end, encoding))
        out.append(
            types.Diagnostic(
                range=types.Range(start=start, end=end),
                message=f"{f.message} ({f.rule})" if f.rule else f.message,
                severity=_SEVERITIES[level],
                code=f.check,
                code_description=types.CodeDescription(href=f.href) if f.href else None,
                source=SOURCE,
                tags=[types.DiagnosticTag.Deprecated] if f.deprecated else None,
                data={"check": f.check, "fixes": list(f.fixes), "endpoint": f.endpoint},
            )
        )
    return out


def _silenced(lines: list[str], diag: types.Diagnostic) -> bool:
    """Whether the diagnostic's line carries ``atlas: ignore`` (every check) or
    ``atlas: ignore[check, ...]`` naming its check."""
    line = diag.range.start.line
    text = lines[line] if 0 <= line < len(lines) else ""
    if "atlas" not in text:
        return False
    for m in IGNORE_COMMENT.finditer(text):
        named = m.group(1)
        if named is None or str(diag.code) in {n.strip() for n in named.split(",")}:
            return True
    return False


def quick_fixes(uri: str, diagnostics: list[types.Diagnostic]) -> list[types.CodeAction]:
    """A "Replace X with Y" action per Atlas diagnostic that has a usable fix: a deprecated
    term's replacement, the documented path, parameter or value an API check suggests."""
    actions = []
    for diag in diagnostics:
        if diag.source != SOURCE:
            continue
        data: Any = diag.data if isinstance(diag.data, dict) else {}
        if data.get("check"):
            actions.extend(_api_fixes(uri, diag, data))
            continue
        if diag.code != CODE:
            continue
        fix = data.get("fix") or ""
        term = data.get("term") or ""
        if not fix:
            continue
        actions.append(
            types.CodeAction(
                title=f"Replace '{term}' with '{fix}'",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=True,
                edit=types.WorkspaceEdit(
                    changes={uri: [types.TextEdit(range=diag.range, new_text=fix)]}
                ),
            )
        )
    return actions


def _api_fixes(uri: str, diag: types.Diagnostic, data: dict[str, Any]) -> list[types.CodeAction]:
    fixes = data.get("fixes")
    if not isinstance(fixes, list):
        return []
    actions = []
    for index, fix in enumerate(f for f in fixes[:MAX_FIXES] if isinstance(f, str) and f):
        actions.append(
            types.CodeAction(
                title=f"Atlas: change to '{fix}'",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=index == 0,
                edit=types.WorkspaceEdit(
                    changes={uri: [types.TextEdit(range=diag.range, new_text=fix)]}
                ),
            )
        )
    return actions


def register(server: AtlasLanguageServer) -> None:
    @handlers.notification(server, types.TEXT_DOCUMENT_DID_OPEN, "diagnostics")
    def on_open(ls: AtlasLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        # A short wait lets the hover that editors often send right after opening go first.
        delay = min(OPEN_DIAGNOSTICS_DELAY_MS, ls.settings.diagnostics_debounce_ms)
        ls.diagnostics.schedule(params.text_document.uri, delay_ms=delay)
        ls.calls.opened(params.text_document.uri, params.text_document.language_id)

    @handlers.notification(server, types.TEXT_DOCUMENT_DID_CHANGE, "diagnostics")
    def on_change(ls: AtlasLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.diagnostics.schedule(params.text_document.uri)
        ls.calls.changed(params.text_document.uri)

    @handlers.notification(server, types.TEXT_DOCUMENT_DID_CLOSE, "diagnostics")
    def on_close(ls: AtlasLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.diagnostics.forget(params.text_document.uri)
        ls.documents.forget(params.text_document.uri)
        ls.calls.closed(params.text_document.uri)
