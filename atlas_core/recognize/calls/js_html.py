"""An HTML document's inline scripts, read as one JavaScript document.

Everything outside the ``<script>`` elements that hold JavaScript becomes spaces (line breaks
kept), so every line and column of the result is the line and column of the HTML; the scripts of
one page share one global scope, as they do in the browser.
"""

from __future__ import annotations

import re

_SCRIPT = re.compile(r"(?is)<script\b([^>]*)>(.*?)</script\s*>")
_TYPE = re.compile(r"""(?i)\btype\s*=\s*["']?([^"'\s>]+)""")
_SCRIPT_TYPES = frozenset(
    {"text/javascript", "application/javascript", "module", "text/ecmascript", "text/babel"}
)
_NOT_NEWLINE = re.compile(r"[^\n]")


def script_text(html: str) -> str:
    """`html` with everything but its inline JavaScript blanked out."""
    if "<script" not in html and "<SCRIPT" not in html:
        return _NOT_NEWLINE.sub(" ", html)
    parts: list[str] = []
    last = 0
    for match in _SCRIPT.finditer(html):
        kind = _TYPE.search(match.group(1))
        if kind is not None and kind.group(1).lower() not in _SCRIPT_TYPES:
            continue  # a template, JSON data, a shader: no JavaScript
        start, end = match.span(2)
        parts.append(_NOT_NEWLINE.sub(" ", html[last:start]))
        parts.append(html[start:end])
        last = end
    parts.append(_NOT_NEWLINE.sub(" ", html[last:]))
    return "".join(parts)
