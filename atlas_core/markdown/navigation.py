"""Passages that only help a reader move around a site: the chunker drops them.

A passage is **navigation-only** when it has at least one non-blank line and every non-blank line
is one of these (a line inside a code fence never is; a passage with a fence line is kept):

- a heading line (`#` .. `######`): a heading alone says nothing that the heading path of the
  chunks below it does not,
- a thematic break (`---`, `***`, `___`) or an empty HTML anchor (`<a name="files"></a>`),
- links and nothing else: inline links, reference links or bare URLs, with only spaces, commas,
  pipes, middle dots, bullets or dashes between them, optionally as a list item or a quote
  (`[[Back to top]](#) [[Back to API list]](../README.md#...)`, `- [Assets](assets.md)`),
- a breadcrumb: two or more parts separated by `>`, `›` or `»`, every part but the last a link
  (`[Home](/) > [REST API](/rest) > Assets`),
- an authentication-scheme stub as a list item, the line openapi-generator writes above every
  code example (`* Basic Authentication (basicAuth):`, `* Api Key Authentication (apiKey):`).

Anything else is content: a sentence, a table row, a code line, a link with words around it,
an image. One content line keeps the whole passage.

Back-links (`[[Back to Model list]](...)`, `[[Back to top]](#)`), which close every operation and
model section of a generated client's docs, are navigation too, but a passage with one is kept:
measured on the Collibra docs' development queries (`atlas evaluate --golden
benchmarks/dev_queries.jsonl`), dropping them took hybrid MRR@10 from 0.805 to 0.789 and Hit@1
from 0.68 to 0.65 (the learned ranking counts them as evidence for their page), while dropping
everything else and keeping them gives 0.807.
"""

from __future__ import annotations

import re

from atlas_core.markdown.outline import ATX_RE, FENCE_RE

_LIST_OR_QUOTE = re.compile(r"^(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+)?")
_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # [text], [[text]], [**text**]
    r"(?:\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)|\[[^\[\]]*\])"  # (url "title") or [ref]
    r"|<https?://[^\s>]+>|https?://\S+"
)
_BETWEEN_LINKS = re.compile(r"[\s,|·•–—-]*")
_BREADCRUMB_SEP = re.compile(r"\s+[>›»]\s+")
_RULE = re.compile(r"(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})")
_EMPTY_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"[^\"]*\"\s*>\s*</a>", re.IGNORECASE)
_AUTH_STUB = re.compile(r"[-*+]\s+[\w ()-]*?Authentication\s+\([\w.-]+\):?")
_BACK_LINK = re.compile(r"\[\[Back to ", re.IGNORECASE)


def _links_only(text: str) -> bool:
    if text.startswith("!"):  # an image is content
        return False
    rest = _LINK.sub("\x00", text)
    return "\x00" in rest and _BETWEEN_LINKS.fullmatch(rest.replace("\x00", "")) is not None


def _breadcrumb(text: str) -> bool:
    parts = _BREADCRUMB_SEP.split(text)
    return len(parts) >= 2 and all(_LINK.fullmatch(p) for p in parts[:-1])


def is_navigation_line(line: str) -> bool:
    """One line of a passage is navigation (module docstring); blank lines are not."""
    text = line.strip()
    if not text:
        return False
    if ATX_RE.match(line) or _RULE.fullmatch(text) or _EMPTY_ANCHOR.fullmatch(text):
        return True
    if _AUTH_STUB.fullmatch(text):
        return True
    item = _LIST_OR_QUOTE.sub("", text, count=1)
    return _links_only(item) or _breadcrumb(item)


def is_navigation_only(text: str) -> bool:
    """The passage is nothing but headings, links, breadcrumbs and stubs (module docstring)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines or any(FENCE_RE.match(line) or _BACK_LINK.search(line) for line in lines):
        return False  # a fence is code; a back-link is kept (module docstring)
    return all(is_navigation_line(line) for line in lines)
