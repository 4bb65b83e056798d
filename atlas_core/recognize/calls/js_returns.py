"""URLs built by the code's own functions: a function (or arrow function, or method called on
``this``) that returns a URL expression, with or without its parameters in it::

    function infoUrl(base) { return `${base}/rest/2.0/application/info`; }
    const endpoint = (resource) => `${API}/rest/2.0/${resource}`;

    fetch(infoUrl(origin));                 // GET {}/rest/2.0/application/info
    axios.get(endpoint("assets"), {...});   // GET {API}/rest/2.0/assets

The value of such a call is its function's one returned expression read with the call's
arguments; the returned URL's literal belongs to the requests its call sites send.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_values import FUNCTIONS, unwrapped
from atlas_core.recognize.calls.js_wrappers import definition_of, parameters
from atlas_core.recognize.calls.site import UNKNOWN
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_http import Http
    from atlas_core.recognize.calls.js_requests import JsRequests
    from atlas_core.recognize.calls.js_values import JsValues

_MAX_NODES = 4000  # nodes of one function body looked through for its return statements
_MAX_CALLERS = 8  # call sites of one URL-building function followed
# A name given an object literal, its type annotation (TypeScript) or an opening parenthesis between.
_GIVEN_OBJECT = re.compile(r"([A-Za-z_$][\w$]*)\s*(?::[^=;\n]{0,120})?=\s*\(?\s*\{")
_NOT_OWN = FUNCTIONS | {"class_declaration", "class"}
_URL_LIKE = frozenset(
    {"string", "template_string", "binary_expression", "identifier", "new_expression"}
)


def builder_of(reader: JsValues, call: Node) -> Node | None:
    """The function `call` calls when it is the document's own (``name(...)`` or
    ``this.name(...)``), else None: a method of any other receiver is someone else's."""
    if reader.memo is None:
        return _builder_of(reader, call)
    return reader.memo.remember(("js-builder-of", call.id), lambda: _builder_of(reader, call))


def _builder_of(reader: JsValues, call: Node) -> Node | None:
    function = reader.callee(call)
    if function is None:
        return None
    if function.type == "member_expression":
        receiver = child(function, "object")
        if receiver is None or receiver.type not in ("this", "identifier"):
            return None
        if receiver.type == "identifier" and not _holds_object(reader, receiver):
            return None  # `api.get(...)`: a method of someone else's object
    elif function.type != "identifier":
        return None
    return definition_of(reader, call)


def returned(reader: JsValues, definition: Node) -> Node | None:
    """The one URL-like expression a function returns (an arrow function's expression body): a
    string, a template, a concatenation, a name or a ``new URL(...)``; a function returning a
    call's result (``return fetch(url)``) builds no URL."""
    if reader.memo is None:
        value = _returned(definition)
    else:
        value = reader.memo.remember(("js-returned", definition.id), lambda: _returned(definition))
    return value if value is not None and _url_like(reader, value, 0) else None


def _url_like(reader: JsValues, value: Node, depth: int) -> bool:
    """A string, a template, a name, a ``new URL(...)``, a concatenation, or a default
    (``base ?? DEFAULT``) of them; ``(await get(url))?.total ?? null`` is a response's value."""
    if value.type == "new_expression":
        return reader._callee_text(value) == "URL"  # not `new Promise(...)` around a request
    if value.type != "binary_expression":
        return value.type in _URL_LIKE
    operator = reader.text(child(value, "operator"))
    if operator == "+":
        return True
    left = child(value, "left")
    return (
        operator in ("??", "||")
        and left is not None
        and depth < 4
        and _url_like(reader, left, depth + 1)
    )


def _returned(definition: Node) -> Node | None:
    body = child(definition, "body")
    if body is None:
        return None
    if body.type != "statement_block":
        return body
    found: list[Node] = []
    stack = list(reversed(body.named_children))
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _MAX_NODES or len(found) > 1:
            return None
        if node.type in _NOT_OWN:
            continue
        if node.type == "return_statement":
            value = node.named_children[0] if node.named_child_count else None
            if value is None:
                return None
            found.append(value)
            continue
        stack.extend(reversed(node.named_children))
    return found[0] if len(found) == 1 else None


def options_call(reader: JsValues, options: Node | None) -> Node | None:
    """The call that makes a request's options (``await opts("DELETE")``), other than a merge
    (``Object.assign``); None for options written otherwise."""
    while options is not None and options.type in ("await_expression", "parenthesized_expression"):
        options = options.named_children[0] if options.named_child_count else None
    if options is None or options.type != "call_expression":
        return None
    return options if reader._callee_text(options) != "Object.assign" else None


def made_options_method(reader: JsValues, call: Node) -> str:
    """The method asked for by the options a call makes (``fetch(url, opts("DELETE", body))``):
    the ``method`` of the object literal the document's own function returns, read with the
    call's arguments; "GET" where it asks for none; "" where the text does not show it."""
    definition = builder_of(reader, call)
    made = _returned(definition) if definition is not None else None
    while made is not None and made.type == "parenthesized_expression" and made.named_child_count:
        made = made.named_children[0]  # `() => ({ headers })`
    if definition is None or made is None or made.type != "object":
        return ""
    if any(
        item.type not in ("pair", "shorthand_property_identifier") for item in made.named_children
    ):
        return ""  # a spread or a method: which keys the options hold is not written
    method = reader._pair_value(made, "method")
    if method is None:
        return "GET"
    names = parameters(reader, definition)
    args = [*reader._arguments(call), *([None] * len(names))]
    bind = {
        name: reader._value(arg, 1) if arg is not None else None
        for name, arg in zip(names, args, strict=False)
        if name
    }
    value = reader._value(method, 1, bind)
    return "" if value == UNKNOWN else value.upper()


