"""Turn GitBook-flavoured markdown into plain markdown that reads well and indexes cleanly.

GitBook exports carry Liquid-style blocks (``{% hint %}``, ``{% tabs %}``, ...) and raw HTML (tables,
``<mark>``, figures, icons, escaped ``\\<p>`` from API descriptions). `clean` rewrites them into
markdown and never touches code: fenced blocks and inline code spans are set aside first and put
back verbatim. One pass can reveal more work (``&lt;br&gt;`` decodes to ``<br>``), so `clean` runs
passes until the text stops changing, which also makes it idempotent.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

MAX_PASSES = 6

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_BACKTICKS_RE = re.compile(r"`+")
_PLACEHOLDER_RE = re.compile(r"\x00(\d+)\x00")

# Tags whose markup is dropped while their content stays.
_UNWRAP = (
    "span|div|mark|u|ins|sup|sub|font|small|big|center|section|article|header|footer|nav|main|"
    "aside|figcaption|thead|tbody|tfoot|colgroup|col|picture|source|abbr|cite|kbd|var|samp|"
    "label|caption"
)
_KNOWN_TAGS = (
    _UNWRAP + "|p|br|hr|b|strong|i|em|code|a|img|figure|table|tr|td|th|ul|ol|li|pre|details|"
    "summary|h1|h2|h3|h4|h5|h6|s|del|strike|blockquote|dl|dt|dd"
)

_LLMS_BANNER_RE = re.compile(
    r"^> For the complete documentation index, see \[llms\.txt\]\([^)]*\)\..*\n?", re.MULTILINE
)


@dataclass(frozen=True, slots=True)
class _Block:
    """`pattern.sub` for a pattern of the form OPENER, lazy body, CLOSER, in linear time.

    `re.sub` retries every later opener against the rest of the text when one has no closer, which
    is quadratic (and worse with two lazy parts). Here the first opener without a closer ends the
    search, since no later opener can have one either (within its line, for a `one_line` block).
    """

    pattern: re.Pattern[str]
    opener: re.Pattern[str]
    closer: re.Pattern[str]
    one_line: bool = False

    @classmethod
    def of(cls, opener: str, closer: str, *, tail: str = "", one_line: bool = False) -> _Block:
        flags = re.IGNORECASE | (0 if one_line else re.DOTALL)
        return cls(
            re.compile(f"{opener}(.*?){closer}{tail}", flags),
            re.compile(opener, flags),
            re.compile(closer, flags),
            one_line,
        )

    def sub(self, repl: Callable[[re.Match[str]], str], text: str) -> str:
        out: list[str] = []
        done = 0
        for m in self.finditer(text):
            out += [text[done : m.start()], repl(m)]
            done = m.end()
        out.append(text[done:])
        return "".join(out)

    def search(self, text: str) -> re.Match[str] | None:
        return next(self.finditer(text), None)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        at = 0
        while (start := self.opener.search(text, at)) is not None:
            limit = len(text)
            if self.one_line and (newline := text.find("\n", start.end())) >= 0:
                limit = newline
            end = self.closer.search(text, start.end(), limit)
            if end is None:
                if limit == len(text):
                    break
                at = limit + 1
                continue
            # +1 leaves room for a one-character tail after the closer (`[ \t]?`).
            m = self.pattern.match(text, start.start(), min(len(text), end.end() + 1))
            if m is None:
                at = start.start() + 1
                continue
            yield m
            at = m.end()


# Hostile text must cost linear time. Inside a tag, `[^<>]` rather than `[^>]` (and no braces in
# hint attributes): an unclosed tag then stops at the next `<` instead of scanning to the end of
# the text from every opener; blocks with a body go through `_Block`.
_LIQUID = _Block(
    re.compile(r"\{%-?\s*(end)?([a-zA-Z][\w-]*)\s*(.*?)\s*-?%\}", re.DOTALL),
    re.compile(r"\{%-?\s*(?:end)?[a-zA-Z]"),
    re.compile(r"%\}"),
)
_ATTR_RE = re.compile(r"""(?<![\w-])([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_HINT_OPEN = r"\{%-?\s*hint\b((?:[^{}%]|%(?!\}))*?)-?%\}"
_HINT = _Block(
    re.compile(_HINT_OPEN + r"(.*?)\{%-?\s*endhint\s*-?%\}", re.DOTALL),
    re.compile(_HINT_OPEN),
    re.compile(r"\{%-?\s*endhint\s*-?%\}"),
)
_ESCAPED_TAG_RE = re.compile(rf"\\<(/?(?:{_KNOWN_TAGS})\b[^<>]*?)\\?>", re.IGNORECASE)
_ICON = _Block.of(
    r"""<i\s+class=["'](?=[^"'<>]*\bfa-)[^"'<>]*["'][^<>]*>""",
    r"</i>",
    tail=r"[ \t]?",
    one_line=True,
)
_TABLE = _Block.of(r"<table\b[^<>]*>", r"</table\s*>")
_PRE = _Block.of(r"<pre\b[^<>]*>", r"</pre\s*>")
_FIGURE = _Block.of(r"<figure\b[^<>]*>", r"</figure\s*>")
_IMG_RE = re.compile(r"<img\b([^<>]*?)/?>", re.IGNORECASE)
_A = _Block.of(r"<a\b([^<>]*)>", r"</a\s*>")
_SUMMARY = _Block.of(r"<summary\b[^<>]*>", r"</summary\s*>")
_TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b([^<>]*)>")
# Widest table written as markdown; cells past it join the last column, so no text is lost and a
# row of a million `colspan`s cannot multiply into a million columns for every row.
MAX_TABLE_COLUMNS = 64
_BLANKS_RE = re.compile(r"\n{3,}")
_FIGCAPTION = _Block.of(r"<figcaption\b[^<>]*>", r"</figcaption\s*>")


def clean(text: str) -> str:
    """GitBook markup rewritten as markdown; code fences and inline code left exactly as they are."""
    # NUL delimits the vault's placeholders: one in the input would be restored as set-aside code
    # that does not exist (or that contains itself). CommonMark turns NUL into U+FFFD anyway.
    text = text.replace("\x00", "\ufffd")
    for _ in range(MAX_PASSES):
        cleaned = _clean_once(text)
        if cleaned == text:
            break
        text = cleaned
    return text


# --- protecting code ------------------------------------------------------------------------------


class _Vault:
    """Holds code set aside during a pass; placeholders are NUL-delimited indexes."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def put(self, value: str) -> str:
        self.items.append(value)
        return f"\x00{len(self.items) - 1}\x00"

    def restore(self, text: str) -> str:
        while _PLACEHOLDER_RE.search(text):
            text = _PLACEHOLDER_RE.sub(lambda m: self.items[int(m.group(1))], text)
        return text


def _protect_fences(text: str, vault: _Vault) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE_RE.match(lines[i])
        if not m or (m.group(1)[0] == "`" and "`" in m.group(2)):
            out.append(lines[i])
            i += 1
            continue
        opener = m.group(1)
        j = i + 1
        while j < len(lines):
            close = _FENCE_RE.match(lines[j])
            if (
                close
                and close.group(1)[0] == opener[0]
                and len(close.group(1)) >= len(opener)
                and not close.group(2).strip()
            ):
                break
            j += 1
        block = "\n".join(lines[i : j + 1])
        indent = len(lines[i]) - len(lines[i].lstrip(" "))
        out.append(" " * indent + vault.put(block[indent:]))
        i = j + 1
    return "\n".join(out)


def _protect_code_spans(text: str, vault: _Vault) -> str:
    """Code spans set aside: a backtick run up to the next run of the same length on its line.

    A scan over the runs rather than a regex: a regex retries every run (and every position in
    it) against the rest of the line, quadratic on a line of unmatched backticks.
    """
    return "\n".join(_protect_spans_in_line(line, vault) for line in text.split("\n"))


def _protect_spans_in_line(line: str, vault: _Vault) -> str:
    if "`" not in line:
        return line
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(line)]
    later: dict[int, list[int]] = defaultdict(list)  # run length -> indexes of runs, reversed
    for i in range(len(runs) - 1, -1, -1):
        later[runs[i][1] - runs[i][0]].append(i)
    out: list[str] = []
    done = i = 0
    while i < len(runs):
        same = later[runs[i][1] - runs[i][0]]
        while same and same[-1] <= i:
            same.pop()
        if not same:
            i += 1
            continue
        close = same.pop()
        start, end = runs[i][0], runs[close][1]
        out += [line[done:start], vault.put(line[start:end])]
        done, i = end, close + 1
    out.append(line[done:])
    return "".join(out)


# --- one pass -------------------------------------------------------------------------------------


def _clean_once(text: str) -> str:
    vault = _Vault()
    text = text.replace("\r\n", "\n")
    text = _protect_fences(text, vault)
    text = _protect_code_spans(text, vault)
    text = _LLMS_BANNER_RE.sub("", text)
    text = _HINT.sub(lambda m: _hint(m.group(1), m.group(2), vault), text)
    text = _LIQUID.sub(_liquid, text)
    text = _PRE.sub(lambda m: "\n" + vault.put(_pre_to_fence(m.group(1))) + "\n", text)
    text = _ESCAPED_TAG_RE.sub(r"<\1>", text)
    text = _ICON.sub(lambda m: "", text)
    text = _TABLE.sub(lambda m: "\n\n" + _table_to_markdown(m.group(0)) + "\n\n", text)
    text = _FIGURE.sub(lambda m: _figure(m.group(1)), text)
    text = _IMG_RE.sub(lambda m: _image(m.group(1)), text)
    text = _A.sub(_anchor, text)
    text = _SUMMARY.sub(lambda m: f"\n**{_inline_text(m.group(1))}**\n\n", text)
    text = "\n".join(_inline_line(line) for line in text.split("\n"))
    text = _decode_entities(text)
    ends_with_newline = text.endswith("\n")
    text = _BLANKS_RE.sub("\n\n", text).strip("\n")
    if ends_with_newline and text:
        text += "\n"
    return vault.restore(text)


def _attrs(raw: str) -> dict[str, str]:
    return {
        m.group(1).lower(): html.unescape(next(g for g in m.groups()[1:] if g is not None))
        for m in _ATTR_RE.finditer(raw)
    }


def _hint(raw_attrs: str, body: str, vault: _Vault) -> str:
    style = _attrs(raw_attrs).get("style", "info").strip() or "info"
    label = f"**{style[:1].upper()}{style[1:]}:**"
    body = body.strip("\n")
    if _PLACEHOLDER_RE.search(body):
        # A fence inside a hint cannot be quoted without changing its lines; keep it as is.
        return f"\n{label}\n\n{body}\n"
    quoted = "\n".join(f"> {line}".rstrip() for line in body.split("\n"))
    return f"\n> {label}\n{quoted}\n"


def _liquid(m: re.Match[str]) -> str:
    is_end, name, raw = m.group(1), m.group(2).lower(), m.group(3)
    if is_end:
        return ""
    attrs = _attrs(raw)
    if name == "tab":
        return f"\n**{attrs['title']}**\n" if attrs.get("title") else ""
    if name == "code":
        return f"\n**{attrs['title']}**\n" if attrs.get("title") else ""
    if name == "content-ref":
        return ""  # the block's body already holds the link
    if name in ("embed", "file", "openapi", "swagger"):
        url = attrs.get("url") or attrs.get("src") or ""
        if not url:
            return ""
        label = attrs.get("caption") or attrs.get("title") or url
        if name in ("openapi", "swagger") and attrs.get("path"):
            label = f"{attrs.get('method', '').upper()} {attrs['path']}".strip()
        return f"[{label}]({url})"
    if name == "step":
        return ""
    return ""  # tabs, columns, column, stepper and any other wrapper: the content stays


def _pre_to_fence(inner: str) -> str:
    inner = re.sub(r"</?code\b[^<>]*>", "", inner, flags=re.IGNORECASE)
    inner = re.sub(r"<br\s*/?>", "\n", inner, flags=re.IGNORECASE)
    inner = html.unescape(_TAG_RE.sub("", inner)).strip("\n")
    longest = max((len(run) for run in _BACKTICKS_RE.findall(inner)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{inner}\n{fence}"


def _figure(inner: str) -> str:
    img = _IMG_RE.search(inner)
    caption = _FIGCAPTION.search(inner)
    caption_text = _inline_text(caption.group(1)) if caption else ""
    if not img:
        return caption_text
    attrs = _attrs(img.group(1))
    alt = caption_text or attrs.get("alt", "")
    return f"![{alt}]({attrs.get('src', '')})"


def _image(raw: str) -> str:
    attrs = _attrs(raw)
    return f"![{attrs.get('alt', '')}]({attrs.get('src', '')})"


def _anchor(m: re.Match[str]) -> str:
    href = _attrs(m.group(1)).get("href", "")
    label = _inline_text(m.group(2)) or href
    return f"[{label}]({href})" if href else label


def _inline_text(fragment: str) -> str:
    """A fragment of HTML as one line of markdown."""
    fragment = _IMG_RE.sub(lambda m: _image(m.group(1)), fragment)
    fragment = _A.sub(_anchor, fragment)
    fragment = _inline_tags(fragment, lambda _: " ")
    return " ".join(fragment.split())


_BREAK = "\x01"
_PARA = "\x02"
_BREAK_RUN_RE = re.compile("[\x01\x02]+")
_QUOTE_PREFIX_RE = re.compile(r"^\s*(?:>\s?)+")
_LIST_PREFIX_RE = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
_SPACES = {"\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u200b": ""}


def _inline_tags(text: str, on_break: Callable[[str], str]) -> str:
    def tag(m: re.Match[str]) -> str:
        closing, name = m.group(1), m.group(2).lower()
        if name in ("b", "strong"):
            return "**"
        if name in ("i", "em"):
            return "*"
        if name in ("s", "del", "strike"):
            return "~~"
        if name == "code":
            return "`"
        if name in ("br", "hr"):
            return on_break(_BREAK)
        if name in ("li", "dt", "dd"):
            return "" if closing else on_break(_BREAK) + "- "
        if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            return "**" + on_break(_PARA) if closing else on_break(_PARA) + "**"
        if name in ("p", "div", "blockquote", "ul", "ol", "dl", "details", "table", "figure"):
            return on_break(_PARA)
        if name in ("td", "th"):
            return " "
        if name in ("tr", "summary") or re.fullmatch(_UNWRAP, name):
            return ""
        return m.group(0)  # not HTML we know (a placeholder such as <your-name>): keep it

    return _TAG_RE.sub(tag, text)


def _inline_line(line: str) -> str:
    """Inline HTML of one line to markdown; line breaks continue the line's quote or list."""
    if "<" not in line:
        return line
    in_table = "|" in _PLACEHOLDER_RE.sub("", line)
    converted = _inline_tags(line, (lambda _: " ") if in_table else (lambda kind: kind))
    if not _BREAK_RUN_RE.search(converted):
        return converted
    quote = _QUOTE_PREFIX_RE.match(converted)
    listed = _LIST_PREFIX_RE.match(converted)
    if quote:
        prefix, cont = quote.group(0), quote.group(0).rstrip() + " "
    elif listed:
        prefix, cont = listed.group(0), " " * len(listed.group(0))
    else:
        prefix, cont = "", ""
    body = converted[len(prefix) :]
    pieces = _BREAK_RUN_RE.split(body)
    runs = _BREAK_RUN_RE.findall(body)
    out = prefix
    pending = ""
    for k, piece in enumerate(pieces):
        piece = piece.strip()
        if piece:
            if out.strip() and out != prefix:
                out += pending
            out += piece
            pending = ""
        if k < len(runs) and out.strip() and out != prefix:
            sep = "\n" + cont.rstrip() + "\n" + cont if _PARA in runs[k] else "\n" + cont
            if len(sep) > len(pending):
                pending = sep
    return out.rstrip()


def _decode_entities(text: str) -> str:
    if "&" not in text:
        return text
    text = html.unescape(text)
    for char, replacement in _SPACES.items():
        text = text.replace(char, replacement)
    return text


class _TableParser(HTMLParser):
    """Rows of cells (raw inner HTML) of the outermost table; nested tables become cell text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.rows: list[list[str]] = []
        self.header_rows: set[int] = set()
        self._depth = 0
        self._cell: list[str] | None = None
        self._span = 1
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                return
        if self._depth == 1:
            if tag == "thead":
                self._in_head = True
                return
            if tag == "tr":
                self._close_cell()
                self.rows.append([])
                if self._in_head:
                    self.header_rows.add(len(self.rows) - 1)
                return
            if tag in ("td", "th"):
                self._close_cell()
                if not self.rows:
                    self.rows.append([])
                if tag == "th" and not self.rows[-1]:
                    self.header_rows.add(len(self.rows) - 1)
                self._cell = []
                span = dict(attrs).get("colspan") or "1"
                self._span = int(span) if span.isdigit() and 0 < int(span) <= 50 else 1
                return
        if self._cell is not None:
            self._cell.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
            if self._depth == 0:
                self._close_cell()
                return
        if self._depth == 1 and tag in ("td", "th", "tr"):
            self._close_cell()
            return
        if self._depth == 1 and tag == "thead":
            self._in_head = False
            return
        if self._cell is not None:
            self._cell.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_entityref(self, name: str) -> None:
        self.handle_data(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self.handle_data(f"&#{name};")

    def _close_cell(self) -> None:
        if self._cell is None:
            return
        self.rows[-1].append("".join(self._cell))
        self.rows[-1].extend([""] * (self._span - 1))
        self._cell, self._span = None, 1


def _fit(row: list[str]) -> list[str]:
    """At most MAX_TABLE_COLUMNS cells; the cells past it are joined into the last one."""
    if len(row) <= MAX_TABLE_COLUMNS:
        return row
    tail = " ".join(cell for cell in row[MAX_TABLE_COLUMNS - 1 :] if cell)
    return [*row[: MAX_TABLE_COLUMNS - 1], tail]


def _table_to_markdown(table_html: str) -> str:
    parser = _TableParser()
    parser.feed(table_html)
    parser.close()
    rows = [
        [_inline_text(cell).replace("|", "\\|") for cell in _fit(row)] for row in parser.rows if row
    ]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(line.replace("|  |", "| |") for line in lines)
