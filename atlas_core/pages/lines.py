"""Matching lines across the mirrors a `MirrorSet` serves, each placed in its page's section.

The one text search every host asks: which mirrors and folders to search for a publication, one
time budget for all of them, the matches of files that are not served dropped, and each match's
heading, section and web URL (the page's outline read once, by `reader.Outlines`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from atlas_core.pages.grep import search_text
from atlas_core.pages.mirror import Mirror, MirrorSet


@dataclass(frozen=True, slots=True)
class LineMatch:
    """One matching line of a served page."""

    bundle: str  # the name results carry ("" with one mirror)
    file: str
    line: int  # 1-based
    text: str  # the line, cut around the match
    heading: str  # the section the line is in
    line_start: int
    line_end: int
    url: str


@dataclass(frozen=True, slots=True)
class LineSearch:
    matches: tuple[LineMatch, ...]
    truncated: bool  # more matches exist, or the time ran out before every mirror was searched
    engine: str  # "python" when any mirror was searched without ripgrep, else "ripgrep"


def files_in_scope(docs: MirrorSet, publication: str | None, bundle: str | None) -> int:
    """How many files `search_lines` with these arguments searches (an unknown publication or
    bundle raises the QueryError that names the known ones)."""
    if publication is not None:
        return sum(len(files) for _, _, files in docs.files_of(publication, bundle))
    return sum(len(mirror.files) for _, mirror in docs.select(bundle))


def search_lines(
    docs: MirrorSet,
    pattern: str,
    *,
    publication: str | None = None,
    bundle: str | None = None,
    regex: bool = False,
    case_sensitive: bool = False,
    max_results: int = 50,
    timeout: float = 10.0,
    ripgrep: str | None = None,
) -> LineSearch:
    """Lines matching `pattern` in the mirrors `bundle` selects (every one when None), in
    `publication` only when given, at most `max_results`, within `timeout` seconds for all of
    them, ripgrep chosen by the `ripgrep` setting (`grep.find_ripgrep`). Blocking: a server
    calls it off its event loop. QueryError for a bad pattern, an
    unknown publication or bundle; SearchTimeout when the deadline passes inside a search."""
    targets: list[tuple[str, Mirror, tuple[str, ...]]] = []
    if publication is not None:
        for name, mirror, _ in docs.files_of(publication, bundle):
            targets.append((name, mirror, mirror.search_paths(publication)))
    else:
        targets = [(name, mirror, ()) for name, mirror in docs.select(bundle)]
    found: list[LineMatch] = []
    engines: set[str] = set()
    truncated = False
    budget = timeout
    for name, mirror, paths in targets:
        if len(found) >= max_results or budget <= 0:
            truncated = True
            break
        started = time.monotonic()
        result = search_text(
            mirror.root,
            pattern,
            paths=paths,
            regex=regex,
            case_sensitive=case_sensitive,
            max_results=max_results - len(found),
            timeout=budget,
            ripgrep=ripgrep,
        )
        budget -= time.monotonic() - started
        engines.add(result.engine)
        truncated = truncated or result.truncated
        found += _placed(mirror, docs.tag(name), [(m.file, m.line, m.text) for m in result.matches])
    engine = "python" if "python" in engines else "ripgrep"
    return LineSearch(matches=tuple(found), truncated=truncated, engine=engine)


def _placed(mirror: Mirror, bundle: str, matches: list[tuple[str, int, str]]) -> list[LineMatch]:
    out = []
    for file, line, text in matches:
        if not mirror.has(file):  # in the folder but not served (unlisted, a credential)
            continue
        section = mirror.section_at(file, line)
        out.append(
            LineMatch(
                bundle=bundle,
                file=file,
                line=line,
                text=text,
                heading=section.heading,
                line_start=section.line_start,
                line_end=section.line_end,
                url=mirror.meta(file).url,
            )
        )
    return out
