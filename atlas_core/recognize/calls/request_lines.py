"""Raw HTTP request lines: ``GET /rest/2.0/assets?name=x`` in a ``.http`` file (REST clients), an
``http`` code block, or a line of markdown prose, read as a call: the method, the URL (query string
aside) and each query key with its value.

Only a method word in capitals followed by a URL with a path counts, so "GET requests" or "use
GET" is prose; the checks then judge the URL as they judge any call's (a visibly Collibra base or
a documented resource).
"""

from __future__ import annotations

import re

from atlas_core.recognize.calls.site import ENDPOINT, HTTP, QUERY, CallSite, tidy_url

_REQUEST_LINE = re.compile(
    r"(?<![\w/])(GET|POST|PUT|PATCH|DELETE)[*`]*[ \t]+`?"
    r"((?:https?://|<|\{|\$)?[^\s`'\"<>]*/[^\s`'\"<>)\]]*)"
)
_QUERY_KEY = re.compile(r"[?&]([A-Za-z_][\w.\-\[\]]*)=")
MAX_LINE = 4000


def request_line_sites(line: str, language: str) -> list[CallSite]:
    """The endpoint and query-key sites of the request lines on one line of text."""
    if len(line) > MAX_LINE or not any(
        m in line for m in ("GET", "POST", "PUT", "PATCH", "DELETE")
    ):
        return []
    sites: list[CallSite] = []
    for m in _REQUEST_LINE.finditer(line):
        method, url = m.group(1), m.group(2).rstrip(".,;:!?")  # a sentence's end is no path
        start = m.start(2)
        end = start + len(url)
        endpoint = tidy_url(re.sub(r"<[^>]*>|\{\{[^}]*\}\}|\$\{?\w+\}?", "{}", url))
        sites.append(CallSite(method, endpoint, ENDPOINT, "", start, end, HTTP, language))
        keys = tuple(k.group(1) for k in _QUERY_KEY.finditer(url))
        for k in _QUERY_KEY.finditer(url):
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
