"""Reference structure of the written pages: client methods, model pages, `api/` operations and
objects, workflow beans, and the REST calls their code examples make."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchmarks.devset.casing import norm, words
from benchmarks.devset.pages import Page
from benchmarks.devset.spec import Op


@dataclass(slots=True)
class Written:
    """Definition sites in written pages that the rules need, by kind."""

    client_ops: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    client_params: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    model_page: dict[str, str] = field(default_factory=dict)  # title -> file
    model_props: dict[str, set[str]] = field(default_factory=dict)  # file -> normalised names
    api_ops: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (h1, h2) -> files
    api_objects: dict[str, str] = field(default_factory=dict)
    beans: dict[str, str] = field(default_factory=dict)


_CLIENT_ROW_RE = re.compile(r"^\[\*\*(\w+)\*\*\]\([^)]*\)\s*\|\s*\*\*(\w+)\*\*\s+(\S+)\s*\|")
_CLIENT_SECTION_RE = re.compile(r"^#\s+\*\*(\w+)\*\*\s*$")
_CLIENT_PARAM_RE = re.compile(r"^\s*\*\*(\w+)\*\*\s*\|")


def read_written(pages: dict[str, Page]) -> Written:
    w = Written()
    for page in pages.values():
        if page.section == "rest-core":
            sections: dict[str, list[str]] = {}
            current = ""
            for line in page.lines:
                m = _CLIENT_SECTION_RE.match(line)
                if m:
                    current = m.group(1)
                    sections[current] = []
                elif current:
                    sections[current].append(line)
            for line in page.lines:
                m = _CLIENT_ROW_RE.match(line)
                if m and m.group(1) in sections:
                    w.client_ops[(m.group(2).upper(), m.group(3))] = (m.group(1), page.file)
                    table = False
                    names: set[str] = set()
                    for row in sections[m.group(1)]:
                        if row.startswith("###"):
                            table = row.strip() == "### Parameters"
                        elif table:
                            pm = _CLIENT_PARAM_RE.match(row)
                            if pm:
                                names.add(norm(pm.group(1)))
                    w.client_params[(page.file, m.group(1))] = names
        elif page.section == "rest-core-models":
            w.model_page[page.title] = page.file
            w.model_props[page.file] = {
                norm(m.group(1)) for line in page.lines if (m := _CLIENT_PARAM_RE.match(line))
            }
        elif page.section == "api":
            h1 = ""
            for line in page.lines:
                m = re.match(r"^(#{1,2})\s+(.*)$", line)
                if not m:
                    continue
                if m.group(1) == "#":
                    h1 = words(m.group(2))
                else:
                    obj = re.fullmatch(r"The (\w+) object", m.group(2).strip())
                    if obj:
                        w.api_objects[obj.group(1)] = page.file
                    else:
                        w.api_ops.setdefault((h1, words(m.group(2))), []).append(page.file)
        elif page.section == "workflows":
            for line in page.lines:
                m = re.fullmatch(r"\s*([A-Z][A-Za-z0-9]+) bean\s*", line)
                if m:
                    w.beans.setdefault(m.group(1), page.file)
    return w


def api_pages_of(op: Op, w: Written) -> list[str]:
    return list(w.api_ops.get((words(op.tag), words(op.summary)), []))


def call_examples(pages: dict[str, Page]) -> list[tuple[str, str, str]]:
    """(method, URL path, file) of every REST call written as `curl ...` or
    `conn.request("M", "/p", ...)` in a code context."""
    calls: list[tuple[str, str, str]] = []
    for page in pages.values():
        joined = re.sub(r"\\\n\s*", " ", page.text)
        for line in joined.split("\n"):
            if not (page.partial or line.lstrip().startswith("curl") or "conn.request" in line):
                continue
            m = re.search(r"\bcurl\b(.*)", line)
            if m:
                rest = m.group(1)
                url = re.search(r"""['"]?((?:https?://[^\s'"]*?)?(/rest/[^\s'"?]+))""", rest)
                if not url:
                    continue
                method = re.search(r"-X\s+([A-Z]+)", rest)
                verb = (
                    method.group(1)
                    if method
                    else ("POST" if re.search(r"\s-[dF]\s", rest) else "GET")
                )
                calls.append((verb, url.group(2), page.file))
            m = re.search(r"""conn\.request\(\s*["']([A-Z]+)["']\s*,\s*["'](/rest/[^"']+)""", line)
            if m:
                calls.append((m.group(1), m.group(2), page.file))
    return calls


def template_re(path: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", path)
    return re.compile(
        "^" + "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts) + "$"
    )
