"""The scans of documents read as text rather than through a syntax tree: shell scripts (each
curl, wget or HTTPie command, and calls of the script's own functions that run one), languages
whose reader lists their calls (Go, PowerShell, C#, ...), and raw request lines (a .http file, a
Postman collection, prose). Each keeps what `scan_sites.keep` keeps, in text order.
"""

from __future__ import annotations

import re
import time

from atlas_core.recognize.calls.curl_wrappers import COMMAND_WORD
from atlas_core.recognize.calls.request_lines import request_line_sites
from atlas_core.recognize.calls.scan_sites import Located, keep, with_value
from atlas_core.recognize.calls.site import QUERY_KEY
from atlas_core.recognize.calls.text_calls import text_calls
from atlas_core.syntax import Document

_CURL_URL = re.compile(r"""(?:https?://|/rest/|\$\{?\w+\}?/)[^\s'"\\]*""")
# Other words worth asking about: a URL in a variable (``"$URL"``), an HTTPie item (``name=x``).
_SHELL_WORD = re.compile(r"""(?:^|\s)["']?(\$\{?\w|[A-Za-z_][\w.\-\[\]]*(?:==|:=|=))""")
_JSON_KEY = re.compile(r'"([^"\\\n]{1,200})"\s*:')
_ARGUMENT = re.compile(r"(?<=\s)[\"']?([^\s\\\"'])")  # a word's start after the first
_MAX_ARGUMENTS = 8


def scan_shell(document: Document, deadline: float, limit: int) -> list[Located]:
    from atlas_core.recognize.calls.curl import read_curl  # for shell documents only
    from atlas_core.recognize.calls.curl_wrappers import shell_wrappers

    found: dict[tuple[int, int, int, str, str], Located] = {}
    text = document.text
    if COMMAND_WORD.search(text) is None:
        return []
    wrappers = shell_wrappers(document)  # `api_get "/rest/2.0/assets"` calls of a curl function
    for line in range(document.line_count):
        if len(found) >= limit or time.monotonic() > deadline:
            break
        content = document.line(line)
        first = content.split(None, 1)[0] if wrappers and content.strip() else ""
        command = COMMAND_WORD.search(content) or _continues(document, line) or first in wrappers
        if not command:
            continue
        columns = [m.start() + 1 for m in _CURL_URL.finditer(content)]
        columns += [m.start(1) for m in _JSON_KEY.finditer(content)]
        columns += [m.start(1) for m in QUERY_KEY.finditer(content)]
        columns += [m.start(1) for m in _SHELL_WORD.finditer(content)]
        if first in wrappers:  # ``api_get "communities"``: any argument may be its path
            columns += [m.start(1) for m in _ARGUMENT.finditer(content, 0, 2000)][:_MAX_ARGUMENTS]
        for column in columns:
            keep(found, document, line, read_curl(document, line, column, "shell"))
    return sorted(found.values(), key=lambda f: (f.line, f.site.start))


def scan_text(document: Document, language: str, deadline: float, limit: int) -> list[Located]:
    """A document of a language read as text (Go, PowerShell): its reader lists the calls."""
    found: dict[tuple[int, int, int, str, str], Located] = {}
    for line, site in text_calls(document, language, deadline):
        if len(found) >= limit:
            break
        keep(found, document, line, site)
    return sorted(found.values(), key=lambda f: (f.line, f.site.start))


def _continues(document: Document, line: int) -> bool:
    """Whether `line` belongs to a command started above (the line before ends in ``\\``)."""
    return line > 0 and document.line(line - 1).rstrip().endswith("\\")


def scan_request_lines(
    lines: list[tuple[int, str]], language: str, deadline: float, limit: int, *, bare: bool = True
) -> list[Located]:
    """The sites of raw request lines (`request_lines`), each line given with its number;
    `bare` as there."""
    found: dict[tuple[int, int, int, str, str], Located] = {}
    for number, content in lines:
        if len(found) >= limit or time.monotonic() > deadline:
            break
        for site in request_line_sites(content, language, bare=bare):
            key = (number, site.start, site.end, site.role, site.name)
            if key not in found:
                found[key] = with_value(content, number, site)
    return list(found.values())
