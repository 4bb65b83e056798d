"""Calls of a helper whose body is not in view (imported from another module, a method of a class
another file defines): what its call site shows of the request it sends.

- Its name says the method (`apiGet(url)`, `postJson(url, body)`, `client.httpDelete(url)`): that
  verb, to the URL it is given.
- Made for a client and then called, `Post(client)(path, options)`: the verb it is named.
- Its name says it sends a request (`client.restCall(path)`, `callApi(path, "PATCH", body)`) and
  one of its arguments is a literal REST path: that endpoint, with the method an argument names
  (a method literal, an options object's ``method``), else none (the code does not show it: the
  endpoint is known, and no check claims a method).

What the helper does with its other arguments is out of view: they get no key checks (the
"named" style), but for the query of an options object after the URL whose every key is a request
option's name (``{ params: new URLSearchParams({...}), headers, body }``): such an object is the
request's options, handed on to the HTTP library. A helper the document defines is read through
its body instead (`js_wrappers`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_config import options_method
from atlas_core.recognize.calls.js_http import Http
from atlas_core.recognize.calls.js_returns import returned
from atlas_core.recognize.calls.js_shapes import OPTION_ROLES
from atlas_core.recognize.calls.js_wrappers import definition_of
from atlas_core.recognize.calls.site import HTTP_VERBS, QUERY, UNKNOWN
from atlas_core.recognize.calls.verbs import named_verb
from atlas_core.recognize.calls.walk import KeyContext
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_values import JsValues

# A helper name that says it sends a request, and a REST path written in a literal.
_SENDS = re.compile(r"(?i)request|call|fetch|rest|api|http|send")
_REST_PATH = re.compile(r"/rest/\d")
_LITERALS = frozenset({"string", "template_string"})
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})
_CLIENT = re.compile(r"(?i)client|api|http|rest|collibra|service|request")
# The keys of a request's options, as fetch, axios, ky and got name them; those of a query.
_QUERY_OPTIONS = frozenset(k for k, role in OPTION_ROLES.items() if role == QUERY)
_REQUEST_OPTIONS = _QUERY_OPTIONS | {
    "method",
    "headers",
    "body",
    "data",
    "json",
    "timeout",
    "signal",
    "auth",
    "credentials",
    "responseType",
}


def helper_out_of_view(
    reader: JsValues, call: Node, name: str, args: list[Node], receiver: str = ""
) -> Http | None:
    """The request a call of a helper out of view sends, when its name and arguments show it;
    `receiver` is the text of a method call's receiver (a verb-named method counts on a client's
    or on `this`, not on a cache's `getItem`)."""
    if not args:
        return None
    verb = named_verb(name)
    if verb and receiver and receiver != "this" and not _CLIENT.search(receiver):
        verb = ""
    if verb:
        if "/" not in reader._value(args[0], 0) or definition_of(reader, call) is not None:
            return None
        return Http(verb, args[0], "named", call=call)
    if not _SENDS.search(name):
        return None
    url = next((a for a in args if a.type in _LITERALS and _REST_PATH.search(reader.text(a))), None)
    if url is None:
        url = next((a for a in args if _builds_rest_path(reader, a)), None)
    if url is None or definition_of(reader, call) is not None:
        return None
    return Http(_method_argument(reader, args, url), url, "named", call=call)


def curried_helper(reader: JsValues, call: Node, maker: Node, args: list[Node]) -> Http | None:
    """``Post(client)(path, options)``: a helper out of view made for a client, then called; a
    bare verb names the method here, the sender being what the verb makes."""
    function = reader.callee(maker)
    if function is None or function.type != "identifier" or definition_of(reader, maker):
        return None
    name = reader.text(function)
    if name.lower() not in HTTP_VERBS:
        return helper_out_of_view(reader, call, name, args)
    if not args or "/" not in reader._value(args[0], 0):
        return None
    return Http(name.upper(), args[0], "named", call=call)


def _builds_rest_path(reader: JsValues, arg: Node) -> bool:
    """Whether `arg` passes a function the document defines that returns a literal REST path
    (``fetchAllPages(cfg, (offset) => `/rest/2.0/assetTypes?offset=${offset}`)``)."""
    function = reader._definition(arg) if arg.type == "identifier" else arg
    if function is None or function.type not in _FUNCTIONS:
        return False
    value = returned(reader, function)
    return value is not None and bool(_REST_PATH.search(reader.text(value)))


def _method_argument(reader: JsValues, args: list[Node], url: Node) -> str:
    """The method another argument names: ``"PATCH"``, or ``{method: "POST"}``; "" for none."""
    for arg in args:
        if arg.id == url.id:
            continue
        if arg.type == "string" and reader.literal(arg).lower() in HTTP_VERBS:
            return reader.literal(arg).upper()
        if arg.type == "object":
            node, _ = options_method(reader, arg)
            value = reader._value(node, 0) if node is not None else UNKNOWN
            if value.lower() in HTTP_VERBS:
                return value.upper()
    return ""


def named_options_context(
    reader: JsValues, http: Http, call: Node, index: int, path: list[str]
) -> KeyContext | None:
    """The keys under `path` of argument `index` of a helper out of view: a query's where that
    argument, just after the URL, is written as request options and `path` starts at its query
    (``apiPost(url, { params: {...}, headers })``); else unknown."""
    args = reader._arguments(call)
    if http.url is None or path[0] not in _QUERY_OPTIONS or index < 1 or index >= len(args):
        return None
    options = args[index]
    if args[index - 1].id != http.url.id or options.type != "object":
        return None
    for item in options.named_children:
        if item.type == "comment":
            continue
        if item.type not in ("pair", "shorthand_property_identifier"):
            return None  # a spread: which options these are is not written here
        key = child(item, "key") if item.type == "pair" else item
        if reader._key_name(key) not in _REQUEST_OPTIONS:
            return None
    return KeyContext(QUERY, http, nested=len(path) - 1)
