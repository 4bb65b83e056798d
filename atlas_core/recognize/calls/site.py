"""What the cursor is on inside an API call (`CallSite`), and the URL pieces the readers join
(one version of a document's text, `Document`, lives in `atlas_core.syntax`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})

# Roles a cursor can have in a call.
ENDPOINT = "endpoint"
QUERY = "query"
PATH = "path"
BODY = "body"
HEADER = "header"
BUILDER = "builder"
OPERATION = "operation"

HTTP = "http"
SDK = "sdk"

UNKNOWN = "{}"  # stands for an expression whose value the reader cannot see


@dataclass(frozen=True, slots=True)
class CallSite:
    """The cursor's place in an HTTP API call or a generated-client call.

    `url` keeps the literal parts and spells every unknown expression ``{}``
    (``https://{}/rest/2.0/assets/{}/attributes``); it is "" for generated-client calls, whose
    endpoint only the operation name tells. `name` is the key, parameter, builder method or
    client method under the cursor ("" for the endpoint itself); `start`/`end` are its columns
    (code points) on the cursor's line, or the URL literal's. `path_keys` are all keys written in
    the same params/body literal (the hovered one included), for "missing required" checks;
    `complete` says they are all its keys (one literal, no spread, no key added elsewhere), and
    `nested` that the key is inside an object that is itself a value of the body or params (an
    ``attributes`` map), not one of their own keys.
    """

    method: str
    url: str
    role: str
    name: str
    start: int
    end: int
    client: str
    language: str
    operation: str = ""
    path_keys: tuple[str, ...] = ()
    nested: bool = False
    complete: bool = False
    loose: bool = False  # a REST path in a string no recognised call takes: not a call


# --- URLs ------------------------------------------------------------------------------------

# A query key written in a URL's text (``?name=``, ``&limit=``): what every reader of URL text
# reads the keys with.
QUERY_KEY = re.compile(r"[?&]([A-Za-z_][\w.\-\[\]]*)=")
_UNKNOWN_RUN = re.compile(r"(?:\{\})+")
# A template's placeholder left in a URL's text: ``{{ base_url }}`` (Jinja, Postman, Handlebars),
# ``<%= base %>`` (EJS, ERB), ``<?= $base ?>`` (PHP): a value the code does not show.
_TEMPLATE_TAG = re.compile(r"\{\{[^{}]*\}\}|<%=.*?%>|<\?=.*?\?>")
_PROXIED = re.compile(r"^https?://[^/]+/+(https?://)")


def tidy_url(url: str) -> str:
    """The endpoint without its query string, one ``{}`` for each run of unknown parts, no doubled
    slash after the host."""
    url = _TEMPLATE_TAG.sub(UNKNOWN, url)
    url = _UNKNOWN_RUN.sub(UNKNOWN, re.split(r"[?#]", url, maxsplit=1)[0])
    proxied = _PROXIED.search(url)
    if proxied is not None:
        url = url[proxied.start(1) :]  # `https://cors-proxy.example/https://host/rest/2.0/...`
    scheme, sep, rest = url.partition("://")
    if sep:
        return scheme + sep + re.sub(r"/{2,}", "/", rest)
    return re.sub(r"/{2,}", "/", url)


def join_base(base: str, path: str) -> str:
    """A client's base URL (``baseURL``, ``base_url``) in front of a request path."""
    if not base or "://" in path or path.startswith(UNKNOWN):
        return path
    if not path:
        return base
    return base.rstrip("/") + "/" + path.lstrip("/")


def url_join(base: str, other: str) -> str:
    """`urllib.parse.urljoin` over values that may hold ``{}`` placeholders."""
    if UNKNOWN in base and "://" not in base:
        # urljoin treats an unknown base as a relative path; keep both halves visible instead.
        return join_base(base, other) if not other.startswith("/") else base + other
    return urljoin(base, other)


# A string literal that goes on with a query string begun before it: ``"&limit=10"``.
_CONTINUED_QUERY = re.compile(r"""^[A-Za-z]{0,2}["'`]&""")


def query_key_at(literal: str, index: int) -> tuple[int, int] | None:
    """The bounds of the ``key`` in ``?key=value&...`` that `index` is on, within `literal`."""
    if not 0 <= index <= len(literal):
        return None
    question = literal.rfind("?", 0, index)
    if question < 0:
        continued = _CONTINUED_QUERY.match(literal)  # `"&limit=" + n`: the query goes on
        if continued is None:
            return None
        question = continued.end() - 1
    start = max(literal.rfind("&", 0, index), question) + 1
    end = start
    while end < len(literal) and literal[end] not in "=&#":
        end += 1
    if not start <= index <= end or end == start:
        return None
    return start, end
