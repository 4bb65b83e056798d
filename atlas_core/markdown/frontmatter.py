"""Reading markdown files: strict UTF-8, YAML front matter split off, a title found."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from atlas_core.errors import SourceError
from atlas_core.markdown.outline import MAX_HEADING_CHARS, atx_heading, plain_heading
from atlas_core.safeio import LimitExceeded, display_path, load_yaml, read_regular_file
from atlas_core.types import Document

MARKDOWN_SUFFIXES = (".md", ".markdown")
# Front matter is a handful of keys; this leaves room for long tag lists and nothing like a bomb.
FRONT_MATTER_MAX_NODES = 10_000

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def decode_utf8(data: bytes, name: str) -> str:
    """Bytes as text with LF line ends; a non-UTF-8 file is an error naming the byte offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{name}: not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start})",
            hint="convert the file to UTF-8 (e.g. `iconv -f latin1 -t utf-8`) or remove it",
            path=name,
        ) from None
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path, name: str | None = None) -> str:
    """A regular file (never through a link) as UTF-8 text."""
    display = name or display_path(path)
    return decode_utf8(read_regular_file(path, display), display)


def split_front_matter(
    text: str, name: str = "", *, strict: bool = True
) -> tuple[dict[str, Any], str]:
    """(front matter mapping, body). Front matter is a leading `---` block closed by `---`/`...`.

    `strict` (building a bundle): front matter that cannot be read is a SourceError naming the file
    and line, values come back JSON-friendly (dates as ISO strings), and the body starts at its
    first non-empty line. Lenient (the crawler reading pages off the web, the MCP mirror listing
    titles): such a page is all body, values come back as YAML gave them and the body is exactly
    what follows the block. Both read YAML through the same bounded loader, so a page built to
    expand without end costs nothing in either mode.
    """
    lines = text.split("\n")
    opened = text.startswith("---\n") if strict else lines[0].strip() == "---"
    if not opened:
        return {}, text
    ends = ("---", "...")
    end = next(
        (
            i
            for i in range(1, len(lines))
            if (lines[i].rstrip() if strict else lines[i].strip()) in ends
        ),
        None,
    )
    if end is None:
        return {}, text  # a thematic break at the top, not front matter
    block = "\n".join(lines[1:end])
    try:
        meta = load_yaml(block, max_nodes=FRONT_MATTER_MAX_NODES) if block.strip() else {}
    except LimitExceeded as exc:
        if not strict:
            return {}, text
        # Refused like any other front matter that cannot be read: the build stops and names the
        # file. Indexing the page without its front matter would quietly change its title and URL,
        # and a file built to cost minutes of CPU is worth a maintainer's look, not a warning.
        line = exc.problem_mark.line + 2 if exc.problem_mark is not None else 1
        raise SourceError(
            f"{name}:{line}: front matter refused: {exc.problem}",
            hint="keep front matter to a few plain keys: no YAML aliases (&name, *name), deep "
            "nesting or numbers thousands of digits long (quote such a value to keep it as text)",
            path=name,
        ) from None
    except yaml.YAMLError as exc:
        if not strict:
            return {}, text
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
        raise SourceError(
            f"{name}:{line}: front matter is not valid YAML ({problem})",
            hint="fix the YAML between the leading `---` lines (quote values containing ': ')",
            path=name,
        ) from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        if not strict:
            return {}, text
        raise SourceError(
            f"{name}:2: front matter is a {type(meta).__name__}, expected `key: value` pairs",
            hint="write front matter as a YAML mapping, e.g. `title: My page`",
            path=name,
        )
    if not strict:
        return meta, "\n".join(lines[end + 1 :])
    body = "\n".join(lines[end + 1 :]).lstrip("\n")
    return {str(k): _plain(v) for k, v in meta.items()}, body


def _plain(value: Any) -> Any:
    """YAML values as JSON-friendly ones (dates become ISO strings) for the manifest and Parquet."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def first_h1(text: str) -> str:
    """The first ATX H1 outside code fences, or ""."""
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE_RE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if fence is None:
            h = atx_heading(line)
            if h is not None and h[0] == 1 and h[1]:
                return plain_heading(h[1])
    return ""


def title_for(meta: dict[str, Any], body: str, stem: str) -> str:
    """Front matter `title`, else the first H1, else the file stem; as long as a heading at most,
    since every chunk of the page repeats it."""
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()[:MAX_HEADING_CHARS].rstrip()
    return first_h1(body) or stem


def is_markdown(name: str) -> bool:
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def markdown_document(
    rel_path: str,
    text: str,
    *,
    source: str,
    publication: str,
    clean_gitbook: bool,
    display_name: str,
    url: str = "",
    extra: dict[str, Any] | None = None,
) -> Document:
    """A Document from a markdown file's text: front matter to metadata, body optionally cleaned."""
    # CommonMark replaces NUL with U+FFFD; doing it here also keeps NUL out of the bundle's text.
    text = text.replace("\x00", "\ufffd")
    meta, body = split_front_matter(text, display_name)
    if clean_gitbook:
        from atlas_core.markdown.gitbook import clean

        body = clean(body)
    source_url = meta.get("source_url") or meta.get("url")
    if isinstance(source_url, str) and source_url.strip():
        url = source_url.strip()
    metadata = dict(extra or {})
    metadata.update(meta)
    stem = rel_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return Document(
        path=rel_path,
        publication=publication,
        title=title_for(meta, body, stem),
        url=url,
        text=body,
        source=source,
        metadata=metadata,
    )
