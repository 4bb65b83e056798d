"""The built-in recognisers: REST paths, quoted keys, CLI commands and identifier words."""

from __future__ import annotations

import re

from atlas_core.recognize.registry import Context, Recognition, Recognizer
from atlas_core.recognize.text_scan import (
    PROSE_LANGUAGES,
    SCHEME_HOST,
    camel_case,
    find_path,
    method_hint,
    snake_case,
    string_at,
    token_bounds,
    word_at,
)

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

_QUOTED_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
            base, end = token_bounds(line, col)
            text = line[base:end]
            if base == end:
                return None
            after = line[end:]
            # Outside a string, code like `a/b` is division; only prose, YAML and shell carry
            # bare paths, and a full URL or /rest/ prefix is unmistakable anywhere.
            bare_ok = lang in PROSE_LANGUAGES or lang in ("yaml", "shell", "") or "/rest/" in text
            if not bare_ok and not SCHEME_HOST.match(text):
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


def _variants(word: str, kind: str) -> tuple[str, ...]:
    out = []
    if kind == "type" and word[:1].islower():
        out.append(word[:1].upper() + word[1:])  # bean name assetApi -> AssetApi
    if "_" in word:
        out.append(camel_case(word))
    elif any(c.isupper() for c in word[1:]):
        out.append(snake_case(word))
    return tuple(v for v in out if v and v != word)


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
