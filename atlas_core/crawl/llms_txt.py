"""Reading an llms.txt index: which pages a docs site offers, grouped by section.

An index is markdown: optional headings name sections, and markdown links point at pages. A link to
a `.md` file is fetched as is; a link without an extension is fetched in its markdown form,
``<url>.md``; a link to another ``llms*.txt`` file is a nested index, read the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_SLUG_DROP = re.compile(r"[^a-z0-9]+")
_SEGMENT_DROP = re.compile(r"[^A-Za-z0-9._-]+")

DEFAULT_SECTION = "docs"


@dataclass(frozen=True, slots=True)
class IndexLink:
    """One link of an index: the page to fetch and the section it is filed under."""

    url: str  # what to fetch: absolute, no fragment, markdown form
    title: str
    section: str  # slug of the heading it appeared under
    nested: bool = False  # another llms.txt index, not a page


def slugify(text: str) -> str:
    slug = _SLUG_DROP.sub("-", text.lower()).strip("-")
    return slug or DEFAULT_SECTION


def markdown_url(url: str) -> str | None:
    """The URL to fetch for a link: `.md` kept, extension-less pages get `.md`; None to skip."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return None
    path = parts.path or "/"
    last = path.rsplit("/", 1)[-1]
    if last.endswith((".md", ".markdown", ".txt")):
        pass
    elif "." in last:
        return None  # an image, a PDF, an HTML page: not documentation in markdown
    else:
        path = path.rstrip("/") + ".md" if path != "/" else "/index.md"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def is_index_url(url: str) -> bool:
    last = urlsplit(url).path.rsplit("/", 1)[-1].lower()
    return last.endswith(".txt") and last.startswith("llms") and "full" not in last


def parse_index(
    text: str, base_url: str, *, default_section: str = DEFAULT_SECTION
) -> list[IndexLink]:
    """All links of an index, in order, deduplicated by URL.

    Sections come from H2-H6 headings (an H1 names the site, not a section). Links inside code
    fences are ignored.
    """
    section = default_section
    links: list[IndexLink] = []
    seen: set[str] = set()
    in_fence = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = _HEADING.match(stripped)
        if heading:
            if len(heading.group(1)) >= 2:
                section = slugify(heading.group(2))
            continue
        found = [(m.group(1), m.group(2)) for m in _LINK.finditer(line)]
        found += [("", m.group(1)) for m in _AUTOLINK.finditer(line)]
        for title, href in found:
            absolute = urljoin(base_url, href.strip())
            nested = is_index_url(absolute)
            url = markdown_url(absolute)
            if url is None or url in seen:
                continue
            if url.endswith(".txt") and not nested:
                continue
            seen.add(url)
            links.append(IndexLink(url=url, title=title.strip(), section=section, nested=nested))
    return links


def mirror_relpath(url: str, index_host: str) -> str:
    """Where a page lands under ``markdown/<section>/``: its URL path, made safe.

    Every segment is percent-decoded and reduced to a safe alphabet; ``.``, ``..`` and empty
    segments are dropped, so no URL can name a place outside the section folder. Pages from a host
    other than the index's (allowed with --allow-host) sit under a folder named for that host.
    """
    parts = urlsplit(url)
    segments: list[str] = []
    for raw in unquote(parts.path).replace("\\", "/").split("/"):
        segment = _SEGMENT_DROP.sub("-", raw).strip("-")
        if segment in ("", ".", "..") or set(segment) == {"."}:
            continue
        segments.append(segment)
    if not segments:
        segments = ["index.md"]
    if not segments[-1].endswith(".md"):
        segments[-1] = segments[-1].rsplit(".", 1)[0] + ".md"
    host = (parts.hostname or "").lower()
    if host and host != index_host.lower():
        segments.insert(0, _SEGMENT_DROP.sub("-", host))
    return "/".join(segments)
