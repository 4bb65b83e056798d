"""Every code-shaped token a markdown page writes, with its line, section and place.

The mention index (`atlas_core.identifiers.store.mentions`) is built from these occurrences. A token is
"code-shaped" by where it stands (a fenced block, an inline code span, a table cell, a heading)
or by its spelling in prose (camelCase, snake_case, SCREAMING_CASE, a dotted name, a URL path).
Each occurrence yields up to three keys, so lookups can ask by any of them:

- ``=token``: the token as written (case and separators kept);
- ``~compact``: the spelling-free form (`compact`), where `findAssets` and `find_assets` meet;
- ``/path``: a URL path as `path_key` folds it (scheme, host and ``/rest/2.0`` removed);
- ``$command``: a command line without its prompt, and its leading words (`./gradlew build`).

Places are bits, so one (token, page) row keeps every kind of place it was seen in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from atlas_core.identifiers.spelling import compact, path_key, strip_path
from atlas_core.identifiers.store.places import (
    CODE,
    DEFINITION,
    EXAMPLE,
    HEADING,
    PROMPT_RE,
    PROSE,
    SPAN,
    TABLE,
    command_key,
)
from atlas_core.markdown import fence_ids, scan_headings

# Minified JSON or a pasted spec: one such line could hold more tokens than a page.
LONG_LINE = 2000
MAX_TOKEN_CHARS = 200
COMMAND_WORDS = 8
_EXAMPLE_LANGS = frozenset({"json", "jsonc", "json5", "xml", "yaml", "yml", "http", "graphql"})
_SHELL_LANGS = frozenset(
    {"bash", "sh", "shell", "console", "zsh", "shell-session", "powershell", "ps1", "cmd", "bat"}
)
_FENCE_LANG_RE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*([\w+-]*)")
# An identifier, or a chain of them joined by dots or hyphens (process.env.HOME, full-sync).
_WORD_RE = re.compile(r"[A-Za-z_$][\w$]*(?:[.-][A-Za-z_$][\w$]*)*")
_PATH_RE = re.compile(
    r"(?:[A-Za-z][\w+.-]*://[^\s/'\"`]*|<[^<>\s/]*>|\$?\{[^{}\s/]*\})?"
    r"(?:/[\w.{}<>:$%~@-]+)+/?"
)
_SPAN_RE = re.compile(r"(`+)(.+?)\1")
# A heading of at most this many words names its subject with every word; a longer one is a
# sentence, about only the names it writes as code.
NAMING_HEADING_WORDS = 3
_CAMEL_RE = re.compile(r"[a-z0-9][A-Z]")
_COMMAND_START_RE = re.compile(r"^[\w./\\~-]+$")
_TABLE_RULE_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
# "- `name` - what it is", "- [`name`](link): ...", "* `--flag` is the ...": a list that
# defines names.
_BULLET_NAME_RE = re.compile(
    r"^\s*[-*+]\s+(?:\*\*)?\[?`([^`]+)`\]?(?:\([^()\s]*\))?(?:\*\*)?"
    r"\s*(?:[:—–-]\s|$|(?<=\s)(?P<verb>is|are)\s)"
)
# What "`name` is ..." defines: a name, not an expression (`call(x=1)` is unreliable).
_PLAIN_NAME_RE = re.compile(r"^[\w$./-]+$")
# "Values: `A`, `B` and 3 more." in a table cell: the names a field takes, defined in its row.
_VALUES_RE = re.compile(r"\bValues:\s*((?:`[^`]+`[\s,]*(?:and\s+)?)+)")
# A name with slashes and no leading one (`collibra/discovery`, `tools/ingest_csv`): a skill,
# module or package name, keyed as written like a relative program path.
_SLASHED_NAME_RE = re.compile(r"^[A-Za-z_][\w.-]*(?:/[\w.-]+)+$")
# A host held in a placeholder before the path: <your_collibra_url>/rest/..., {base}/assets.
_HOST_PLACEHOLDER_RE = re.compile(r"^/?(?:<[^<>/]*>|\$?\{[^{}/]*\})(?=/)")


@dataclass(frozen=True, slots=True)
class PageSection:
    anchor: str
    line: int  # 1-based line of the heading (1 for the page's top)


def _code_shaped(token: str) -> bool:
    """A prose word that can only be code: snake_case, camelCase, SCREAMING_CASE, a.dotted.name."""
    return (
        "_" in token.strip("_")
        or bool(_CAMEL_RE.search(token))
        or ("." in token and all(len(part) > 1 for part in token.split(".")))
    )


def _keys(token: str) -> Iterator[str]:
    token = token[:MAX_TOKEN_CHARS]
    yield "=" + token
    key = compact(token)
    if key:
        yield "~" + key


def _word_keys(text: str, prose: bool) -> Iterator[str]:
    for m in _WORD_RE.finditer(text):
        token = m.group(0).strip(".-")
        if len(token) < 2 or (prose and not _code_shaped(token)):
            continue
        yield from _keys(token)
        start = m.start()
        if text[max(start - 2, 0) : start] == "--" and (start < 3 or not text[start - 3].isalnum()):
            # --domainId: a command-line option is also looked up as written, flag and all.
            yield "=--" + token[:MAX_TOKEN_CHARS]
        if (
            token[0] in "DP"
            and start
            and text[start - 1] == "-"
            and (start < 2 or text[start - 2] in " `'\"")
        ):
            # -Dkey=value, -PFLAG: a JVM or Gradle property named after its flag.
            yield from _keys(token[1:])
        if "." in token:
            # process.env.HOME: each member is a name of its own.
            for part in token.split("."):
                if len(part) > 1 and part != token:
                    yield from _keys(part)


def _path_keys(text: str) -> Iterator[str]:
    if "/" not in text:
        return
    for m in _PATH_RE.finditer(text):
        raw = m.group(0)
        start = m.start()
        # "and/or", "src/main": a path starts the token (or follows a scheme, host or variable).
        if start and (text[start - 1].isalnum() or text[start - 1] in "_."):
            continue
        if raw.startswith("/") and raw.count("/") < 2 and not raw[1:2].isalpha():
            continue
        key = path_key(strip_path(_HOST_PLACEHOLDER_RE.sub("", raw))[1])
        if key != "/" and len(key) <= MAX_TOKEN_CHARS:
            yield key


def _command_keys(line: str) -> Iterator[str]:
    words = command_key(line).split(" ")
    if not words[0] or not _COMMAND_START_RE.match(words[0]):
        return
    for n in range(1, min(len(words), COMMAND_WORDS) + 1):
        yield "$" + " ".join(words[:n])[:MAX_TOKEN_CHARS]


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return re.split(r"(?<!\\)\|", body)


class PageScan:
    """The occurrences of one page: `occurrences()` yields (key, 1-based line, section, place)."""

    def __init__(self, text: str, title: str, cache: dict | None = None) -> None:
        """`cache` maps pieces of text already tokenised to their keys; pages of one corpus
        share it (the caller bounds it)."""
        self.lines = text.split("\n")
        self._cache: dict[tuple[str, bool | None], tuple[str, ...]] = {} if cache is None else cache
        self.title = title
        self._fences = fence_ids(self.lines)
        heads = [h for h in scan_headings(self.lines, [n >= 0 for n in self._fences])]
        # Table rows: the header above a rule line (`---|---`), the rows below it to a blank line.
        self._table_row = [0] * len(self.lines)  # 0: not a table, 1: header or rule, 2: a row
        for i, line in enumerate(self.lines):
            if "-" in line and self._fences[i] < 0 and _TABLE_RULE_RE.match(line) and i:
                if "|" not in line and "|" not in self.lines[i - 1]:
                    continue
                self._table_row[i] = self._table_row[i - 1] = 1
                j = i + 1
                while j < len(self.lines) and "|" in self.lines[j] and self._fences[j] < 0:
                    self._table_row[j] = 2
                    j += 1
        self.sections = [PageSection("", 1)]
        self._heading_lines: set[int] = set()
        for h in heads:
            self._heading_lines.add(h.line)
            if h.level <= 3:
                self.sections.append(PageSection(h.anchor, h.line + 1))

    def occurrences(self) -> Iterator[tuple[tuple[str, ...], int, int, int]]:
        """(keys, 1-based line, section, place) for each piece of the page that holds names."""
        section = 0
        starts = [s.line for s in self.sections]
        context, code = self._context, self._code_line
        yield self._heading(self.title), 1, 0, HEADING
        block_place, block_id, shell = CODE, -1, False
        for i, line in enumerate(self.lines):
            number = i + 1
            while section + 1 < len(starts) and starts[section + 1] <= number:
                section += 1
            if len(line) > LONG_LINE or not line.strip():
                continue
            fence = self._fences[i]
            if fence >= 0:
                if fence != block_id:  # the opening fence line
                    block_id = fence
                    m = _FENCE_LANG_RE.match(line)
                    lang = m.group(1).lower() if m else ""
                    shell = lang in _SHELL_LANGS
                    first = next((x.strip() for x in self.lines[i + 1 : i + 4] if x.strip()), "")
                    example = lang in _EXAMPLE_LANGS or (not lang and first[:1] in "{[<")
                    block_place = EXAMPLE if example else CODE
                    continue
                yield code(line, shell), number, section, block_place
                continue
            if i in self._heading_lines:
                heading = line.lstrip("#").strip()
                yield self._heading(heading), number, section, HEADING
                if " " in heading:  # "pip install": a heading that names a command
                    yield tuple(_command_keys(heading.strip("`"))), number, section, HEADING
                continue
            row = self._table_row[i]
            if row:
                if row == 1 and _TABLE_RULE_RE.match(line):
                    continue
                for n, cell in enumerate(_cells(line)):
                    place = DEFINITION if n == 0 and row == 2 else TABLE
                    yield context(cell, False), number, section, place
                    values = _VALUES_RE.search(cell) if row == 2 and "Values:" in cell else None
                    if values:
                        spans = " ".join(v.group(2) for v in _SPAN_RE.finditer(values.group(1)))
                        yield context(spans, False), number, section, DEFINITION
                continue
            bullet = _BULLET_NAME_RE.match(line)
            if bullet and bullet.group("verb") and not _PLAIN_NAME_RE.match(bullet.group(1)):
                bullet = None
            if bullet:
                yield context(bullet.group(1), False), number, section, DEFINITION
                line = line[bullet.end() :]
            rest = line
            if "`" in line:
                for m in _SPAN_RE.finditer(line):
                    span = m.group(2).strip()
                    yield context(span, False), number, section, SPAN
                    if " " in span:
                        yield tuple(_command_keys(span)), number, section, SPAN
                rest = _SPAN_RE.sub(" ", line)
            yield context(rest, True), number, section, PROSE

    def _heading(self, text: str) -> tuple[str, ...]:
        """The names a title or heading is about: all its words when it is short ("Assets",
        "Paging limit"), else only what it writes as code (a span, or a code-shaped word): a
        plain word in a sentence-like heading ("Where to get each id") is not its subject."""
        if len(_WORD_RE.findall(text)) <= NAMING_HEADING_WORDS:
            return self._context(text, False)
        keys = self._context(_SPAN_RE.sub(" ", text), True)
        for m in _SPAN_RE.finditer(text):
            keys += self._context(m.group(2), False)
        return keys

    def _context(self, text: str, prose: bool) -> tuple[str, ...]:
        # Generated pages repeat cells and lines verbatim; each distinct one is tokenised once.
        keys = self._cache.get((text, prose))
        if keys is None:
            keys = (*_word_keys(text, prose), *_path_keys(text))
            name = text.strip(" `*")
            if not prose and "/" in name and _SLASHED_NAME_RE.match(name):
                keys += ("$" + name[:MAX_TOKEN_CHARS],)
            self._cache[(text, prose)] = keys
        return keys

    def _code_line(self, line: str, shell: bool) -> tuple[str, ...]:
        keys = self._cache.get((line, None))
        if keys is None:
            keys = (*_word_keys(line, prose=False), *_path_keys(line))
            if shell or PROMPT_RE.match(line.lstrip()):
                keys += tuple(_command_keys(line))
            self._cache[(line, None)] = keys
        return keys
