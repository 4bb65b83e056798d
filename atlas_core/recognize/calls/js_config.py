"""Request options assembled from more than one object before a call sends them: a config held in
a name, ``Object.assign({}, defaults, options)``, ``{...defaults, ...options}``, the way the
`request` library and axios are often called through the code's own helper::

    function send(path, options, done) {
      const defaults = { url: base + "/" + path, json: true };
      request(Object.assign({}, defaults, options), done);
    }

The objects are read in merge order (a later key wins). A parameter merged in is the caller's
options: its ``method`` (or an ``X-HTTP-Method-Override`` header) is read at each call site, and its
``qs``/``body``/``params`` keys are that call's query and body (the `OPTIONS` role of a wrapper's
parameter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from atlas_core.recognize.calls.js_values import FUNCTIONS
from atlas_core.recognize.calls.js_wrappers import parameters
from atlas_core.recognize.calls.walk import KeyContext
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_requests import Http, JsRequests
    from atlas_core.recognize.calls.js_values import JsValues

# A wrapper parameter whose keys are the request's options (``qs``, ``body``, ``method``, ...).
OPTIONS = "options"
MAX_SOURCES = 16  # objects and parameters merged into one config
_MAX_HOPS = 4  # names and merges followed from a config to its call, or back
_MAX_USES = 8  # reads of one name followed
_WRAPPING = frozenset(
    {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression"}
)
_OVERRIDE = "x-http-method-override"
# What may stand between an object and the spread that merges it: `...(c && {...})`,
# `...(c ? {...} : {})`.
_SPREAD_PARTS = frozenset(
    {"parenthesized_expression", "binary_expression", "ternary_expression", *_WRAPPING}
)


class Merged(NamedTuple):
    """What a merged config says: its URL, its method, and the parameter a caller's options come
    in by after the method (`param`, "" for none)."""

    url: Node
    method: Node | None
    param: str
    base: str


def merged_config(reader: JsValues, node: Node) -> Merged | None:
    """The config `node` (a name, an ``Object.assign`` call, an object with spreads) holds, when
    one of its objects writes the URL."""
    found = _sources(reader, node, 0)[:MAX_SOURCES]
    url: Node | None = None
    method: Node | None = None
    base = ""
    method_at = -1
    for index, source in enumerate(found):
        if source.type != "object":
            continue
        value = reader._pair_value(source, "url") or reader._pair_value(source, "uri")
        url = value if value is not None else url
        declared = declared_method(reader, source)
        if declared is not None:
            method, method_at = declared, index
        base = reader._option(source, "baseURL") or reader._option(source, "baseUrl") or base
    if url is None:
        return None
    later = [reader.text(s) for s in found[method_at + 1 :] if s.type == "identifier"]
    return Merged(url, method, later[-1] if later else "", base)


def options_method(reader: JsValues, options: Node | None) -> tuple[Node | None, str]:
    """The method the options of a request ask for, and the parameter merged in after it whose
    ``method`` the caller may set ("" for none): ``fetch(url, opts)``,
    ``fetch(url, {...options, headers})``, ``{method: "GET", ...options}``."""
    if options is None:
        return None, ""
    if options.type == "identifier":
        assigned = assigned_method(reader, options)
        if assigned is not None:
            return assigned, ""
    found = _sources(reader, options, 0)[:MAX_SOURCES]
    method: Node | None = None
    method_at = -1
    for index, source in enumerate(found):
        declared = declared_method(reader, source) if source.type == "object" else None
        if declared is not None:
            method, method_at = declared, index
    later = [reader.text(s) for s in found[method_at + 1 :] if s.type == "identifier"]
    return method, later[-1] if later else ""


def assigned_method(reader: JsValues, options: Node) -> Node | None:
    """The method set on an options object after it is made, ``init.method = "DELETE"``, the
    nearest before the request that sends `options`: the value assigned when the assignment
    always runs before the request (a statement of a block the request is in), else the name
    itself, whose value the text does not settle (``if (x) init.method = "PUT"``)."""
    made = reader._definition(options)
    if made is None or made.type != "object":
        return None
    for use in reader.named_nodes(
        reader.text(options), made.end_byte, options.start_byte, _sets_method, reverse=True
    ):
        member = use.parent
        if member is None or reader.text(child(member, "property")) != "method":
            continue
        assignment = member.parent
        statement = assignment.parent if assignment is not None else None
        if assignment is None or statement is None or statement.parent is None:
            continue
        block = statement.parent
        if (
            statement.type == "expression_statement"
            and block.start_byte <= options.start_byte < block.end_byte
        ):
            return child(assignment, "right")
        return options
    return None


def _sets_method(node: Node) -> bool:
    """`node` is the object of ``node.xxxxxx = ...`` (of a property the length of "method")."""
    member = node.parent
    assignment = member.parent if member is not None else None
    prop = child(member, "property") if member is not None else None
    return (
        node.type == "identifier"
        and member is not None
        and member.type == "member_expression"
        and is_field(node, "object")
        and prop is not None
        and prop.end_byte - prop.start_byte == len("method")  # the text is checked by the caller
        and assignment is not None
        and assignment.type == "assignment_expression"
        and is_field(member, "left")
    )


def declared_method(reader: JsValues, options: Node | None) -> Node | None:
    """The method an options object asks for: its ``X-HTTP-Method-Override`` header (the
    method the server runs), else its ``method``."""
    headers = reader._pair_value(options, "headers")
    if headers is not None and headers.type == "object":
        for item in headers.named_children:
            key = child(item, "key") if item.type == "pair" else None
            if key is not None and reader._key_name(key).lower() == _OVERRIDE:
                return child(item, "value")
    return reader._pair_value(options, "method")


def sending_call(reader: JsValues, config: Node | None) -> Node | None:
    """The call an options object is written in as an argument, unless the call only merges it
    (``Object.assign``)."""
    arguments = config.parent if config is not None else None
    call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    return call if call is not None and reader._callee_text(call) != "Object.assign" else None


def merged_into(reader: JsRequests, url: Node, config: Node | None) -> Http | None:
    """The request whose config `config` (holding the URL `url`) is merged into before it is
    sent."""
    target = config_target(reader, config) if config is not None else None
    http = reader.http(target[0]) if target is not None else None
    return http if http is not None and http.url is not None and http.url.id == url.id else None


def options_context(reader: JsRequests, use: Node) -> KeyContext | None:
    """A wrapper's parameter merged whole into the config a request is sent with: its keys are
    the request's options (`OPTIONS`)."""
    target = config_target(reader, use)
    http = reader.http(target[0]) if target is not None else None
    if http is None or target is None:
        return None
    if http.style == "config" and target[1] == 0:
        return KeyContext(OPTIONS, http)
    inner = (http.roles or {}).get(target[1]) if http.style == "wrapper" else None
    return KeyContext(OPTIONS, http) if inner is not None and inner.role == OPTIONS else None


