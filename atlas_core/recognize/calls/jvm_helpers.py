"""Calls through a Java or Groovy class's own methods: a method whose body sends a request whose
URL (and maybe method) it takes from its parameters (``ResponseEntity<String> fetch(String url,
HttpMethod method) { return rest.exchange(url, method, ...); }``), read at each call site with the
site's arguments in place of the parameters (``fetch(base + "/assets", HttpMethod.GET)``).

What a method sends is worked out once per (method, parameter) and document scan, through any
depth of such methods; a method that reaches itself again (directly or through others) is not
followed, so recursive wrappers cost one visit each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.site import HTTP_VERBS
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.jvm import JavaCalls

# Apache HttpClient's request classes: ``new HttpGet(url)``.
APACHE_REQUESTS = {f"Http{verb.capitalize()}": verb.upper() for verb in HTTP_VERBS} | {
    f"{verb.capitalize()}Method": verb.upper() for verb in HTTP_VERBS
}  # commons-httpclient 3


_DECLARATIONS = frozenset({"method_declaration", "function_definition"})
_MAX_USES = 64  # reads of one parameter followed


@dataclass(slots=True)
class Http:
    """An HTTP call: its method, its URL expression, and the call sites' arguments standing for
    the parameters that expression reads (by parameter node id), when it is made in a method
    of the code's own."""

    method: str
    url: Node | None
    bindings: dict[int, Node] = field(default_factory=dict)
    method_node: Node | None = None  # the expression naming the method when it is not literal


def helper_http(reader: JavaCalls, call: Node, index: int) -> Http | None:
    """The request `call` makes through a method of this file, its argument `index` reaching
    the URL; None when the callee is no such method."""
    receiver = child(call, "object")
    if receiver is not None and reader.text(receiver) != "this":
        return None
    arguments = child(call, "arguments")
    if arguments is None:
        return None
    args = arguments.named_children
    declaration = _declaration(reader, reader.text(child(call, "name")), len(args))
    if declaration is None:
        return None
    params = _parameters(declaration)
    key = (declaration.id, index)
    inner = reader.helper_memo.get(key)
    if key not in reader.helper_memo:
        reader.helper_memo[key] = None  # a method reaching itself is not followed again
        inner = reader.helper_memo[key] = _summary(reader, declaration, params[index])
    if inner is None:
        return None
    bindings = dict(inner.bindings)
    bindings.update({p.id: a for p, a in zip(params, args, strict=True)})
    method, method_node = inner.method, inner.method_node
    if not method and method_node is not None:
        at = next((k for k, p in enumerate(params) if _names(reader, method_node, p)), None)
        if at is not None:
            method, method_node = method_of(reader, args[at]), args[at]
    return Http(method, inner.url, bindings, None if method else method_node)


def method_of(reader: JavaCalls, node: Node) -> str:
    """An HTTP method an expression names: ``HttpMethod.GET``, ``"POST"``, ``Method.PUT``."""
    name = reader.text(node).strip("\"'").rsplit(".", 1)[-1]
    return name.upper() if name.lower() in HTTP_VERBS else ""


def _summary(reader: JavaCalls, declaration: Node, param: Node) -> Http | None:
    """The request `declaration`'s body sends with a URL reading `param`."""
    body = child(declaration, "body") or next(
        (c for c in declaration.named_children if c.type == "closure"), None
    )  # a Groovy script's `def name(..) {..}`
    name = child(param, "name")
    if body is None or name is None:
        return None
    text = reader.text(name)
    uses = list(reader.named_nodes(text, body.start_byte, body.end_byte, _is_ident))
    if reader.language == "groovy":  # `"${host}${path}"`: the GString is the use
        spelled = re.compile(
            rb"\$\{\s*"
            + re.escape(text.encode())
            + rb"\s*\}|\$"
            + re.escape(text.encode())
            + rb"\b"
        )
        for m in spelled.finditer(reader.data, body.start_byte, body.end_byte):
            node = reader.root.named_descendant_for_byte_range(m.start(), m.start())
            if node is None:
                continue
            string = next((a for a in ancestors(node) if a.type == "string_literal"), None)
            if string is not None and len(uses) < _MAX_USES:
                uses.append(string)
    for use in uses[:_MAX_USES]:
        found = reader.url_call(reader.url_root(use), 0)
        if isinstance(found, Http):
            return found
    return None


def _declaration(reader: JavaCalls, name: str, arity: int) -> Node | None:
    if not name:
        return None
    for ident in reader.named_nodes(name, 0, reader.root.end_byte, _is_ident):
        parent = ident.parent
        if parent is None or parent.type not in _DECLARATIONS or not is_field(ident, "name"):
            continue
        if len(_parameters(parent)) == arity:
            return parent
    return None


def _parameters(declaration: Node) -> list[Node]:
    params = child(declaration, "parameters")
    if params is None:
        return []
    return [p for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")]


def _names(reader: JavaCalls, node: Node, param: Node) -> bool:
    """Whether `node` is a read of the parameter `param`."""
    name = child(param, "name")
    if node.type != "identifier" or name is None or reader.text(node) != reader.text(name):
        return False
    declaration = param.parent.parent if param.parent is not None else None
    return declaration is not None and any(a.id == declaration.id for a in ancestors(node))


def _is_ident(node: Node) -> bool:
    return node.type == "identifier"


def connection_method(reader: JavaCalls, open_call: Node) -> tuple[str, Node | None]:
    """The method ``setRequestMethod`` gives the connection ``url.openConnection()`` opens, or
    the expression it is given when it is not literal (a helper's parameter, maybe)."""
    opened, holder = open_call, open_call.parent
    while holder is not None and holder.type in ("cast_expression", "parenthesized_expression"):
        opened, holder = holder, holder.parent  # `(HttpURLConnection) url.openConnection()`
    if holder is None:
        return "GET", None
    if holder.type == "assignment_expression" and is_field(opened, "right"):
        name = child(holder, "left")
    elif holder.type == "variable_declarator":
        name = child(holder, "name")
    elif holder.type == "expression_statement" or (
        holder.type == "method_invocation" and is_field(opened, "object")
    ):
        return "GET", None  # `url.openConnection().getInputStream()`: no method was set
    else:
        return "", None  # handed on or returned: its method is set where it goes
    if name is None or name.type != "identifier":
        return "", None
    for use in reader.declared_uses(reader.text(name), holder):
        invocation = use.parent
        if invocation is None:
            continue
        given = _method_property(reader, invocation)
        if given is not None:  # Groovy's `conn.requestMethod = "DELETE"`
            method = reader._value(given, 0)
            if method.lower() in HTTP_VERBS:
                return method.upper(), None
            return "", given
        if invocation.type != "method_invocation":
            continue
        if reader.text(child(invocation, "name")) == "setRequestMethod":
            args = child(invocation, "arguments")
            if args is not None and args.named_child_count:
                given = args.named_children[0]
                method = reader._value(given, 0)
                if method.lower() in HTTP_VERBS:
                    return method.upper(), None
                return "", given
    return "GET", None


def _method_property(reader: JavaCalls, access: Node) -> Node | None:
    """The value assigned to a connection's ``requestMethod`` property (Groovy), or None."""
    assignment = access.parent
    if access.type != "field_access" or reader.text(child(access, "field")) != "requestMethod":
        return None
    if assignment is None or assignment.type != "assignment_expression":
        return None
    return child(assignment, "right") if is_field(access, "left") else None
