"""Terms the docs name as deprecated, found in any text: the matcher behind the language
server's diagnostics and hover notices, usable by every host (`Engine.deprecated_terms`).

The matcher is built once per engine. Single-word terms are found by splitting the text into words
and looking each up in a dict, which is several times faster than one big alternation regex on a
multi-megabyte file; terms with spaces or slashes (``GET /rest/1.0/term``) go through one regex.
Deprecated endpoints the specs describe are left to the API checks, which judge them call by call.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from atlas_core.errors import AtlasError
from atlas_core.recognize import (
    BODY,
    ENDPOINT,
    OPERATION,
    PATH,
    QUERY,
    is_code_occurrence,
    normalize_language,
)
from atlas_core.syntax import line_starts
from atlas_core.types import Deprecation

if TYPE_CHECKING:
    from atlas_core.engine.facade import Engine
    from atlas_core.recognize import Located

MAX_FINDINGS = 500
PROSE_LANGUAGES = frozenset({"markdown", "plaintext", "text", "restructuredtext", "asciidoc"})
# Data files: a JSON or YAML document may be a request body or a config written for the API (a
# TableViewConfig), or data of anything else: a single word counts only as a key or a type name
# (`data_places`).
DATA_LANGUAGES = frozenset({"json", "jsonc", "yaml"})

_WORD = re.compile(r"\w+")
# One regex call holds the GIL for as long as it runs: over a 100 KB line the deprecation
# pattern takes ~40 ms, over 5 MB seconds, and the event loop waits that long even though the scan
# runs in a worker thread. Scanning windows of this many characters lets it in between.
SCAN_WINDOW = 8192
_METHOD_PREFIX = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S*)$")
_IDENTIFIER_LIKE = re.compile(r"^(?:(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+)?[\w./{}\-:]+$")


@dataclass(frozen=True, slots=True)
class TermFinding:
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
        self,
        text: str,
        limit: int = MAX_FINDINGS,
        *,
        prose_file: bool = False,
        keep: Callable[[int, int], bool] | None = None,
    ) -> list[TermFinding]:
        """Deprecated terms in `text`. Plain-English terms (`code_only`, such as ``Term``) count
        only where they are code: quoted, a key, inline code; never in a comment or a sentence.
        `keep(start, end)`, when given, says which single-word occurrences count at all."""
        found: list[TermFinding] = []
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
                if dep is not None and keep is not None and not keep(m.start(), m.end()):
                    continue
                if dep is not None:
                    found.append(
                        TermFinding(
                            m.start(), m.end(), m.group(), dep, quick_fix_text(dep, m.group())
                        )
                    )
                    if len(found) >= limit:
                        break
        if self.pattern is not None and any(literal in text for literal in self._literals):
            for m in windowed_finditer(self.pattern, text, self.max_match):
                index = int((m.lastgroup or "t0")[1:])
                dep = self.others[index][1]
                found.append(
                    TermFinding(m.start(), m.end(), m.group(), dep, quick_fix_text(dep, m.group()))
                )
                if len(found) >= 2 * limit:
                    break
        found.sort(key=lambda f: f.start)
        return found[:limit]


def find_terms(
    matcher: DeprecationMatcher,
    text: str,
    language: str,
    sites: Sequence[Located] | None = None,
    limit: int = MAX_FINDINGS,
) -> list[TermFinding]:
    """The deprecated terms a document shows. In prose, what `find` finds there (in a markdown
    code block as in a file of its language: `markdown_places`); in a data file
    a single word only as a key or a type name (`data_places`); in code a single word (SBVR's ``Term``, ``ConceptType``) counts only where the code uses it as
    a Collibra API name: the URL, a key or a literal value of a call the call readers see (its
    body built in a variable too; `sites`, scanned here when not given), or a name imported from a
    Collibra package. The same word in any other string or mapping is the code's own business."""
    lang = normalize_language(language)
    prose = lang in PROSE_LANGUAGES
    if prose:
        if lang == "markdown":
            from atlas_core.engine.markdown_places import MarkdownPlaces

            return matcher.find(text, limit, prose_file=True, keep=MarkdownPlaces(text, sites))
        return matcher.find(text, limit, prose_file=True)
    if lang in DATA_LANGUAGES:
        from atlas_core.engine.data_places import DataPlaces

        return matcher.find(text, limit, keep=DataPlaces(text))
    return matcher.find(text, limit, keep=ApiPlaces(text, lang, sites))


# ``import com.collibra.dgc.core.api.model.Term;``, ``from collibra_core.models import Term``.
_COLLIBRA_IMPORT = re.compile(r"^\s*(?:import|from)\s+(?:static\s+)?[\w.]*collibra", re.IGNORECASE)
_NAME_ROLES = frozenset({ENDPOINT, OPERATION, QUERY, BODY, PATH})


class ApiPlaces:
    """Whether a span of a code document is a Collibra API name: the places are found on the
    first question, so a document holding no deprecated word costs no call scan."""

    def __init__(self, text: str, language: str, sites: Sequence[Located] | None) -> None:
        self._text = text
        self._language = language
        self._sites = sites
        self._starts: list[int] | None = None
        self._spans: dict[int, list[tuple[int, int]]] | None = None

    def _places(self) -> dict[int, list[tuple[int, int]]]:
        if self._spans is None:
            sites = self._sites
            if sites is None:
                from atlas_core.recognize import scan_calls

                sites = scan_calls(self._text, self._language)
            spans: dict[int, list[tuple[int, int]]] = {}
            for item in sites:
                site = item.site
                at = spans.setdefault(item.line, [])
                if site.role in _NAME_ROLES:
                    at.append((site.start, site.end))
                if item.value_end > item.value_start:
                    at.append((item.value_start, item.value_end))
            self._spans = spans
        return self._spans

    def __call__(self, start: int, end: int) -> bool:
        if self._starts is None:
            self._starts = line_starts(self._text)
        line = bisect.bisect_right(self._starts, start) - 1
        column = start - self._starts[line]
        width = end - start
        if any(a <= column and column + width <= b for a, b in self._places().get(line, ())):
            return True
        line_end = self._text.find("\n", start)
        line_end = len(self._text) if line_end < 0 else line_end
        return bool(_COLLIBRA_IMPORT.match(self._text[self._starts[line] : line_end]))


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


class DeprecatedTerms:
    """One engine's matcher, built on first use, and the lookup a hover makes before it is."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._matcher: DeprecationMatcher | None = None
        self._lock = threading.Lock()

    def matcher(self) -> DeprecationMatcher:
        """Building it reads the bundle's whole deprecation list and the API model: call it off
        an event loop."""
        if self._matcher is None:
            with self._lock:
                if self._matcher is None:
                    engine = self._engine
                    self._matcher = DeprecationMatcher(
                        matched_as_text(engine, engine.deprecations())
                    )
        return self._matcher

    def deprecation_of(self, *names: str) -> Deprecation | None:
        """What `matcher().deprecation_of(*names)` answers, without building the matcher when it
        is not built yet: only the deprecations whose term is one of `names` are judged, so a
        hover does not wait for the API model that judging every term builds."""
        built = self._matcher
        if built is not None:
            return built.deprecation_of(*names)
        wanted = set(names)
        named = [d for d in self._engine.deprecations() if d.term.strip() in wanted]
        if not named:
            return None
        return DeprecationMatcher(matched_as_text(self._engine, named)).deprecation_of(*names)


def matched_as_text(engine: Engine, deprecations: list[Deprecation]) -> list[Deprecation]:
    """The deprecations the matcher looks for in text, each linked to its page. Deprecated
    endpoints the specs describe are the API checks' to judge, call by call and method-aware; as
    text they would match prose and other methods' calls."""
    return [linked(engine, d) for d in deprecations if not checked_as_call(engine, d)]
