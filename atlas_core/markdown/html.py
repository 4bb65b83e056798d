"""Spec descriptions as markdown: the HTML OpenAPI authors write (`<b>`, `<code>`, `<p>`, `<br>`,
`<ul><li>`, `<a href>`) becomes the markdown a hover or a table cell shows, never raw tags.

The GitBook cleaner (`atlas_core.markdown.gitbook.clean`) knows the common tags and keeps any
it does not know, since in a written page `<your-name>` is a placeholder. A spec's description
is the only text here, so what is left after it is settled here: presentational tags (`<span>`,
`<u>`, `<tt>`, `<div>` ...) are dropped or become code, and any other `<word>` is escaped so a
markdown viewer shows it as text instead of swallowing it as an unknown element.
"""

from __future__ import annotations

import re

from atlas_core.markdown.gitbook import clean

# Tags that carry no meaning a hover can show: their text stays, the tags go.
_DROPPED_TAGS = (
    "span|div|u|ins|font|small|big|center|sup|sub|section|article|header|footer|abbr|cite|"
    "dl|dd|dt|thead|tbody|tfoot|caption|colgroup|col|label|nobr|wbr|mark|q|s|strike|del"
)
_DROPPED_RE = re.compile(rf"</?(?:{_DROPPED_TAGS})\b[^<>]*>", re.IGNORECASE)
_TT_RE = re.compile(r"<(tt|kbd|samp|var)\b[^<>]*>([^<>`]*)</\1\s*>", re.IGNORECASE)
# Whatever still reads as a tag, opening or closing: escaped, so it shows as written.
_LEFT_TAG_RE = re.compile(r"<(/?[A-Za-z][\w:-]*\b[^<>\n]*)>")
_CODE_SPAN_RE = re.compile(r"(`+)[^`\n]*?\1")


def spec_markdown(text: str) -> str:
    """A spec description (HTML, markdown or both) as markdown with no raw HTML tags."""
    if not text:
        return ""
    body = _TT_RE.sub(lambda m: f"`{m.group(2)}`", text.replace("\r\n", "\n"))
    body = clean(_DROPPED_RE.sub("", body))
    return _escape_tags(body).strip()


def spec_inline(text: str, limit: int = 0) -> str:
    """`spec_markdown` on one line (a table cell, a hover list item): paragraphs and list
    items joined by spaces; cut at a word and marked with "…" past `limit` characters."""
    flat = " ".join(spec_markdown(text).split())
    if limit and len(flat) > limit:
        flat = flat[: limit - 1].rsplit(" ", 1)[0].rstrip() + "…"
    return flat


def _escape_tags(text: str) -> str:
    """`<word ...>` outside code spans and fences becomes `\\<word ...>`: text in markdown."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or "<" not in line:
            out.append(line)
            continue
        pieces: list[str] = []
        last = 0
        for m in _CODE_SPAN_RE.finditer(line):
            pieces.append(_LEFT_TAG_RE.sub(r"\\<\1>", line[last : m.start()]))
            pieces.append(m.group(0))
            last = m.end()
        pieces.append(_LEFT_TAG_RE.sub(r"\\<\1>", line[last:]))
        out.append("".join(pieces))
    return "\n".join(out)
