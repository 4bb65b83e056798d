"""Diagnostics: terms and endpoints the docs name as deprecated, with their replacement.

`register` runs them as documents open and change (when: `scheduler.DiagnosticsScheduler`).

The matcher is built once per engine. Single-word terms are found by splitting the text into words
and looking each up in a dict, which is several times faster than one big alternation regex on a
multi-megabyte file; terms with spaces or slashes (``GET /rest/1.0/term``) go through one regex.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from atlas_core.errors import AtlasError
from atlas_core.recognize import is_code_occurrence
from atlas_core.types import ApiFinding, Deprecation
from atlas_ls.lsp import handlers
from atlas_ls.lsp.documents import Snapshot, column_to_client, line_starts

if TYPE_CHECKING:
    from atlas_core.engine import Engine
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

_WORD = re.compile(r"\w+")
# One regex call holds the GIL for as long as it runs: over a 100 KB line the deprecation
# pattern takes ~40 ms, over 5 MB seconds, and the event loop waits that long even though the scan
# runs in a worker thread. Scanning windows of this many characters lets it in between.
SCAN_WINDOW = 8192
_METHOD_PREFIX = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S*)$")
PROSE_LANGUAGES = frozenset({"markdown", "plaintext", "text", "restructuredtext", "asciidoc"})
_IDENTIFIER_LIKE = re.compile(r"^(?:(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+)?[\w./{}\-:]+$")


@dataclass(frozen=True, slots=True)
class Finding:
    start: int  # offsets in the text
    end: int
    text: str
    deprecation: Deprecation
    fix: str  # the text that replaces `text`, "" when the docs give no usable replacement


# A path parameter as code writes it; bounded, so every match has a known greatest length (an id
# of more than this many characters is not an id).
PARAM_CHARS = 256
_PARAM_SEGMENT = rf"[^/\s\"'`?#]{{1,{PARAM_CHARS}}}"
METHOD_GAP_CHARS = 16  # spaces between a method and its path


def _is_path(text: str) -> bool:
    return text.startswith("/") or bool(_METHOD_PREFIX.match(text))


def checked_as_call(engine: Engine, dep: Deprecation) -> bool:
    """Whether a deprecated endpoint or operation id is one the API checks know: they judge its
    calls (by method and URL, or as a generated client's method), so matching it as text would
    flag prose and other methods' calls, and flag calls twice."""
    term = dep.term.strip()
    m = _METHOD_PREFIX.match(term)
    if m is None and not term.startswith("/"):
        try:
            return term in engine.api_model().deprecated_calls()[1]
        except AtlasError:
            return False
    method, path = (m.group(1), m.group(2)) if m else ("", term)
    try:
        return engine.api_operation(method, path) is not None
    except AtlasError:
        return False


def linked(engine: Engine, dep: Deprecation) -> Deprecation:
    """`dep` with a link to the page that says it (its web URL, else the bundle's local copy of
    the page: a spec's pages have no web URL), so every diagnostic links its doc page."""
    if dep.url or not dep.file:
        return dep
    for info in engine.bundle_infos():
        try:
            path = engine.mirror_path(info.name, dep.file)
        except (AtlasError, ValueError):
            continue
        if path.is_file():
            return replace(dep, url=path.as_uri())
    return dep


def quick_fix_text(dep: Deprecation, matched: str) -> str:
    """What a quick fix writes over `matched`; "" when the replacement is prose, not a name."""
    replacement = dep.replacement.strip()
    if not replacement or not _IDENTIFIER_LIKE.match(replacement):
        return ""
    term = dep.term.strip()
    if not _is_path(term):
        return "" if _is_path(replacement) else replacement
    # An endpoint: only a path replaces a path, and only where the code spells the whole template.
    term_m = _METHOD_PREFIX.match(term)
    repl_m = _METHOD_PREFIX.match(replacement)
    term_path = term_m.group(2) if term_m else term
    repl_path = repl_m.group(2) if repl_m else replacement
    if not repl_path.startswith("/"):
        return ""
    if matched == term:
        return replacement if repl_m or not term_m else repl_path
    if matched == term_path:
        return repl_path
    return ""


def path_pattern(path: str) -> str:
    """A regex for an endpoint path in code: any spelling of its parameters, and when the path has
    two literal segments before its trailing parameters, those parameters may be missing (the code
    concatenates them: ``"/rest/1.0/vocabulary/" + id``)."""
    segments = [s for s in path.split("/") if s]
    parts = [
        _PARAM_SEGMENT if s.startswith("{") or s.startswith("<") else re.escape(s) for s in segments
    ]
    literal_lead = 0
    for s in segments:
        if s.startswith(("{", "<")):
            break
        literal_lead += 1
    trailing = 0
    for s in reversed(segments):
        if not s.startswith(("{", "<")):
            break
        trailing += 1
    if trailing and literal_lead >= 2 and literal_lead + trailing == len(segments):
        head = "/" + "/".join(parts[:literal_lead])
        tail = "".join("(?:/" + p for p in parts[literal_lead:]) + ")?" * trailing
        return head + tail + "/?"
    return "/" + "/".join(parts)


class DeprecationMatcher:
    def __init__(self, deprecations: list[Deprecation]) -> None:
        self.words: dict[str, Deprecation] = {}
        self.others: list[tuple[re.Pattern[str], Deprecation]] = []
        self._by_term: dict[str, Deprecation] = {}
        self.max_match = 0  # the most characters one match of `pattern` can span
        # Text each match of a term must hold ("" for a path of parameters only): a text holding
        # none of them needs no scan by `pattern`, the slow part over a large document.
        self._literals: set[str] = set()
        alternatives: list[str] = []
        for dep in deprecations:
            term = dep.term.strip()
            if not term:
                continue
            if dep.whole_word and _WORD.fullmatch(term):
                self.words.setdefault(term, dep)
                continue
            self._by_term.setdefault(term, dep)
            m = _METHOD_PREFIX.match(term)
            if m or term.startswith("/"):
                path = m.group(2) if m else term
                body = rf"(?:\b{m.group(1)}\s{{1,{METHOD_GAP_CHARS}}})?" if m else ""
                body += path_pattern(path) + r"(?![\w\-/])"
                literals = [s for s in path.split("/") if s and not s.startswith(("{", "<"))]
                self._literals.add(max(literals, key=len) if literals else "")
            else:
                body = re.escape(term)
                if dep.whole_word:
                    body = rf"(?<!\w){body}(?!\w)"
                self._literals.add(term)
            params = term.count("{") + term.count("<")
            self.max_match = max(
                self.max_match, len(term) + params * PARAM_CHARS + METHOD_GAP_CHARS
            )
            self.others.append((re.compile(body), dep))
            alternatives.append(f"(?P<t{len(self.others) - 1}>{body})")
        self.pattern = re.compile("|".join(alternatives)) if alternatives else None

    def __bool__(self) -> bool:
        return bool(self.words or self.others)

    def deprecation_of(self, *names: str) -> Deprecation | None:
        """The deprecation whose term is exactly one of `names` (an identifier's spellings)."""
        for name in names:
            dep = self.words.get(name) or self._by_term.get(name)
            if dep is not None:
                return dep
        return None

    def find(
        self, text: str, limit: int = MAX_DIAGNOSTICS, *, prose_file: bool = False
    ) -> list[Finding]:
        """Deprecated terms in `text`. Plain-English terms (`code_only`, such as ``Term``) count
        only where they are code: quoted, a key, inline code; never in a comment or a sentence."""
        found: list[Finding] = []
        # Every token of the text is looked at below, in Python: ~0.2 s over 5 MB of minified
        # JSON, which a text naming none of the words (one C-speed search each) can skip.
        if self.words and any(word in text for word in self.words):
            words = self.words
            for m in _WORD.finditer(text):
                dep = words.get(m.group())
                if (
                    dep is not None
                    and dep.code_only
                    and not is_code_occurrence(text, m.start(), m.end(), prose_file=prose_file)
                ):
                    continue
                if dep is not None:
                    found.append(
                        Finding(m.start(), m.end(), m.group(), dep, quick_fix_text(dep, m.group()))
                    )
                    if len(found) >= limit:
                        break
        if self.pattern is not None and any(literal in text for literal in self._literals):
            for m in windowed_finditer(self.pattern, text, self.max_match):
                index = int((m.lastgroup or "t0")[1:])
                dep = self.others[index][1]
                found.append(
                    Finding(m.start(), m.end(), m.group(), dep, quick_fix_text(dep, m.group()))
                )
                if len(found) >= 2 * limit:
                    break
        found.sort(key=lambda f: f.start)
        return found[:limit]


def windowed_finditer(
    pattern: re.Pattern[str], text: str, max_match: int, window: int = SCAN_WINDOW
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` for a pattern none of whose matches spans more than `max_match`
    characters, run over windows of `window` characters (each read `max_match` further) so that
    no single regex call runs long. A match that starts in a window lies wholly in what that call
    reads, so the matches are exactly those of one scan of the whole text."""
    pos, size = 0, len(text)
    while pos < size:
        limit = pos + window
        # One character more: the pattern's look-ahead after a match.
        end = min(size, limit + max_match + 1)
        last = pos
        for m in pattern.finditer(text, pos, end):
            if m.start() >= limit and end < size:
                break  # the next window finds it, read whole
            yield m
            last = m.end()
        pos = max(limit, last) if end < size else size


def _message(finding: Finding) -> str:
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
) -> list[types.Diagnostic]:
    """The deprecated terms `matcher` finds in the snapshot and the `api` findings of its calls,
    as LSP diagnostics: severities as the settings set them, lines that silence a check
    (``# atlas: ignore[unknown-param]``) left out."""
    levels = dict(settings.check_severity) if settings is not None else {}
    out = _deprecation_diagnostics(snapshot, matcher, encoding, levels)
    out += _api_diagnostics(snapshot, api, encoding, levels)
    if not out:
        return out
    lines = snapshot.lines
    kept = [d for d in out if not _silenced(lines, d)]
    kept.sort(key=lambda d: (d.range.start.line, d.range.start.character))
    return kept[:MAX_DIAGNOSTICS]


def _deprecation_diagnostics(
    snapshot: Snapshot, matcher: DeprecationMatcher, encoding: str, levels: dict[str, str]
) -> list[types.Diagnostic]:
    if not matcher or levels.get(CODE) == "off":
        return []
    prose = snapshot.language_id.lower() in PROSE_LANGUAGES
    findings = matcher.find(snapshot.text, prose_file=prose)
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
        end = types.Position(f.line, column_to_client(text_line, f.end, encoding))
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
