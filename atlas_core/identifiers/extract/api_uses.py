"""The API calls a docs page shows in use: each call in its fenced code blocks (read with the
same call reader the checks use, `atlas_core.recognize.scan_calls`), each ``curl`` command written
in prose, and each request line or URL with a query string in the text (``GET /rest/2.0/assets``,
``https://<host>/rest/2.0/assets?offset=3000&countLimit=0``).

A use is (method, URL as written, the query and body keys it shows, the page and line). The API
model counts the names as known for the operation the URL resolves to, and the endpoint as
existing when no spec describes it.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from atlas_core.recognize import BODY, ENDPOINT, QUERY, scan_calls

MAX_USES_PER_PAGE = 500
MAX_LINE = 4000
_SCAN_BUDGET_S = 0.5  # per page; a page the reader cannot finish in time keeps what it found
_REQUEST_LINE = re.compile(
    r"(?<![\w/])\b(GET|POST|PUT|PATCH|DELETE)\b[*`]*[ \t]+`?((?:https?://|<|\{|\$)?[^\s`'\"]*/[^\s`'\"]*)"
)
_URL = re.compile(r"""(?:https?://[^\s/`'"<>]+|https?://<[^>\s]+>|<[\w.-]+>)?/rest/[^\s`'"()\]]+""")
_CURL = re.compile(r"^\s*(?:\$\s+)?curl\b")
_KEY = re.compile(r"^[A-Za-z_][\w.\-\[\]]{0,99}$")


def page_uses(page: str, url: str, text: str) -> list[dict[str, Any]]:
    """The calls `text` (one markdown page) shows, merged per (method, URL)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}

    def add(method: str, target: str, line: int, query: Any = (), body: Any = ()) -> None:
        if not method or not target or len(found) >= MAX_USES_PER_PAGE:
            return
        use = found.setdefault(
            (method, target),
            {
                "method": method,
                "target": target,
                "query": [],
                "body": [],
                "page": page,
                "url": url,
                "line": line,
            },
        )
        for into, names in (("query", query), ("body", body)):
            for name in names:
                if _KEY.match(name) and name not in use[into]:
                    use[into].append(name)

    for item in scan_calls(text, "markdown", budget_s=_SCAN_BUDGET_S):
        _add_site(add, item.site, item.line + 1)
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if len(line) > MAX_LINE:
            continue
        if _CURL.match(line):
            command = _continued(lines, number)
            for item in scan_calls(command, "shell", budget_s=_SCAN_BUDGET_S):
                _add_site(add, item.site, number + 1)
            for m in _URL.finditer(command):
                method = _curl_method(command)
                add(method, _target(m.group()), number + 1, _query_keys(m.group()))
            continue
        taken: list[tuple[int, int]] = []
        for m in _REQUEST_LINE.finditer(line):
            written = m.group(2)
            taken.append(m.span(2))
            add(m.group(1), _target(written), number + 1, _query_keys(written))
        for m in _URL.finditer(line):
            if "?" in m.group() and not any(a <= m.start() < b for a, b in taken):
                # A URL with a query string in prose is a GET a reader can paste.
                add("GET", _target(m.group()), number + 1, _query_keys(m.group()))
    return list(found.values())


def _add_site(add: Any, site: Any, line: int) -> None:
    if site.loose or not site.method or not site.url or site.nested:
        return
    if site.role == ENDPOINT:
        add(site.method, site.url, line)
    elif site.role == QUERY:
        add(site.method, site.url, line, query=(site.name,))
    elif site.role == BODY:
        add(site.method, site.url, line, body=(site.name,))


def _continued(lines: list[str], number: int) -> str:
    """A shell command with its backslash-continued lines (at most 40)."""
    out = [lines[number]]
    at = number
    while out[-1].rstrip().endswith("\\") and at + 1 < len(lines) and len(out) < 40:
        at += 1
        out.append(lines[at])
    return "\n".join(out)


def _curl_method(command: str) -> str:
    m = re.search(r"(?:-X|--request)\s*['\"]?([A-Z]+)", command)
    if m:
        return m.group(1)
    return "POST" if re.search(r"\s(?:-d|--data[\w-]*|--json)\b", command) else "GET"


def _target(written: str) -> str:
    """The URL as the call reader spells it: unknown parts (``<host>``, ``{id}``) kept, no
    query string, no trailing punctuation of the sentence."""
    return re.split(r"[?#]", written, maxsplit=1)[0].rstrip(".,;:)")


def _query_keys(written: str) -> list[str]:
    if "?" not in written:
        return []
    query = written.split("?", 1)[1].split("#", 1)[0].rstrip(".,;:)")
    return [k for k, _ in parse_qsl(query, keep_blank_values=True)][:50]
