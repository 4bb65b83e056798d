"""Raw HTTP request lines: ``GET /rest/2.0/assets?name=x`` in a ``.http`` file (REST clients), an
``http`` code block, a line of markdown prose, or a Postman collection's request (its ``method``
and its URL's ``raw``), read as a call: the method, the URL (query string aside) and each query
key with its value.

Only a method word in capitals followed by a URL with a path counts, so "GET requests" or "use
GET" is prose; the checks then judge the URL as they judge any call's (a visibly Collibra base or
a documented resource).
"""

from __future__ import annotations

import re
from dataclasses import replace

from atlas_core.recognize.calls.scan_sites import Located, with_value
from atlas_core.recognize.calls.site import ENDPOINT, HTTP, QUERY, QUERY_KEY, CallSite, tidy_url

# A URL's characters, and a placeholder in angle brackets (`<host>`, `/assets/<asset-id>`) as one
# part of it (a tag such as ``</summary>`` is none); after the first "/", a ")" or "]" ends it
# (markdown's link or list around it). The host part before that first "/" has no "/" of its own,
# else `[GET /rest/2.0/x](https://docs/y)` would run on to the link's last "/". Between the method
# and its URL: spaces, after a colon or bracket (``GET: /x``, ``[GET] /x``) or around a dash.
_URL_CHAR = r"[^\s`'\"<>]"
_HOST_CHAR = r"[^\s`'\"<>/]"
_PLACEHOLDER = r"<[^\s<>`'\"/]+>"
_REQUEST_LINE = re.compile(
    r"(?<![\w/])(GET|POST|PUT|PATCH|DELETE)[*`\]]*:?(?:[ \t]+[-\u2013][ \t]*|[ \t]+)`?"
    rf"((?:https?://|\{{|\$)?(?:{_PLACEHOLDER}|{_HOST_CHAR})*"
    rf"/(?:{_PLACEHOLDER}|(?![)\]]){_URL_CHAR})*)"
)
MAX_LINE = 4000
# A Postman collection (v2.x): a request's `"method": "POST"`, then its URL as `"raw": "..."` (or
# `"url": "..."`) a few lines below.
_POSTMAN = ("schema.getpostman.com", "_postman_id")
_POSTMAN_METHOD = re.compile(r'"method"\s*:\s*"(GET|POST|PUT|PATCH|DELETE)"')
_POSTMAN_URL = re.compile(r'^\s*"(?:raw|url)"\s*:\s*"((?:\{\{|https?://|/)[^"\\]*)"')
_MAX_POSTMAN_CHARS = 4_000_000


def request_line_sites(line: str, language: str, *, bare: bool = True) -> list[CallSite]:
    """The endpoint and query-key sites of the request lines on one line of text; in markdown,
    a URL without ``/rest/`` (``GET /users?page=2``) only where `bare`: the document writes the
    API's base path elsewhere, else it may be any web API's."""
    if len(line) > MAX_LINE or not any(
        m in line for m in ("GET", "POST", "PUT", "PATCH", "DELETE")
    ):
        return []
    sites: list[CallSite] = []
    for m in _REQUEST_LINE.finditer(line):
        method, url = (
            m.group(1),
            m.group(2).rstrip(".,;:!?*"),
        )  # a sentence's end or bold is no path
        if not bare and language == "markdown" and "/rest/" not in url:
            continue
        start = m.start(2)
        end = start + len(url)
        endpoint = tidy_url(re.sub(r"<[^>]*>|\{\{[^}]*\}\}|\$\{?\w+\}?", "{}", url))
        sites.append(CallSite(method, endpoint, ENDPOINT, "", start, end, HTTP, language))
        keys = tuple(k.group(1) for k in QUERY_KEY.finditer(url))
        for k in QUERY_KEY.finditer(url):
            sites.append(
                CallSite(
                    method,
                    endpoint,
                    QUERY,
                    k.group(1),
                    start + k.start(1),
                    start + k.end(1),
                    HTTP,
                    language,
                    path_keys=keys,
                )
            )
    return sites


def table_row_line(row: str) -> str:
    """A markdown table row with its cell bars blanked (columns kept), so that a method in one
    cell and its path in the next (``| GET | /rest/2.0/assets |``) read as one request line; ""
    for a row without a whole API URL: a generated client's table of its operations
    (``| [**add_asset**](...) | **POST** /assets | Add asset |``) lists paths, it calls none."""
    if "/rest/" not in row and "://" not in row:
        return ""
    return row.replace("|", " ")