def config_target(reader: JsValues, node: Node, depth: int = 0) -> tuple[Node, int] | None:
    """The call an options object (or a name for one) is finally passed to, through names and
    merges, and its argument index there."""
    for _ in range(4 * _MAX_HOPS):
        parent = node.parent
        if parent is None:
            return None
        if parent.type in _WRAPPING:
            node = parent
        elif parent.type == "spread_element" and parent.parent is not None:
            node = parent.parent
        elif parent.type == "arguments" and parent.parent is not None:
            call = parent.parent
            if reader._callee_text(call) == "Object.assign":
                node = call
                continue
            ids = [a.id for a in reader._arguments(call)]
            return (call, ids.index(node.id)) if node.id in ids else None
        elif parent.type == "variable_declarator" and is_field(node, "value"):
            name = child(parent, "name")
            if name is None or name.type != "identifier" or depth >= _MAX_HOPS:
                return None
            for count, use in enumerate(reader.declared_uses(reader.text(name), parent)):
                if count >= _MAX_USES:
                    break
                found = config_target(reader, use, depth + 1)
                if found is not None:
                    return found
            return None
        else:
            return None
    return None


def spread_into(node: Node) -> bool:
    """Whether the object (or name) `node` is spread into another object, perhaps under a
    condition (``{ name, ...(desc && { description: desc }) }``): its keys are some of that
    object's, not all."""
    for _ in range(4 * _MAX_HOPS):
        parent = node.parent
        if parent is None:
            return False
        if parent.type == "spread_element":
            return True
        if parent.type not in _SPREAD_PARTS:
            return False
        node = parent
    return False


def sources(reader: JsValues, node: Node) -> list[Node]:
    """The objects and parameters merged into the options `node`, in merge order."""
    return _sources(reader, node, 0)


def _sources(reader: JsValues, node: Node | None, depth: int) -> list[Node]:
    """The objects and parameters merged into `node`, in merge order."""
    if node is None or depth > _MAX_HOPS:
        return []
    if node.type in _WRAPPING:
        return _sources(reader, node.named_children[0] if node.named_child_count else None, depth)
    if node.type == "object":
        spread = [
            s
            for item in node.named_children
            if item.type == "spread_element" and item.named_child_count
            for s in _sources(reader, item.named_children[0], depth + 1)
        ]
        return [*spread, node]  # its own keys are written after the spreads, as a rule
    if node.type == "call_expression" and reader._callee_text(node) == "Object.assign":
        return [s for arg in reader._arguments(node) for s in _sources(reader, arg, depth + 1)]
    if node.type == "identifier":
        value = reader._definition(node)
        if value is not None:
            return _sources(reader, value, depth + 1)
        return [node] if is_parameter(reader, node) else []
    return []


def is_parameter(reader: JsValues, node: Node) -> bool:
    """Whether the name `node` reads is a parameter of a function it is in."""
    name = reader.text(node)
    return any(
        name in parameters(reader, scope) for scope in ancestors(node) if scope.type in FUNCTIONS
    )
