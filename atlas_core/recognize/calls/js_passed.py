"""Functions handed to the code's own helpers, and helpers that build query strings.

Generic paging helpers receive the function that sends as an argument::

    async function* pages(send, path, params = {}) {
      const page = await send(path + toQuery({ ...params, limit: 50, offset }));
    }
    const fetchJson = (p) => client.get(p);
    pages(fetchJson, "/rest/2.0/domains", { sortField: "NAME" });   // GET /rest/2.0/domains

The helper's request is a call of its parameter (`is_parameter_call`); which request it is, is
known only at a call site that passes a function the document defines (`passed_function`).

A helper such as ``toQuery(obj)`` that returns ``?...`` or ``""`` (`is_query_builder`) ends the
path it is appended to, and the keys of the object it is given are query keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_http import FORWARDED, Http
from atlas_core.recognize.calls.js_returns import builder_of
from atlas_core.recognize.calls.js_values import FUNCTIONS
from atlas_core.recognize.calls.js_wrappers import parameters, summary_of_definition
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_requests import JsRequests
    from atlas_core.recognize.calls.js_values import Bind, JsValues

_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
_DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration"})
_NOT_OWN = FUNCTIONS | {"class_declaration", "class"}
_MAX_NODES = 2000  # nodes of one function body looked through for its return statements
_MAX_RETURNS = 4
_MAX_DEFINITIONS = 8
_MAX_SCOPES = 8  # enclosing functions looked through for a parameter's name


def is_parameter_call(reader: JsValues, function: Node) -> bool:
    """Whether `function`, a call's callee, is a name the enclosing function takes as a
    parameter (and does not define again): a function its callers pass."""
    if function.type != "identifier":
        return False
    name = reader.text(function)
    for count, scope in enumerate(a for a in ancestors(function) if a.type in FUNCTIONS):
        if count >= _MAX_SCOPES:
            return False
        if name in parameters(reader, scope):
            return reader._definition(function) is None
    return False


def passed_function(reader: JsValues, arg: Node) -> Node | None:
    """The function an argument passes, when the document defines it: an arrow or function
    written in place, or a name bound to one in scope (the nearest definition before the call,
    a function declaration in an enclosing scope)."""
    if arg.type in _FUNCTION_VALUES:
        return arg
    if arg.type != "identifier":
        return None
    value = reader._definition(arg)
    if value is not None:
        return value if value.type in _FUNCTION_VALUES else None
    name = reader.text(arg)
    found = reader.named_nodes(name, 0, len(reader.data), _is_declared_name, limit=_MAX_DEFINITIONS)
    for ident in found:
        declaration = ident.parent
        if declaration is None:
            continue
        scope = reader.scope_of(declaration)
        if scope is None or scope.start_byte <= arg.start_byte < scope.end_byte:
            return declaration
    return None


def bind_function(reader: JsRequests, bound: Bind, name: str, arg: Node, bind: Bind | None) -> None:
    """Binds ``name.fn`` to the function `arg` passes, as a token of the reader's
    `passed_functions`: forwarded from an outer wrapper's binding, or `FORWARDED` for a parameter
    of the function the call is in that nothing binds yet."""
    if arg.type == "identifier" and is_parameter_call(reader, arg):
        forwarded = bind.get(f"{reader.text(arg)}.fn") if bind is not None else None
        bound[f"{name}.fn"] = forwarded if forwarded is not None else FORWARDED
        return
    function = passed_function(reader, arg)
    if function is not None:
        token = f"fn:{function.id}"
        reader.passed_functions[token] = function
        bound[f"{name}.fn"] = token


def as_wrapper(reader: JsRequests, http: Http, bind: Bind | None) -> Http | None:
    """A "passed" request read under `bind`: a call of the function bound to its callee, as the
    wrapper call it is (that function's request, this call's arguments in it); None where no
    function the document defines is bound, or the one bound sends nothing."""
    token = bind.get(f"{http.verb}.fn") if bind is not None else None
    definition = reader.passed_functions.get(token or "")
    summary = summary_of_definition(reader, definition) if definition is not None else None
    if summary is None:
        return None
    padded = [a for _, a in http.args] + [None] * len(summary.params)
    return Http(
        "",
        padded[summary.url_index] if summary.url_index is not None else None,
        "wrapper",
        call=http.call,
        inner=summary.inner,
        args=tuple(zip(summary.params, padded, strict=False)),
        roles=summary.roles,
        patterns=summary.patterns,
    )


def is_query_builder(reader: JsValues, call: Node) -> bool:
    """Whether `call` calls the code's own function that returns a query string: every value it
    returns starts with ``?`` or is empty (``q ? `?${q}` : ""``), one at least starts with it."""
    definition = builder_of(reader, call)
    if definition is None:
        return False
    if reader.memo is None:
        return _builds_query(reader, definition)
    return reader.memo.remember(
        ("js-query-builder", definition.id), lambda: _builds_query(reader, definition)
    )


def _builds_query(reader: JsValues, definition: Node) -> bool:
    body = child(definition, "body")
    if body is None:
        return False
    values = [body] if body.type != "statement_block" else _returns(body)
    kinds = [_query_kind(reader, v, 0) for v in values or [None]]
    return "?" in kinds and all(k in ("?", "") for k in kinds)


def _returns(body: Node) -> list[Node | None]:
    found: list[Node | None] = []
    stack = list(reversed(body.named_children))
    seen = 0
    while stack and seen < _MAX_NODES and len(found) <= _MAX_RETURNS:
        node = stack.pop()
        seen += 1
        if node.type in _NOT_OWN:
            continue
        if node.type == "return_statement":
            found.append(node.named_children[0] if node.named_child_count else None)
            continue
        stack.extend(reversed(node.named_children))
    if stack or len(found) > _MAX_RETURNS:
        return [None]  # too large to read whole: not known to build a query string
    return found


def _query_kind(reader: JsValues, value: Node | None, depth: int) -> str | None:
    """ "?" for a value that starts a query string, "" for an empty string, else None."""
    if value is None or depth > 4:
        return None
    if value.type == "parenthesized_expression" and value.named_child_count:
        return _query_kind(reader, value.named_children[0], depth + 1)
    if value.type == "ternary_expression":
        kinds = {
            _query_kind(reader, child(value, side), depth + 1)
            for side in ("consequence", "alternative")
        }
        return "?" if kinds == {"?", ""} or kinds == {"?"} else ("" if kinds == {""} else None)
    if value.type == "binary_expression" and reader.text(child(value, "operator")) == "+":
        left = _query_kind(reader, child(value, "left"), depth + 1)
        return "?" if left == "?" else None
    if value.type in ("string", "template_string"):
        first = value.named_children[0] if value.named_child_count else None
        if first is None:
            return ""
        if first.type == "string_fragment" and reader.text(first).startswith("?"):
            return "?"
    return None


def _is_declared_name(node: Node) -> bool:
    parent = node.parent
    return (
        node.type == "identifier"
        and parent is not None
        and parent.type in _DECLARATIONS
        and is_field(node, "name")
    )