def postman_lines(text: str) -> list[tuple[int, str]]:
    """A Postman collection's requests as request lines, each on the line of its URL with the URL
    in its own columns (its ``{{variables}}`` read as unknown parts); [] for any other JSON."""
    if len(text) > _MAX_POSTMAN_CHARS or not any(mark in text[:2000] for mark in _POSTMAN):
        return []
    lines: list[tuple[int, str]] = []
    method = ""
    for number, content in enumerate(text.split("\n")):
        methods = _POSTMAN_METHOD.findall(content)
        if methods:
            method = methods[-1]
        m = _POSTMAN_URL.match(content)
        if m is None or not method:
            continue
        pad = m.start(1) - len(method) - 1
        if pad >= 0:
            lines.append((number, " " * pad + method + " " + m.group(1)))
        method = ""
    return lines


# A README's request written as labelled fields rather than one line: ``Method: POST`` and, a
# line or two from it, ``URL: https://<host>/rest/2.0/assets`` (bold, code spans or a list's
# dashes around them); and a table whose path column comes before its method column.
_METHOD_LABEL = re.compile(
    r"\b(?i:method|verb)\b[*_`\s]*[:=|\-\u2013]?[*_`\s]*(GET|POST|PUT|PATCH|DELETE)\b"
)
_URL_LABEL = re.compile(
    r"\b(?i:url|uri|endpoint|path|route|request url)\b[*_`\s]*[:=][*_\s]*`?(?=https?://|\{\{|\$|<|/)"
)
_METHOD_CELL = re.compile(r"^[\s*_`]*(GET|POST|PUT|PATCH|DELETE)[\s*_`]*$")
_URL_CELL = re.compile(r"^[\s*_`]*(?=https?://|\{\{|\$|/)")
_PAIR_LINES = 3  # how far apart a method's label and its URL's may be


def labelled_requests(
    lines: list[tuple[int, str]], language: str, *, bare: bool = True
) -> list[Located]:
    """The request sites of labelled fields (``Method: POST`` near ``URL: /rest/2.0/assets``)
    and of table rows whose path cell comes before their method cell, each on its URL's line;
    only where that line has no request line of its own. `bare` as in `request_line_sites`."""
    found: list[tuple[int, str, CallSite]] = []
    methods: list[tuple[int, str]] = []  # (line, method) of labels not paired yet
    urls: list[tuple[int, str, int]] = []  # (line, text, URL column) of labels not paired yet
    for number, content in lines:
        if len(content) > MAX_LINE or request_line_sites(content, language, bare=bare):
            continue
        row = _row_request(content)
        if row is not None:
            found += [(number, content, s) for s in _sites_at(content, *row, language, bare)]
            continue
        method = _METHOD_LABEL.search(content)
        url = _URL_LABEL.search(content)
        if method is not None and url is not None:
            continue  # both on one line: a table's header or a sentence, not one request
        if method is not None:
            pending = [u for u in urls if number - u[0] <= _PAIR_LINES]
            urls = []
            if pending:
                at, text, column = pending[-1]
                sites = _sites_at(text, method.group(1), column, language, bare)
                found += [(at, text, s) for s in sites]
            else:
                methods = [(number, method.group(1))]
        elif url is not None:
            pending_methods = [m for m in methods if number - m[0] <= _PAIR_LINES]
            methods = []
            if pending_methods:
                verb = pending_methods[-1][1]
                sites = _sites_at(content, verb, url.end(), language, bare)
                found += [(number, content, s) for s in sites]
            else:
                urls = [(number, content, url.end())]
    return [with_value(text, number, site) for number, text, site in found]


def _row_request(row: str) -> tuple[str, int] | None:
    """(method, URL column) of a table row whose path cell comes before its method cell."""
    if "|" not in row or ("/rest/" not in row and "://" not in row):
        return None
    column = 0
    url_at = -1
    for cell in row.split("|"):
        method = _METHOD_CELL.match(cell)
        if method is not None:
            return (method.group(1), url_at) if url_at >= 0 else None
        start = _URL_CELL.match(cell)
        if start is not None and url_at < 0 and cell.strip(" *_`"):
            url_at = column + start.end()
        column += len(cell) + 1
    return None


def _sites_at(text: str, method: str, column: int, language: str, bare: bool) -> list[CallSite]:
    """The sites of the URL written at `column` of `text`, read as sent with `method`."""
    lead = len(method) + 1
    sites = request_line_sites(method + " " + text[column:], language, bare=bare)
    first = sites[0] if sites and sites[0].start == lead else None
    if first is None:
        return []
    shift = column - lead
    return [
        replace(s, start=s.start + shift, end=s.end + shift)
        for s in sites
        if s.url == first.url and s.start >= lead
    ]
