"""Calls in Java and Groovy: generated-client builders (`FindAssetsRequest.builder().name(n)`) and
the client method they are passed to (`assetApi.findAssets(request)`), `java.net.http`
request builders, Spring's `RestTemplate` verbs and `WebClient` chains, and Groovy's
``new URL(...).openConnection()`` with ``setRequestMethod``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from atlas_core.recognize.calls.jvm_annotations import retrofit_http, retrofit_query
from atlas_core.recognize.calls.jvm_body import spring_key_site
from atlas_core.recognize.calls.jvm_chain import BUILDER_STARTS as _BUILDER_STARTS
from atlas_core.recognize.calls.jvm_chain import CHAIN_ENDS as _CHAIN_ENDS
from atlas_core.recognize.calls.jvm_chain import (
    URL_BUILDERS,
    URL_PARTS,
    builder_uses,
    chain_top,
    chain_value,
    url_object_http,
)
from atlas_core.recognize.calls.jvm_chain import URL_LINKS as _URL_LINKS
from atlas_core.recognize.calls.jvm_chain import Chain as _Chain
from atlas_core.recognize.calls.jvm_helpers import APACHE_REQUESTS, helper_http
from atlas_core.recognize.calls.jvm_helpers import Http as _Http
from atlas_core.recognize.calls.site import (
    BUILDER,
    HEADER,
    HTTP,
    HTTP_VERBS,
    QUERY,
    SDK,
    UNKNOWN,
    CallSite,
)
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.recognize.calls.walk import CallWalk
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tree_sitter import Node

_STRINGS = frozenset({"string_literal", "character_literal"})
_STRING_PARTS = frozenset({"string_fragment", "multiline_string_fragment", "escape_sequence"})
_URL_WRAPPERS = frozenset({"create", "valueOf", "toString", "fromUriString", "format"})
_REST_TEMPLATE = re.compile(r"^(get|post|put|patch|delete|head|options)(?:For\w+)?$")
# Methods of HTTP libraries' clients, never a generated client's operation (JAX-RS's
# `client.target(url)`, OkHttp's `client.newCall(request)`, java.net.http's `client.send`).
_TRANSPORT = frozenset(
    {"target", "request", "exchange", "execute", "newCall", "send", "sendAsync", "retrieve"}
)
_FORMAT_VERB = re.compile(r"%(?:\d+\$)?[-#+ 0,(]*\d*(?:\.\d+)?[a-zA-Z%]")
_GSTRING = re.compile(r"\$\{([^{}]*)\}|\$([A-Za-z_][A-Za-z0-9_.]*)")
_SCOPES = frozenset(
    {"method_declaration", "constructor_declaration", "lambda_expression", "closure"}
)


class JavaCalls(CallWalk):
    CLIENT_RECEIVER = re.compile(r"(?:api|Api|API|client|Client|service|Service)$")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # What each of the code's own methods sends (`jvm_helpers`), shared by a scan's reads.
        memo = self.memo
        self.helper_memo: dict[tuple[int, int], _Http | None] = (
            memo.remember(("jvm-helpers", 0), dict) if memo is not None else {}
        )
        self._bindings: dict[int, Node] = {}  # call-site arguments of the URL being rebuilt

    def read(self) -> CallSite | None:
        node = self.node_at(self.offset)
        if node is not None and node.type in _STRING_PARTS:
            node = node.parent
        if node is None or node.type.endswith("comment") or node.parent is None:
            return None
        parent = node.parent
        if parent.type == "method_invocation" and is_field(node, "name"):
            return self._on_method(parent, node)
        if parent.type == "method_reference" and parent.named_children[-1].id == node.id:
            return self.callee_site(parent, node, None)  # `items.forEach(assetApi::addAsset)`
        if parent.type == "map_item" and is_field(node, "key"):
            return self._on_named_argument(parent, node)
        if node.type in _STRINGS:
            return self._on_string(node)
        if node.type in ("identifier", "field_access"):
            return self.url_part_site(node)
        return None

    # --- what the cursor is on ------------------------------------------------------------

    def _on_method(self, invocation: Node, name: Node) -> CallSite | None:
        span = (name.start_byte, name.end_byte)
        chain = _Chain(self, invocation)
        if chain.request_class and self.text(name) not in _BUILDER_STARTS | _CHAIN_ENDS:
            return self.site(
                method="",
                url="",
                role=BUILDER,
                name=self.text(name),
                span=span,
                client=SDK,
                operation=chain.operation() or chain.request_class,
                keys=chain.setters(),
            )
        return self.callee_site(invocation, name, chain.http() or self.http(invocation))

    def _on_named_argument(self, item: Node, key: Node) -> CallSite | None:
        arguments = item.parent
        call = arguments.parent if arguments is not None else None
        if arguments is None or call is None or call.type != "method_invocation":
            return None
        operation = self.sdk_operation(call)
        if not operation:
            return None
        keys = tuple(
            self.literal(child(i, "key")) for i in arguments.named_children if i.type == "map_item"
        )
        return self.site(
            method="",
            url="",
            role=QUERY,
            name=self.literal(key),
            span=self.content_span(key),
            client=SDK,
            operation=operation,
            keys=keys,
        )

    def _on_string(self, string: Node) -> CallSite | None:
        arguments = string.parent
        invocation = arguments.parent if arguments is not None else None
        if (
            arguments is not None
            and invocation is not None
            and invocation.type == "method_invocation"
            and self.text(child(invocation, "name")) == "header"
            and arguments.named_children[0].id == string.id
        ):
            http = _Chain(self, invocation).http()
            if http is not None:
                return self.site(
                    method=http.method,
                    url=self.call_url(http),
                    role=HEADER,
                    name=self.literal(string),
                    span=self.content_span(string),
                    client=HTTP,
                )
        return (
            spring_key_site(self, string)
            or retrofit_query(self, string)
            or self.url_part_site(string)
        )

    def url_step(self, node: Node, parent: Node) -> Node | None:
        if parent.type in ("binary_expression", "parenthesized_expression"):
            return parent
        if parent.type == "field_access" and is_field(node, "object"):
            return None  # `new URL(u).text` (Groovy) is a GET: `url_in_call`
        if (
            parent.type == "method_invocation"
            and is_field(node, "object")
            and self.text(child(parent, "name")) == "toURL"
        ):
            return parent  # Groovy's `"${base}/rest/2.0/assets".toURL()`
        if parent.type == "lambda_expression" and is_field(node, "body"):
            # WebClient's ``uri(b -> b.path(p).build())``: the lambda stands for the URL.
            args = parent.parent
            call = args.parent if args is not None else None
            if call is not None and call.type == "method_invocation":
                return parent if self.text(child(call, "name")) == "uri" else None
            return None
        if parent.type == "argument_list" and parent.parent is not None:
            call = parent.parent
            made = (
                self.text(child(call, "type")) if call.type == "object_creation_expression" else ""
            )
            if made in URL_BUILDERS and parent.named_children[0].id == node.id:
                return chain_top(self, call)  # `new URIBuilder(url).addParameter(k, v).build()`
            wraps = made in ("URI", "URL")
            if call.type == "method_invocation":
                name = self.text(child(call, "name"))
                if name in URL_PARTS and parent.named_children[0].id == node.id:
                    return chain_top(self, call)
                wraps = name in _URL_WRAPPERS
            if not wraps or parent.named_children[0].id != node.id:
                return None
            return call
        return None

    def url_in_call(self, root: Node, parent: Node) -> tuple[bool, _Http | None]:
        if parent.type == "annotation_argument_list":
            return True, retrofit_http(self, root, parent)
        if parent.type == "argument_list" and parent.parent is not None:
            call = parent.parent
            index = next(i for i, a in enumerate(parent.named_children) if a.id == root.id)
            if call.type == "object_creation_expression":
                verb = APACHE_REQUESTS.get(self.text(child(call, "type")).rsplit(".", 1)[-1])
                return True, _Http(verb, root) if verb and index == 0 else None
            if call.type != "method_invocation":
                return True, None
            name = self.text(child(call, "name"))
            if index == 0 and name == "append":
                for use in builder_uses(self, call):
                    found = self.url_call(self.url_root(use), 1)
                    if isinstance(found, _Http):
                        return True, found
                return True, None
            if index == 0 and name in _URL_LINKS:
                return True, _Chain(self, call).http()
            direct = self.http(call) if index == 0 else None
            return True, direct or helper_http(self, call, index)
        if parent.type in ("field_access", "method_invocation") and is_field(root, "object"):
            return True, url_object_http(self, root, parent)
        return False, None

    def assigned_uses(self, root: Node, parent: Node) -> list[Node] | None:
        if parent.type not in ("variable_declarator", "assignment_expression"):
            return None
        name = child(parent, "name") or child(parent, "left")
        return self.declared_uses(self.text(name), parent) if name is not None else []

    def http(self, call: Node) -> _Http | None:
        """Spring's RestTemplate: ``getForObject(url, ...)``, ``exchange(url, HttpMethod.X, ...)``."""
        name = self.text(child(call, "name"))
        args = child(call, "arguments")
        first = args.named_children[0] if args is not None and args.named_child_count else None
        if first is None or child(call, "object") is None:
            return None
        verb = _REST_TEMPLATE.match(name)
        if verb and verb.group(1) in HTTP_VERBS:
            return _Http(verb.group(1).upper(), first)
        if name == "exchange" and args is not None and args.named_child_count > 1:
            second = args.named_children[1]
            method = self.text(second).rsplit(".", 1)[-1]
            if method.lower() in HTTP_VERBS:
                return _Http(method.upper(), first)
            return _Http("", first, method_node=second)  # a helper's parameter, maybe
        return None

    def call_url(self, http: _Http) -> str:
        if http.url is None:
            return UNKNOWN
        saved, self._bindings = self._bindings, http.bindings
        try:
            return self._value(http.url, 0)
        finally:
            self._bindings = saved

    def is_leftmost(self, root: Node, node: Node) -> bool:
        first = root
        while (
            first.type in ("binary_expression", "parenthesized_expression")
            and first.named_child_count
        ):
            first = first.named_children[0]
        return first.start_byte == node.start_byte

    def sdk_operation(self, call: Node) -> str:
        # OpenAPI Generator's Java clients add `fooWithHttpInfo` beside each operation `foo`.
        return super().sdk_operation(call).removesuffix("WithHttpInfo")

    def is_transport_method(self, name: str) -> bool:
        return name in HTTP_VERBS or name in _TRANSPORT

    def client_method(self, call: Node) -> tuple[str, str] | None:
        if call.type == "method_reference":  # `assetApi::findAssets`, `this.assetApi::addAsset`
            parts = call.named_children
            if len(parts) != 2 or parts[1].type != "identifier":
                return None
            return self.text(parts[0]).rsplit(".", 1)[-1], self.text(parts[1])
        receiver = child(call, "object")
        if receiver is None:
            return None
        return self.text(receiver).rsplit(".", 1)[-1], self.text(child(call, "name"))

    # --- values ----------------------------------------------------------------------------

    def _value(self, node: Node | None, depth: int) -> str:
        if node is None or depth > MAX_DEPTH:
            return UNKNOWN
        kind = node.type
        if kind == "string_literal":
            content = self.literal(node)
            if self.language == "groovy" and self.text(node).startswith('"'):
                return _GSTRING.sub(lambda m: self._gstring_part(m, node, depth), content)
            return content
        if kind == "character_literal":
            return self.literal(node)
        if kind == "parenthesized_expression" and node.named_child_count:
            return self._value(node.named_children[0], depth + 1)
        if kind == "binary_expression":
            if self.text(child(node, "operator")) != "+":
                return UNKNOWN
            return self._value(child(node, "left"), depth + 1) + self._value(
                child(node, "right"), depth + 1
            )
        if kind in ("identifier", "field_access"):
            return self._value(self._definition(node), depth + 1)
        if kind == "method_invocation":
            built = chain_value(self, node, depth)
            if built is not None:
                return built
        if kind in ("method_invocation", "object_creation_expression"):
            args = child(node, "arguments")
            name = self.text(child(node, "name")) if kind == "method_invocation" else "new"
            if args is not None and args.named_child_count and name in _URL_WRAPPERS | {"new"}:
                value = self._value(args.named_children[0], depth + 1)
                if name != "format":
                    return value
                rest = iter(args.named_children[1:])
                return _FORMAT_VERB.sub(lambda m: self._format_arg(m, rest, depth), value)
        return UNKNOWN

    def _format_arg(self, m: re.Match[str], rest: Iterator[Node], depth: int) -> str:
        if m.group(0) == "%%":
            return "%"
        arg = next(rest, None)
        return self._value(arg, depth + 1) if arg is not None else UNKNOWN

    def _gstring_part(self, m: re.Match[str], at: Node, depth: int) -> str:
        name = (m.group(1) or m.group(2) or "").strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return UNKNOWN
        value = self._definition_of(name, at)
        return self._value(value, depth + 1) if value is not None else UNKNOWN

    def _definition(self, node: Node) -> Node | None:
        if node.type == "field_access":
            if self.text(child(node, "object")) != "this":
                return None
            return self._field_definition(self.text(child(node, "field")), node)
        return self._definition_of(self.text(node), node)

    def _definition_of(self, name: str, at: Node) -> Node | None:
        scope = self.scope_of(at)
        for ident in self.named_nodes(name, 0, at.start_byte, _is_identifier, reverse=True):
            parent = ident.parent
            if parent is None:
                continue
            function = parent.parent.parent if parent.parent is not None else None
            if parent.type == "formal_parameter" and function is not None:
                if any(a.id == function.id for a in ancestors(at)):
                    return self._bindings.get(parent.id)  # a parameter: the caller's value
                continue
            if parent.type == "variable_declarator" and is_field(ident, "name"):
                home = self.scope_of(parent)
                if home is None or home == scope:
                    return child(parent, "value") or self._field_definition(name, at)
        return self._field_definition(name, at)

    def _field_definition(self, name: str, at: Node) -> Node | None:
        """A field's value: its initialiser or an assignment ``this.name = ...`` in the class."""
        klass = next((a for a in ancestors(at) if a.type == "class_declaration"), None)
        start, end = (klass.start_byte, klass.end_byte) if klass else (0, self.root.end_byte)
        for ident in self.named_nodes(name, start, end, _is_identifier):
            parent = ident.parent
            if parent is None:
                continue
            declared = parent.type == "variable_declarator" and is_field(ident, "name")
            if declared and parent.parent and parent.parent.type == "field_declaration":
                value = child(parent, "value")
                if value is not None:
                    return value
            assignment = parent.parent if parent.type == "field_access" else None
            assigned = assignment is not None and assignment.type == "assignment_expression"
            if assigned and is_field(parent, "left"):
                return child(assignment, "right")
        return None

    def scope_of(self, node: Node) -> Node | None:
        return next((a for a in ancestors(node) if a.type in _SCOPES), None)

    def literal(self, node: Node | None) -> str:
        if node is None:
            return ""
        if node.type == "identifier":
            return self.text(node)
        text = self.text(node)
        for quote in ('"""', "'''", '"', "'"):
            if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
                return text[len(quote) : -len(quote)]
        return text

    def is_string(self, node: Node) -> bool:
        return node.type in _STRINGS

    def content_span(self, node: Node) -> tuple[int, int]:
        text = self.text(node)
        if node.type in _STRINGS and len(text) >= 2:
            quote = 3 if text.startswith(('"""', "'''")) and len(text) >= 6 else 1
            return node.start_byte + quote, node.end_byte - quote
        return node.start_byte, node.end_byte


class GroovyCalls(JavaCalls):
    """Groovy reads as Java here; the grammar differs only in what `parse_source` joins."""


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"
