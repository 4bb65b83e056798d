"""Find the Collibra API identifier under the cursor.

A recogniser is a pure function of one line of text and a cursor column: it returns the candidate
identifier, a kind hint and the column range it spans, or None. The language server tries every
enabled recogniser in order and looks each answer up until one resolves, so a recogniser may be
generous: a wrong guess costs one dictionary lookup, a missed one costs the user their hover.

Third-party recognisers register under the entry-point group ``atlas.recognizers``; the entry point
may name a class (instantiated without arguments), an object with ``name`` and ``recognize(ctx)``,
or a plain function ``f(ctx) -> Recognition | None``. Plugins run before the built-ins so they can
claim text the built-ins would misread. This module imports no protocol library, so ``atlas
doctor`` can list plugins cheaply.
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "atlas.recognizers"
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

# Lines longer than this are cut to a window around the cursor: minified JSON can be one 5 MB line
# and every recogniser is linear in the line length.
MAX_LINE_WINDOW = 2000

_LANGUAGE_ALIASES = {
    "py": "python",
    "python3": "python",
    "js": "javascript",
    "javascriptreact": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "typescriptreact": "typescript",
    "tsx": "typescript",
    "kt": "kotlin",
    "kts": "kotlin",
    "gvy": "groovy",
    "jsonc": "json",
    "json5": "json",
    "yml": "yaml",
    "sh": "shell",
    "bash": "shell",
    "zsh": "shell",
    "ksh": "shell",
    "shellscript": "shell",
    "md": "markdown",
    "mdx": "markdown",
    "gql": "graphql",
}
_HASH_COMMENT = frozenset({"python", "shell", "yaml", "ruby", "perl", "toml", "r", "powershell"})
_SLASH_COMMENT = frozenset(
    {
        "java",
        "groovy",
        "kotlin",
        "javascript",
        "typescript",
        "json",
        "c",
        "cpp",
        "csharp",
        "go",
        "rust",
        "scala",
        "swift",
        "dart",
        "php",
    }
)
_TRIPLE_QUOTES = frozenset({"python", "kotlin", "groovy", "scala"})
# Where an apostrophe is more likely prose than a string delimiter.
_NO_SINGLE_QUOTE = frozenset({"markdown", "plaintext", "text", "rust", "graphql"})
_PROSE = frozenset({"markdown", "plaintext", "text", "restructuredtext", "asciidoc"})

_STOP_WORDS = frozenset(
    re.findall(
        r"\w+",
        """
    and are def del elif else for from global import lambda nonlocal not pass raise return self try
    while with yield async await class true false none null undefined this super new var let const
    function public private protected static final void int long float double boolean bool char
    string str dict list set tuple object any int32 int64 import package extends implements
    interface enum throws throw catch finally switch case break continue default typeof instanceof
    then done esac echo export local readonly unset source sudo print printf println val fun def
    the you your with that this from have will can not but all any use using into when what which
    json yaml http https rest api get post put patch delete head options
    """,
    )
)

_IDENT_CHAR = re.compile(r"[A-Za-z0-9_]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_SCHEME_HOST = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/\s\"'`]*")
_LEADING_INTERPOLATION = re.compile(
    r"\$\{[^{}]*\}|\{[^{}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[sd]|<[A-Za-z_][A-Za-z0-9_]*>"
)
_PATH = re.compile(r"/(?:\$\{[^{}\s]*\}|\{[^{}\s]*\}|[A-Za-z0-9_.~\-/$<>:%@=,+])*")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_METHOD_NAMES = "|".join(HTTP_METHODS)
_METHOD_CALL_BEFORE = re.compile(
    r"(?i)\b(get|post|put|patch|delete|head|options)\s*(?:<[^()]*>)?\s*\(\s*[rbfu]{0,2}$"
)
_METHOD_WORD_BEFORE = re.compile(rf"\b({_METHOD_NAMES})\b[\"'`]?\s*,?\s*[rbfu]{{0,2}}[\"'`]?$")
_METHOD_SPRING_BEFORE = re.compile(r"@(Get|Post|Put|Patch|Delete)Mapping\s*\(\s*(?:value\s*=\s*)?$")
_METHOD_FLAG = re.compile(rf"(?:-X\s*|--request[\s=]+)[\"']?({_METHOD_NAMES})\b", re.IGNORECASE)
_METHOD_KEY = re.compile(rf"\bmethod[\"']?\s*[:=]\s*[\"']?({_METHOD_NAMES})\b", re.IGNORECASE)
_METHOD_CALL_AFTER = re.compile(rf"^[\"'`]?\)?\s*\)?\s*\.\s*({_METHOD_NAMES})\s*\(")


def normalize_language(language_id: str) -> str:
    """Fold client spellings of a language id ("sh", "shellscript", "jsonc") to one name."""
    lang = (language_id or "").strip().lower()
    return _LANGUAGE_ALIASES.get(lang, lang)


@dataclass(frozen=True, slots=True)
class Context:
    """One cursor position: the text of its line and the column (code points) inside it."""

    line: str
    character: int
    language_id: str = ""
    line_number: int = 0
    offset: int = 0  # column of line[0] in the document line when `line` is a window of it

    @property
    def language(self) -> str:
        return normalize_language(self.language_id)


@dataclass(frozen=True, slots=True)
class Recognition:
    """A candidate identifier: what to look up, a kind hint, and its columns in the line."""

    identifier: str
    kind: str  # an IdentifierKind hint: endpoint, operation, type, schema, json_key, cli, graphql
    start: int
    end: int
    recognizer: str = ""
    method: str = ""  # endpoints: the HTTP method the surrounding code uses, when visible
    alternatives: tuple[str, ...] = ()  # looked up, in order, when `identifier` resolves nothing

    def lookups(self) -> tuple[str, ...]:
        seen: dict[str, None] = {self.identifier: None}
        for alt in self.alternatives:
            seen.setdefault(alt, None)
        return tuple(seen)


@runtime_checkable
class Recognizer(Protocol):
    name: str

    def recognize(self, ctx: Context) -> Recognition | None: ...


# --- string literals ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StringSpan:
    """A string literal on one line; `start`/`end` delimit its content, `closed` its last quote."""

    quote_start: int
    start: int
    end: int
    quote: str
    closed: bool

    def contains(self, column: int) -> bool:
        # The opening quote and a closing quote count as "in the string" for hovering.
        last = self.end + (len(self.quote) if self.closed else 0)
        return self.quote_start <= column <= last


def string_spans(line: str, language: str) -> list[StringSpan]:
    """Every string literal on `line`, by a small scanner that knows quotes, escapes and comments.

    A literal still open at the end of the line runs to its end (the user is typing it, or it
    continues on the next line). Inside a comment only double quotes and backticks delimit text,
    so an apostrophe in prose does not swallow the rest of the line.
    """
    lang = normalize_language(language)
    quotes = '"`' if lang in _NO_SINGLE_QUOTE else "\"'`"
    triple = lang in _TRIPLE_QUOTES
    spans: list[StringSpan] = []
    in_comment = False
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        hash_comment = ch == "#" and lang in _HASH_COMMENT and (i == 0 or line[i - 1] in " \t")
        slash_comment = ch == "/" and lang in _SLASH_COMMENT and line.startswith("//", i)
        if not in_comment and (hash_comment or slash_comment):
            in_comment = True
            quotes = '"`'
            i += 1
            continue
        if ch not in quotes:
            i += 1
            continue
        quote = ch
        if triple and ch in "\"'" and line.startswith(ch * 3, i):
            quote = ch * 3
        start = i + len(quote)
        j = start
        closed = False
        while j < n:
            if line[j] == "\\" and quote != "`" and lang != "shell":
                j += 2
                continue
            if line[j] == "\\" and quote == "`":
                j += 2
                continue
            if line.startswith(quote, j):
                closed = True
                break
            j += 1
        end = min(j, n)
        spans.append(StringSpan(i, start, end, quote, closed))
        i = end + (len(quote) if closed else 0)
    return spans


def string_at(line: str, column: int, language: str) -> StringSpan | None:
    for span in string_spans(line, language):
        if span.contains(column):
            return span
        if span.quote_start > column:
            break
    return None


# --- REST paths -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PathMatch:
    start: int  # offsets into the text the path was found in
    end: int
    raw: str
    normalized: str


def _anchored_path(text: str, base: int) -> PathMatch | None:
    pos = 0
    host = _SCHEME_HOST.match(text)
    if host:
        pos = host.end()
    else:
        while True:
            m = _LEADING_INTERPOLATION.match(text, pos)
            if not m or m.end() == pos:
                break
            pos = m.end()
    m = _PATH.match(text, pos)
    if not m:
        return None
    # A path ends before a query string; drop prose punctuation that clings to it.
    raw = m.group(0).rstrip(".,:;")
    if len(raw) < 2 or not any(c.isalpha() for c in raw):
        return None
    if not (raw[1].isalpha() or raw[1] in "{$<_"):
        return None
    return PathMatch(base + pos, base + pos + len(raw), raw, normalize_path(raw))


def find_path(text: str, column: int | None = None) -> PathMatch | None:
    """The REST path in a string's content: after any scheme, host or base-URL interpolation.

    ``f"{base}/rest/2.0/assets/{asset_id}"``, ``${base}/assets/${id}``, ``$BASE/assets/$ID``,
    ``GET /assets/{id}`` and ``https://acme.collibra.com/rest/2.0/assets?x=1`` all yield their
    path part. With `column`, only a path in the whitespace-separated token holding it counts.
    """
    for token in re.finditer(r"\S+", text):
        if column is not None and not token.start() <= column <= token.end():
            continue
        match = _anchored_path(token.group(0), token.start())
        if match is not None:
            return match
        if column is not None:
            return None
    return None


def _param_name(inner: str) -> str:
    inner = inner.strip()
    return inner if _WORD.fullmatch(inner) else "id"


def normalize_path(raw: str) -> str:
    """Spell every path parameter as ``{name}`` so the engine sees one template syntax."""
    segments = []
    for seg in raw.split("/"):
        if seg.startswith("${") and seg.endswith("}"):
            seg = "{" + _param_name(seg[2:-1]) + "}"
        elif seg.startswith("{") and seg.endswith("}"):
            seg = "{" + _param_name(seg[1:-1]) + "}" if len(seg) > 2 else "{id}"
        elif seg.startswith("$") and _WORD.fullmatch(seg[1:]):
            seg = "{" + seg[1:] + "}"
        elif seg.startswith("<") and seg.endswith(">") and _WORD.fullmatch(seg[1:-1]):
            seg = "{" + seg[1:-1] + "}"
        elif seg.startswith(":") and _WORD.fullmatch(seg[1:]):
            seg = "{" + seg[1:] + "}"
        elif seg in ("%s", "%d") or _UUID.fullmatch(seg) or (seg.isdigit() and len(seg) > 3):
            seg = "{id}"
        segments.append(seg)
    path = "/".join(segments)
    if len(path) > 1:
        path = path.rstrip("/")
    return path


def method_hint(befores: Sequence[str], after: str, line: str) -> str:
    """The HTTP method the code around a path uses, or "" when nothing says.

    `befores` are the texts that end where the path starts: the text inside the literal before the
    path (``"GET /assets"``) and the code before the literal (``requests.get(``).
    """
    for before in befores:
        for pattern in (_METHOD_CALL_BEFORE, _METHOD_WORD_BEFORE, _METHOD_SPRING_BEFORE):
            m = pattern.search(before)
            if m:
                return m.group(1).upper()
    m = _METHOD_CALL_AFTER.match(after)
    if m:
        return m.group(1).upper()
    for pattern in (_METHOD_FLAG, _METHOD_KEY):
        m = pattern.search(line)
        if m:
            return m.group(1).upper()
    return ""


_TOKEN_STOP = set(" \t\"'`()[],;|&")


def _token_bounds(line: str, column: int) -> tuple[int, int]:
    start = column
    while start > 0 and line[start - 1] not in _TOKEN_STOP:
        start -= 1
    end = column
    while end < len(line) and line[end] not in _TOKEN_STOP:
        end += 1
    return start, end


class RestPathRecognizer:
    """REST paths in string literals, template strings, f-strings, and bare in prose and shell."""

    name = "rest_path"

    def recognize(self, ctx: Context) -> Recognition | None:
        line, col, lang = ctx.line, ctx.character, ctx.language
        span = string_at(line, col, lang)
        if span is not None:
            base, text = span.start, line[span.start : span.end]
            after = line[span.end + (len(span.quote) if span.closed else 0) :]
        else:
            base, end = _token_bounds(line, col)
            text = line[base:end]
            if base == end:
                return None
            after = line[end:]
            # Outside a string, code like `a/b` is division; only prose, YAML and shell carry
            # bare paths, and a full URL or /rest/ prefix is unmistakable anywhere.
            bare_ok = lang in _PROSE or lang in ("yaml", "shell", "") or "/rest/" in text
            if not bare_ok and not _SCHEME_HOST.match(text):
                return None
        match = find_path(text, col - base)
        if match is None and span is not None:
            match = find_path(text)  # the cursor on a quote or on the method before the path
        if match is None:
            return None
        start, end = base + match.start, base + match.end
        if span is None and not start <= col <= end:
            return None
        path = match.normalized
        tail = text[match.end :]
        if match.raw.endswith("/") and (
            after.lstrip().startswith(("+", "..", "<<")) or tail.startswith(("{", "$", "%"))
        ):
            # "/assets/" + assetId: the concatenated part is the path parameter.
            path = path + "/{id}"
        befores = [line[:start]]
        if span is not None:
            befores = [line[span.start : start], line[: span.quote_start]]
        method = method_hint(befores, after, line)
        return Recognition(
            identifier=f"{method} {path}" if method else path,
            kind="endpoint",
            start=start + ctx.offset,
            end=end + ctx.offset,
            recognizer=self.name,
            method=method,
            alternatives=(path,) if method else (),
        )


# --- identifiers in code --------------------------------------------------------------------


def split_words(identifier: str) -> list[str]:
    """``findAssets`` -> [find, Assets]; ``find_assets`` -> [find, assets]; ``HTTPClient`` ok."""
    parts: list[str] = []
    for chunk in re.split(r"[_\-.\s]+", identifier):
        parts.extend(re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+", chunk))
    return [p for p in parts if p]


def camel_case(identifier: str) -> str:
    words = split_words(identifier)
    if not words:
        return identifier
    return words[0].lower() + "".join(w[:1].upper() + w[1:].lower() for w in words[1:])


def snake_case(identifier: str) -> str:
    return "_".join(w.lower() for w in split_words(identifier))


def pascal_case(identifier: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in split_words(identifier))


def _variants(word: str, kind: str) -> tuple[str, ...]:
    out = []
    if kind == "type" and word[:1].islower():
        out.append(word[:1].upper() + word[1:])  # bean name assetApi -> AssetApi
    if "_" in word:
        out.append(camel_case(word))
    elif any(c.isupper() for c in word[1:]):
        out.append(snake_case(word))
    return tuple(v for v in out if v and v != word)


def word_at(line: str, column: int) -> tuple[int, int] | None:
    if not line:
        return None
    col = min(column, len(line))
    start = col
    while start > 0 and _IDENT_CHAR.match(line[start - 1]):
        start -= 1
    end = col
    while end < len(line) and _IDENT_CHAR.match(line[end]):
        end += 1
    if start == end or line[start].isdigit():
        return None
    return start, end


def _word_kind(line: str, start: int, end: int, lang: str) -> str:
    word = line[start:end]
    before = line[:start].rstrip()
    after = line[end:].lstrip()
    if lang == "graphql":
        return "graphql"
    if lang == "yaml" and (after.startswith(":") or before.endswith(":")):
        return "json_key"
    if word[:1].isupper() and any(c.islower() for c in word):
        return "type"
    if after.startswith(".") and not before.endswith("."):
        return "type"  # assetApi.addAsset: a bean named for its type
    return "operation"


class CodeIdentifierRecognizer:
    """Operation names, API beans and types, GraphQL fields: the identifier word at the cursor."""

    name = "code_identifier"

    def recognize(self, ctx: Context) -> Recognition | None:
        bounds = word_at(ctx.line, ctx.character)
        if bounds is None:
            return None
        start, end = bounds
        word = ctx.line[start:end]
        if len(word) < 3 or word.lower() in _STOP_WORDS:
            return None
        if len(word) < 5 and word.isalpha() and word.islower():
            return None  # "info", "list", "name": far more often local names than API ones
        kind = _word_kind(ctx.line, start, end, ctx.language)
        return Recognition(
            identifier=word,
            kind=kind,
            start=start + ctx.offset,
            end=end + ctx.offset,
            recognizer=self.name,
            alternatives=_variants(word, kind),
        )


class JsonKeyRecognizer:
    """Quoted keys and values (Import API JSON, YAML, dict literals, markdown code spans)."""

    name = "json_key"

    def recognize(self, ctx: Context) -> Recognition | None:
        span = string_at(ctx.line, ctx.character, ctx.language)
        if span is None:
            return None
        text = ctx.line[span.start : span.end]
        if not _QUOTED_IDENT.fullmatch(text) or len(text) < 2:
            return None
        lang = ctx.language
        after = ctx.line[span.end + len(span.quote) :].lstrip() if span.closed else ""
        before = ctx.line[: span.quote_start].rstrip()
        if lang in ("json", "yaml") or after.startswith(":") or before.endswith(":"):
            kind = "json_key"
        else:
            kind = _word_kind(ctx.line, span.start, span.end, lang)
        return Recognition(
            identifier=text,
            kind=kind,
            start=span.start + ctx.offset,
            end=span.end + ctx.offset,
            recognizer=self.name,
            alternatives=_variants(text, kind),
        )


_CLI_LANGS = frozenset({"shell", "markdown", "yaml", "dockerfile", "powershell", "makefile", ""})
_CLI_SEPARATORS = re.compile(r"\|\||&&|[|;]|\$\(|`")
_CLI_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*")
_CLI_SKIP = frozenset({"sudo", "exec", "time", "nohup", "env", "command", "then", "do", "run:"})


class CliCommandRecognizer:
    """``lineage-harvester full-sync`` in shell scripts, CI YAML and markdown shell samples."""

    name = "cli_command"

    def recognize(self, ctx: Context) -> Recognition | None:
        lang = ctx.language
        if lang not in _CLI_LANGS:
            return None
        line, col = ctx.line, ctx.character
        if lang == "markdown" and not line.lstrip().startswith(("$ ", "> ")):
            return None
        seg_start = 0
        for m in _CLI_SEPARATORS.finditer(line):
            if m.end() <= col:
                seg_start = m.end()
            else:
                break
        words: list[tuple[int, int, str]] = []
        for m in re.finditer(r"\S+", line[seg_start:]):
            token = m.group(0)
            start = seg_start + m.start()
            if not words and (token in ("$", ">", "-") or token in _CLI_SKIP or "=" in token):
                continue
            if token.startswith("-") or not _CLI_WORD.fullmatch(token.split("/")[-1]):
                break
            name = token.split("/")[-1]
            name = re.sub(r"\.(sh|jar|exe|py|cmd|bat)$", "", name)
            words.append((start, start + len(token), name))
            if len(words) == 4:
                break
        hit = [i for i, (s, e, _) in enumerate(words) if s <= col <= e]
        if not hit or len(words) < 1:
            return None
        last = hit[0]
        # The longest command line that ends at or after the cursor word, then shorter ones.
        names = [w[2] for w in words]
        lookups = [" ".join(names[:k]) for k in range(len(names), last, -1)]
        if not lookups or ("-" not in names[0] and len(names) == 1):
            # A lone word without a dash is most likely not a CLI; leave it to the others.
            return None
        return Recognition(
            identifier=lookups[0],
            kind="cli",
            start=words[0][0] + ctx.offset,
            end=words[len(lookups[0].split()) - 1][1] + ctx.offset,
            recognizer=self.name,
            alternatives=tuple(lookups[1:]),
        )


BUILTIN_RECOGNIZERS: tuple[Recognizer, ...] = (
    RestPathRecognizer(),
    JsonKeyRecognizer(),
    CliCommandRecognizer(),
    CodeIdentifierRecognizer(),
)


# --- plugins and the set the server uses ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class FunctionRecognizer:
    name: str
    func: Callable[[Context], Recognition | None]

    def recognize(self, ctx: Context) -> Recognition | None:
        return self.func(ctx)


@dataclass(frozen=True, slots=True)
class PluginStatus:
    """What happened to one entry point, for logs and `atlas doctor`."""

    name: str
    value: str
    distribution: str
    loaded: bool
    error: str = ""


def _as_recognizer(name: str, obj: object) -> Recognizer:
    if isinstance(obj, type):
        obj = obj()
    if hasattr(obj, "recognize") and callable(obj.recognize):  # type: ignore[attr-defined]
        if not isinstance(getattr(obj, "name", None), str):
            return FunctionRecognizer(name, obj.recognize)  # type: ignore[attr-defined]
        return obj  # type: ignore[return-value]
    if callable(obj):
        return FunctionRecognizer(name, obj)  # type: ignore[arg-type]
    raise TypeError(f"{type(obj).__name__} is neither a recogniser nor a function")


def load_plugins(
    entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
) -> tuple[list[Recognizer], list[PluginStatus]]:
    """Load every ``atlas.recognizers`` entry point; a broken plugin is reported, never raised."""
    if entry_points is None:
        entry_points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    loaded: list[Recognizer] = []
    report: list[PluginStatus] = []
    for ep in entry_points:
        dist = getattr(getattr(ep, "dist", None), "name", "") or ""
        try:
            rec = _as_recognizer(ep.name, ep.load())
        except Exception as exc:
            logger.warning("recogniser plugin %s (%s) failed to load: %s", ep.name, ep.value, exc)
            report.append(
                PluginStatus(ep.name, ep.value, dist, False, f"{type(exc).__name__}: {exc}")
            )
            continue
        loaded.append(rec)
        report.append(PluginStatus(ep.name, ep.value, dist, True))
    return loaded, report


@dataclass
class RecognizerSet:
    """The recognisers a server runs, plugins first, filtered by the enabled-names setting."""

    recognizers: list[Recognizer]
    plugins: list[PluginStatus] = field(default_factory=list)
    enabled: frozenset[str] | None = None  # None: all
    _failed: set[str] = field(default_factory=set)

    @classmethod
    def default(cls, *, with_plugins: bool = True) -> RecognizerSet:
        plugins, report = load_plugins() if with_plugins else ([], [])
        return cls([*plugins, *BUILTIN_RECOGNIZERS], report)

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.recognizers]

    def active(self) -> list[Recognizer]:
        if self.enabled is None:
            return list(self.recognizers)
        return [r for r in self.recognizers if r.name in self.enabled]

    def recognize_all(self, ctx: Context) -> list[Recognition]:
        """Every enabled recogniser's answer at `ctx`, in priority order, without duplicates."""
        found: list[Recognition] = []
        seen: set[tuple[str, int, int]] = set()
        for rec in self.active():
            try:
                result = rec.recognize(ctx)
            except Exception:
                # A plugin bug must never take hover down; say so once per recogniser.
                if rec.name not in self._failed:
                    self._failed.add(rec.name)
                    logger.exception("recogniser %s failed", rec.name)
                continue
            if result is None:
                continue
            if not isinstance(result, Recognition):
                if rec.name not in self._failed:
                    self._failed.add(rec.name)
                    logger.warning(
                        "recogniser %s returned %s, not a Recognition", rec.name, type(result)
                    )
                continue
            key = (result.identifier, result.start, result.end)
            if key not in seen:
                seen.add(key)
                found.append(result)
        return found


def context_at(lines: Sequence[str], line: int, character: int, language_id: str) -> Context | None:
    """The recogniser context at a position; None past the last line. Long lines are windowed."""
    if line < 0 or line >= len(lines):
        return None
    text = lines[line]
    column = max(0, min(character, len(text)))
    offset = 0
    if len(text) > 2 * MAX_LINE_WINDOW:
        offset = max(0, column - MAX_LINE_WINDOW)
        text = text[offset : column + MAX_LINE_WINDOW]
        column -= offset
    return Context(text, column, language_id, line, offset)