def made_config(reader: JsValues, call: Node) -> tuple[Node, Node] | None:
    """``axios(req("get", "/rest/2.0/users/current"))``: the document's own function `call`
    calls and the request config it returns, an object literal with a ``url`` and every key
    written (``(method, url, data) => ({ method, url: BASE + url, data })``); else None."""
    definition = builder_of(reader, call)
    made = _returned(definition) if definition is not None else None
    while made is not None and made.type == "parenthesized_expression" and made.named_child_count:
        made = made.named_children[0]
    if definition is None or made is None or made.type != "object":
        return None
    if any(
        item.type not in ("pair", "shorthand_property_identifier") for item in made.named_children
    ):
        return None  # a spread: which keys the config holds is not written
    return (definition, made) if reader._pair_value(made, "url") is not None else None


def argument_in_url(reader: JsValues, call: Node, index: int) -> bool:
    """Whether argument `index` of `call` is part of the URL its (own) function returns, or of
    the ``url`` of the request config it returns (`made_config`)."""
    definition = builder_of(reader, call)
    value = returned(reader, definition) if definition is not None else None
    if definition is not None and value is None:
        made = made_config(reader, call)
        value = reader._pair_value(made[1], "url") if made is not None else None
    if definition is None or value is None:
        return False
    names = parameters(reader, definition)
    if index >= len(names) or not names[index]:
        return False
    return any(
        True
        for _ in reader.named_nodes(
            names[index], value.start_byte, value.end_byte, reader.is_use, limit=1
        )
    )


def callers(reader: JsValues, value: Node) -> list[Node] | None:
    """Where the function returning `value` (a return statement's or an arrow's expression) is
    called: its call expressions, and the arguments that pass it to another function; None when
    `value` is not returned."""
    parent = value.parent
    if parent is None:
        return None
    if parent.type == "return_statement":
        function = next((a for a in ancestors(parent) if a.type in FUNCTIONS), None)
    elif parent.type == "arrow_function" and is_field(value, "body"):
        function = parent
    else:
        return None
    if function is None or returned(reader, function) is None:
        return []
    if function.parent is not None and function.parent.type == "arguments":
        return [function]  # `pages(cfg, (offset) => `/rest/2.0/...`)`: passed where written
    name, method = _name_of(reader, function)
    if not name:
        return []
    calls = []
    for found in reader.named_nodes(name, 0, len(reader.data), _callable):
        call = found.parent
        if not method and call is not None and call.type == "arguments":
            if reader._definition(found) == function:
                calls.append(found)  # `pages(cfg, makePath)`: passed to a helper that calls it
            continue
        if method and call is not None and call.type == "member_expression":
            receiver = child(call, "object")  # `this.url(id)`, `ROUTES.asset(id)`
            own = receiver is not None and receiver.type in ("this", "identifier")
            call = call.parent if own and is_field(found, "property") else None
        if call is None or call.type != "call_expression":
            continue
        called = definition_of(reader, call)
        if called is not None and called.id == function.id:
            calls.append(call)
        if len(calls) >= _MAX_CALLERS:
            break
    return calls


def url_argument_of(reader: JsRequests, built: Node) -> Http | None:
    """The request whose URL argument is `built` (``http.get(paths.mapping(id))``), else None."""
    arguments = built.parent
    call = arguments.parent if arguments is not None else None
    if arguments is None or call is None or arguments.type != "arguments":
        return None
    http = reader.http(call)
    return http if http is not None and http.url is not None and http.url.id == built.id else None


def built_by_several(reader: JsValues, built: Node) -> bool:
    """Whether `built` calls one of the document's own URL-building functions that two or more
    calls make."""
    definition = builder_of(reader, built)
    value = returned(reader, definition) if definition is not None else None
    found = callers(reader, value) if value is not None else None
    return found is not None and len(found) > 1


def _holds_object(reader: JsValues, name: Node) -> bool:
    """Whether a name holds an object literal the document writes (``const ROUTES = {...}``).
    Asked at every ``name.method(...)`` call: a name the text never gives an object literal is
    answered without looking for its definition."""
    if reader.text(name) not in _object_names(reader):
        return False
    held = unwrapped(reader._definition(name))
    return held is not None and held.type == "object"


def _object_names(reader: JsValues) -> frozenset[str]:
    """The names the document's text gives an object literal (``ROUTES = {``, ``R: Routes = {``):
    a superset of those `_holds_object` accepts, found once per scan."""

    def read() -> frozenset[str]:
        return frozenset(_GIVEN_OBJECT.findall(reader.document.text))

    return read() if reader.memo is None else reader.memo.remember(("js-object-names", 0), read)


def _name_of(reader: JsValues, function: Node) -> tuple[str, bool]:
    """A function's name, and whether it is a method (called as ``this.name(...)``)."""
    if function.type in ("function_declaration", "generator_function_declaration"):
        return reader.text(child(function, "name")), False
    if function.type == "method_definition":
        return reader.text(child(function, "name")), True
    parent = function.parent
    if parent is not None and parent.type == "variable_declarator":
        return reader.text(child(parent, "name")), False
    if parent is not None and parent.type == "pair":
        return reader.text(child(parent, "key")), True
    return "", False


def _callable(node: Node) -> bool:
    return node.type in ("identifier", "property_identifier")
