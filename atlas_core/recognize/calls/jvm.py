"""Calls in Java and Groovy: generated-client builders (`FindAssetsRequest.builder().name(n)`) and
the client method they are passed to (`assetApi.findAssets(request)`), `java.net.http`
request builders, Spring's `RestTemplate` verbs and `WebClient` chains, and Groovy's
``new URL(...).openConnection()`` with ``setRequestMethod``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    from tree_sitter import Node

_STRINGS = frozenset({"string_literal", "character_literal"})
_STRING_PARTS = frozenset({"string_fragment", "multiline_string_fragment", "escape_sequence"})
# Links of a request chain that take its URL: java.net.http (`uri`, `newBuilder(uri)`), OkHttp
# (`new Request.Builder().url(..)`).
_URL_LINKS = frozenset({"uri", "newBuilder", "url"})
_HTTP_BUILDERS = frozenset({"Request.Builder", "okhttp3.Request.Builder"})
_BUILDER_STARTS = frozenset({"builder", "newBuilder"})
_CHAIN_ENDS = frozenset({"build", "retrieve", "exchange", "bodyToMono", "block", "send"})
_URL_WRAPPERS = frozenset({"create", "valueOf", "toString", "fromUriString", "format"})
_REST_TEMPLATE = re.compile(r"^(get|post|put|patch|delete|head|options)(?:For\w+)?$")
_GSTRING = re.compile(r"\$\{([^{}]*)\}|\$([A-Za-z_][A-Za-z0-9_.]*)")
_SCOPES = frozenset(
    {"method_declaration", "constructor_declaration", "lambda_expression", "closure"}
)


@dataclass(slots=True)
class _Http:
    method: str
    url: Node | None


class JavaCalls(CallWalk):
    CLIENT_RECEIVER = re.compile(r"(?:api|Api|API|client|Client|service|Service)$")

    def read(self) -> CallSite | None:
        node = self.node_at(self.offset)
        if node is not None and node.type in _STRING_PARTS:
            node = node.parent
        if node is None or node.type.endswith("comment") or node.parent is None:
            return None
        parent = node.parent
        if parent.type == "method_invocation" and is_field(node, "name"):
            return self._on_method(parent, node)
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
        return self.url_part_site(string)

    def url_step(self, node: Node, parent: Node) -> Node | None:
        if parent.type in ("binary_expression", "parenthesized_expression"):
            return parent
        if parent.type == "argument_list" and parent.parent is not None:
            call = parent.parent
            wraps = call.type == "object_creation_expression" and self.text(
                child(call, "type")
            ) in ("URI", "URL")
            if call.type == "method_invocation":
                wraps = self.text(child(call, "name")) in _URL_WRAPPERS
            if not wraps or parent.named_children[0].id != node.id:
                return None
            return call
        return None

    def url_in_call(self, root: Node, parent: Node) -> tuple[bool, _Http | None]:
        if parent.type == "argument_list" and parent.parent is not None:
            call = parent.parent
            if call.type != "method_invocation" or parent.named_children[0].id != root.id:
                return True, None
            name = self.text(child(call, "name"))
            if name in _URL_LINKS:
                return True, _Chain(self, call).http()
            return True, self.http(call)
        if parent.type == "method_invocation" and is_field(root, "object"):
            # new URL(...).openConnection(), as a Groovy or plain Java script writes it
            if self.text(child(parent, "name")) == "openConnection":
                return True, _Http(self._connection_method(parent), root)
            return True, None
        return False, None

    def assigned_uses(self, root: Node, parent: Node) -> list[Node] | None:
        if parent.type not in ("variable_declarator", "assignment_expression"):
            return None
        name = child(parent, "name") or child(parent, "left")
        return self.declared_uses(self.text(name), parent) if name is not None else []

    def _connection_method(self, open_call: Node) -> str:
        holder = open_call.parent
        name = child(holder, "name") if holder is not None else None
        if holder is None or holder.type != "variable_declarator" or name is None:
            return "GET"
        for use in self.declared_uses(self.text(name), holder):
            invocation = use.parent
            if invocation is None or invocation.type != "method_invocation":
                continue
            if self.text(child(invocation, "name")) == "setRequestMethod":
                args = child(invocation, "arguments")
                if args is not None and args.named_child_count:
                    return self._value(args.named_children[0], 0).upper()
        return "GET"

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
            method = self.text(args.named_children[1]).rsplit(".", 1)[-1]
            return _Http(method.upper() if method.lower() in HTTP_VERBS else "", first)
        return None

    def call_url(self, http: _Http) -> str:
        return self._value(http.url, 0) if http.url is not None else UNKNOWN

    def is_leftmost(self, root: Node, node: Node) -> bool:
        first = root
        while (
            first.type in ("binary_expression", "parenthesized_expression")
            and first.named_child_count
        ):
            first = first.named_children[0]
        return first.start_byte == node.start_byte

    def client_method(self, call: Node) -> tuple[str, str] | None:
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
        if kind in ("method_invocation", "object_creation_expression"):
            args = child(node, "arguments")
            name = self.text(child(node, "name")) if kind == "method_invocation" else "new"
            if args is not None and args.named_child_count and name in _URL_WRAPPERS | {"new"}:
                value = self._value(args.named_children[0], depth + 1)
                return re.sub(r"%[sd]", UNKNOWN, value) if name == "format" else value
        return UNKNOWN

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
            if parent.type == "formal_parameter" and self.scope_of(parent) == scope:
                return None  # a parameter: its value is the caller's
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


class _Chain:
    """A fluent chain of method calls around one invocation: its links, what it starts from (a
    request builder, `HttpRequest.newBuilder()`, a `WebClient` verb) and where its result goes."""

    def __init__(self, reader: JavaCalls, invocation: Node) -> None:
        self.reader = reader
        self.top = invocation
        while self.top.parent is not None and self.top.parent.type == "method_invocation":
            if not is_field(self.top, "object"):
                break
            self.top = self.top.parent
        self.links: list[Node] = []  # innermost first
        node: Node | None = self.top
        while node is not None and node.type == "method_invocation":
            self.links.insert(0, node)
            node = child(node, "object")
        self.start = node  # what the innermost call is made on
        self.request_class = self._request_class()

    def names(self) -> list[str]:
        return [self.reader.text(child(link, "name")) for link in self.links]

    def _request_class(self) -> str:
        reader = self.reader
        names = self.names()
        if self.start is None or not names:
            return ""
        start = self.start
        if start.type == "identifier" and names[0] in _BUILDER_STARTS:
            name = reader.text(start)
            return name if name != "HttpRequest" else ""
        if start.type == "object_creation_expression":
            kind = reader.text(child(start, "type"))
            if kind in _HTTP_BUILDERS:
                return ""  # an HTTP client's request, not a generated client's
            return kind.removesuffix(".Builder") if kind.endswith(".Builder") else ""
        if start.type == "identifier":
            value = reader._definition(start)
            if value is not None and value.type == "method_invocation":
                return _Chain(reader, value).request_class
        return ""

    def setters(self) -> tuple[str, ...]:
        return tuple(n for n in self.names() if n not in _BUILDER_STARTS | _CHAIN_ENDS)

    def operation(self) -> str:
        """The client method the built request is passed to, directly or through a variable."""
        reader = self.reader
        target: Node | None = self.top
        for _ in range(3):
            parent = target.parent if target is not None else None
            if parent is None:
                return ""
            if parent.type == "argument_list" and parent.parent is not None:
                return reader.sdk_operation(parent.parent)
            if parent.type == "variable_declarator":
                name = child(parent, "name")
                uses = reader.declared_uses(reader.text(name), parent) if name is not None else []
                target = uses[0] if uses else None
                continue
            return ""
        return ""

    def http(self) -> _Http | None:
        """``HttpRequest.newBuilder(uri?).uri(..).POST(..)`` or ``webClient.post().uri(..)``."""
        reader = self.reader
        names = self.names()
        url: Node | None = None
        method = ""
        for link, name in zip(self.links, names, strict=True):
            args = child(link, "arguments")
            first = args.named_children[0] if args is not None and args.named_child_count else None
            if name in _URL_LINKS and first is not None:
                url = first
            elif (name.lower() in HTTP_VERBS and name.isupper()) or (
                name in HTTP_VERBS and link is not self.links[-1]
            ):
                method = name.upper()
            elif name == "method" and first is not None:
                method = reader._value(first, 0).rsplit(".", 1)[-1].upper()
        start = self.start
        is_http = start is not None and (
            reader.text(start) == "HttpRequest"
            or (
                start.type == "object_creation_expression"
                and reader.text(child(start, "type")) in _HTTP_BUILDERS
            )
        )
        if not is_http and not (method and url is not None):
            return None
        return _Http(method or "GET", url)


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"
