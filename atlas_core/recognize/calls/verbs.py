"""The HTTP method a helper's name says it sends, for a helper whose body is not in view (imported
from another module): ``api_get(url)``, ``postRequest(url, body)``, a base class's ``self._put``."""

from __future__ import annotations

from atlas_core.recognize.text_scan import split_words

_NAMED_VERBS = frozenset({"get", "post", "put", "patch", "delete"})
# Words of a helper that builds or fakes a request rather than sending one (`get_url(path)`).
_NOT_SENT = frozenset(
    [
        "url",
        "uri",
        "path",
        "endpoint",
        "link",
        "href",
        "base",
        "route",
        "header",
        "headers",
        "param",
        "params",
        "body",
        "payload",
        "mock",
        "fake",
        "stub",
        "cache",
        "cached",
        "build",
        "make",
        "parse",
        "format",
    ]
)


def named_verb(name: str) -> str:
    """The HTTP method a function's name says it sends (``mcp_get_request``, ``apiPost``,
    ``http_delete``, a base class's ``_put``), or "": exactly one method word among two or more,
    none that says it only builds a URL or fakes a request. A bare ``get`` is a dict's or a
    client's."""
    if name.startswith("_") and name.strip("_") in _NAMED_VERBS:
        return name.strip("_").upper()  # a base class's `self._get(url)`
    words = [w.lower() for w in split_words(name)]
    verbs = [w for w in words if w in _NAMED_VERBS]
    if len(words) < 2 or len(verbs) != 1 or _NOT_SENT.intersection(words):
        return ""
    return verbs[0].upper()
