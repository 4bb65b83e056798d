"""An HTML document's inline scripts, read as one JavaScript document.

Everything outside the ``<script>`` elements that hold JavaScript becomes spaces (line breaks
kept), so every line and column of the result is the line and column of the HTML; the scripts of
one page share one global scope, as they do in the browser. A page that is a server template
(Jinja, Django, EJS) keeps its tags in the scripts too: statement tags (``{% if token %}``,
``<% if (a) { %>``) become spaces and an expression standing as a value
(``const rows = {{ rows|tojson }};``) a ``0``, so that the script parses; a tag inside a string
stays the string's text.
"""

from __future__ import annotations

import re

_SCRIPT = re.compile(r"(?is)<script\b([^>]*)>(.*?)</script\s*>")
_TYPE = re.compile(r"""(?i)\btype\s*=\s*["']?([^"'\s>]+)""")
_SCRIPT_TYPES = frozenset(
    {"text/javascript", "application/javascript", "module", "text/ecmascript", "text/babel"}
)
_NOT_NEWLINE = re.compile(r"[^\n]")
# A start tag, and an event handler attribute in it with its code (`code`, up to its quote).
_TAG = re.compile(r"(?i)<[a-z][^<>]*>")
_HANDLER = re.compile(r"""(?i)\son[a-z]+\s*=\s*(?P<q>["'])(?P<code>(?:(?!(?P=q)).)*)(?P=q)""")
_STATEMENT_TAG = re.compile(r"(?s)\{%.*?%\}|\{#.*?#\}|<%(?![=-]).*?%>")
_VALUE_TAG = re.compile(r"(?s)\{\{.*?\}\}|<%[=-].*?%>")
_BEFORE_VALUE = frozenset("=(,:[?")


def script_text(html: str) -> str:
    """`html` with everything but its inline JavaScript blanked out."""
    if "<script" not in html and "<SCRIPT" not in html:
        return _markup(html)
    parts: list[str] = []
    last = 0
    for match in _SCRIPT.finditer(html):
        kind = _TYPE.search(match.group(1))
        if kind is not None and kind.group(1).lower() not in _SCRIPT_TYPES:
            continue  # a template, JSON data, a shader: no JavaScript
        start, end = match.span(2)
        parts.append(_markup(html[last:start]))
        parts.append(_untemplated(html[start:end]))
        last = end
    parts.append(_markup(html[last:]))
    return "".join(parts)


def _markup(html: str) -> str:
    """Markup blanked out but for its event handlers' code (``onclick="load('/x')"``), each a
    statement of its own where it is written."""
    parts: list[str] = []
    last = 0
    for tag in _TAG.finditer(html) if "on" in html else ():
        for handler in _HANDLER.finditer(tag.group()):
            start, end = (tag.start() + at for at in handler.span("code"))
            parts += [_NOT_NEWLINE.sub(" ", html[last:start]), html[start:end], ";"]
            last = end + 1  # the closing quote ends the statement
    parts.append(_NOT_NEWLINE.sub(" ", html[last:]))
    return "".join(parts)


def _untemplated(script: str) -> str:
    """A script with its template tags made JavaScript of the same lines and columns."""
    if "{%" not in script and "{{" not in script and "{#" not in script and "<%" not in script:
        return script
    script = _STATEMENT_TAG.sub(lambda m: _NOT_NEWLINE.sub(" ", m.group()), script)

    def value(match: re.Match[str]) -> str:
        before = script[max(0, match.start() - 80) : match.start()].rstrip()
        if not before or (before[-1] not in _BEFORE_VALUE and not before.endswith("return")):
            return match.group()  # in a string, or glued to other text: left as written
        blank = _NOT_NEWLINE.sub(" ", match.group())
        return "0" + blank[1:]

    return _VALUE_TAG.sub(value, script)
