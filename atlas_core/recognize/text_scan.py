"""Small scanners over one line of source: string literals, REST paths, identifier words.

They know just enough of each language (quotes, escapes, comments, interpolation syntax) to tell
what the cursor is on; the recognisers built on them decide what that means.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

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
    "ansible": "yaml",  # the Ansible extension's language id
    "sh": "shell",
    "bash": "shell",
    "zsh": "shell",
    "ksh": "shell",
    "shellscript": "shell",
    "md": "markdown",
    "mdx": "markdown",
    "gql": "graphql",
    "golang": "go",
    "ps1": "powershell",
    "psm1": "powershell",
    "pwsh": "powershell",
    "htm": "html",
    "cs": "csharp",
    "c#": "csharp",
    "rb": "ruby",
    "rs": "rust",
    "coffee": "coffeescript",
    "ex": "elixir",
    "exs": "elixir",
    "bal": "ballerina",
    "sc": "scala",
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
PROSE_LANGUAGES = frozenset({"markdown", "plaintext", "text", "restructuredtext", "asciidoc"})

_IDENT_CHAR = re.compile(r"[A-Za-z0-9_]")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SCHEME_HOST = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^/\s\"'`]*")
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
    host = SCHEME_HOST.match(text)
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


def token_bounds(line: str, column: int) -> tuple[int, int]:
    start = column
    while start > 0 and line[start - 1] not in _TOKEN_STOP:
        start -= 1
    end = column
    while end < len(line) and line[end] not in _TOKEN_STOP:
        end += 1
    return start, end


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
