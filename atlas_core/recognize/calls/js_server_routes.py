"""A server's routes written with the same verbs as requests, told apart from requests::

    app.put("/domains/:domainId", renameDomain);      // a route: `:name` segment, a handler
    router.post("/assets", requireLogin, save);       // a route: handlers the file defines
    api.post("/assets", asset);                       // a request

Express, Fastify, Koa routers and mock servers register handlers with ``receiver.verb(path,
handler)``; a request's later arguments are data and options, or an error-first callback
(``needle.post(url, data, (err, res) => ...)``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_passed import passed_function
from atlas_core.recognize.calls.js_wrappers import parameters

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_values import JsValues

_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_ERROR_NAMES = frozenset({"err", "error", "e", "er"})
# A route pattern's parameter segment, ``/domains/:domainId``: servers name them so, requests
# send values.
_ROUTE = re.compile(r"/:[A-Za-z_]\w*(?:[/?'\"`]|$)")


def _error_first(reader: JsValues, function: Node) -> bool:
    """A Node-style callback, ``(err, res) => ...``: what a request calls back, never a
    route's handler (``(req, res)``, ``(request, reply)``)."""
    names = parameters(reader, function)
    return bool(names) and names[0].lower() in _ERROR_NAMES


def is_server_route(reader: JsValues, args: list[Node], looks_http: bool) -> bool:
    """Whether ``receiver.verb(*args)`` registers a route: a function among its arguments (a
    handler written in place, or a name for one the document defines), or, on a receiver that
    does not read as an HTTP client, a path with a ``:name`` segment."""
    if any(a.type in _FUNCTION_VALUES and not _error_first(reader, a) for a in args):
        return True
    if any(a.type == "identifier" and passed_function(reader, a) is not None for a in args[1:]):
        return True
    first = args[0] if args else None
    return (
        not looks_http
        and first is not None
        and reader.is_string(first)
        and bool(_ROUTE.search(reader.text(first)))
    )
