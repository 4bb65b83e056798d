"""A server's routes written with the same verbs as requests, told apart from requests::

    app.put("/domains/:domainId", renameDomain);      // a route: `:name` segment, a handler
    router.post("/assets", requireLogin, save);       // a route: handlers the file defines
    api.post("/assets", asset);                       // a request

Express, Fastify, Koa routers and mock servers register handlers with ``receiver.verb(path,
handler)``; a request's later arguments are data and options, or an error-first callback
(``needle.post(url, data, (err, res) => ...)``). A test drives the document's own server through
its app (``request(app).get("/assets?x=1")``, supertest's and chai-http's shape): no request to
the API either; nor does a browser's request for a root-relative URL outside the API's base path
(``fetch("/users?page=2")`` reaches the page's own server: `page_origin`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_passed import passed_function
from atlas_core.recognize.calls.js_wrappers import parameters
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_values import JsValues

_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_ERROR_NAMES = frozenset({"err", "error", "e", "er"})
# A route pattern's parameter segment, ``/domains/:domainId``: servers name them so, requests
# send values.
_ROUTE = re.compile(r"/:[A-Za-z_]\w*(?:[/?'\"`]|$)")
# Where a page's own-origin URL goes: a host no API check judges, so the call is read but left
# alone.
PAGE_ORIGIN = "origin://page"
# Requests whose URL is final as written (no instance or defaults may put a base before it).
_PAGE_STYLES = frozenset({"fetch", "xhr", "jquery"})
# What wraps an app (or a server) object for a test's requests: supertest's `request(app)`,
# `supertest(server)`, `request.agent(app)`, chai-http's `chai.request(app)`.
_APP_TESTERS = frozenset(
    {"request", "supertest", "request.agent", "supertest.agent", "chai.request"}
)


def _error_first(reader: JsValues, function: Node) -> bool:
    """A Node-style callback, ``(err, res) => ...``: what a request calls back, never a
    route's handler (``(req, res)``, ``(request, reply)``)."""
    names = parameters(reader, function)
    return bool(names) and names[0].lower() in _ERROR_NAMES


def is_server_route(
    reader: JsValues, args: list[Node], looks_http: bool, receiver: Node | None = None
) -> bool:
    """Whether ``receiver.verb(*args)`` registers a route: a function among its arguments (a
    handler written in place, or a name for one the document defines), or, on a receiver that
    does not read as an HTTP client, a path with a ``:name`` segment; or whether it tests one
    (`_tests_own_app`)."""
    if receiver is not None and _tests_own_app(reader, receiver):
        return True
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


def _tests_own_app(reader: JsValues, receiver: Node) -> bool:
    """``request(app)`` before ``.get(path)``: a test tool wrapping an object (the app, a server),
    never a URL string, which `request('https://...')` of other libraries takes."""
    if receiver.type != "call_expression":
        return False
    function, arguments = child(receiver, "function"), child(receiver, "arguments")
    if function is None or arguments is None or reader.text(function) not in _APP_TESTERS:
        return False
    given = arguments.named_children
    return len(given) == 1 and given[0].type in ("identifier", "member_expression")


def page_origin(style: str, base: str, url: str) -> str:
    """`url` as a fetch, XMLHttpRequest or jQuery request sends it. A root-relative URL with no
    base before it goes to the page's own origin: Collibra's API only under its base path
    (``/rest/2.0/assets``, behind a proxy's prefix too), never at ``/users`` itself."""
    relative = url.startswith("/") and not url.startswith("//")
    if style in _PAGE_STYLES and not base and relative and "/rest/" not in url:
        return PAGE_ORIGIN + url
    return url
