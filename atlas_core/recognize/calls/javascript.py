"""Calls in JavaScript and TypeScript: `fetch(url, init)`, `axios.verb(url, data?, config?)`,
`axios(config)`, instances from `axios.create({baseURL})`, `ky`/`got` options, and generated
clients (`assetApi.findAssets({...})`).

A key's role comes from the path of keys between it and the call argument it ends up in: a key of
the object inside ``body: JSON.stringify(...)`` of fetch's options is a body key, one under
``params`` of an axios config a query parameter. An object wrapped in ``new URLSearchParams`` and
put into the URL is a query string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.site import (
    BODY,
    HEADER,
    HTTP_VERBS,
    QUERY,
    UNKNOWN,
    CallSite,
    join_base,
    url_join,
)
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.recognize.calls.walk import CallWalk, KeyContext
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

_OPTION_ROLES = {
    "params": QUERY,
    "searchParams": QUERY,
    "query": QUERY,
    "qs": QUERY,
    "body": BODY,
    "data": BODY,
    "json": BODY,
    "form": BODY,
    "headers": HEADER,
}
_WITH_BODY = frozenset({"post", "put", "patch"})
_PASS_THROUGH = frozenset(
    {
        "array",
        "parenthesized_expression",
        "spread_element",
        "await_expression",
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
        "ternary_expression",
        "type_assertion",
    }
)
_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "function",
    }
)
_HTTP_RECEIVER = re.compile(r"(?i)axios|http|client|api|instance|request|agent|ky|got")
_OPTIONS_STYLE = frozenset({"ky", "got"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})


@dataclass(slots=True)
class _Http:
    method: str
    url: Node | None
    style: str  # "fetch", "axios" (verb call), "config" (axios(config)), "options" (ky, got)
    verb: str = ""
    base: str = ""


class JavaScriptCalls(CallWalk):
    LOOSE_STRINGS = False

    def read(self) -> CallSite | None:
        node = self.node_at(self.offset)
        if node is not None and node.type in ("string_fragment", "escape_sequence"):
            node = node.parent
        if node is None or node.type == "comment" or node.parent is None:
            return None
        parent = node.parent
        if parent.type == "pair" and is_field(node, "key"):
            return self._on_key(node, parent.parent)
        if node.type == "shorthand_property_identifier":
            return self._on_key(node, parent)
        if node.type == "property_identifier":
            call = parent.parent
            if call is None or call.type != "call_expression" or not is_field(parent, "function"):
                return None
            return self.callee_site(call, node, self.http(call))
        if node.type == "identifier" and parent.type == "call_expression":
            return self.callee_site(parent, node, self.http(parent))
        if node.type in ("string", "template_string", "identifier"):
            return self.url_part_site(node)
        return None

    # --- what the cursor is on ------------------------------------------------------------

    def _on_key(self, key: Node, obj: Node | None) -> CallSite | None:
        if obj is None or obj.type != "object":
            return None
        context = self._container(obj, [], False, 0)
        if context is None:
            return None
        name = self._key_name(key)
        span = self.content_span(key)
        keys = tuple(dict.fromkeys(k for k in map(self._key_name, self._keys(obj)) if k))
        written = [c for c in obj.named_children if c.type != "comment"]
        complete = (
            context.direct
            and not context.nested
            and all(c.type in ("pair", "shorthand_property_identifier") for c in written)
            and len(keys) == len(written)
        )
        return self.context_site(context, name, span, keys, complete=complete)

    # --- from a key to its call ----------------------------------------------------------

    def _container(
        self, node: Node, path: list[str], encoded: bool, depth: int
    ) -> KeyContext | None:
        """The call an object (or a name for one) ends up in; `path` is the keys passed on the
        way up (innermost first), `encoded` whether it went through URLSearchParams."""
        while depth <= MAX_DEPTH:
            parent = node.parent
            if parent is None:
                return None
            kind = parent.type
            if kind in _PASS_THROUGH:
                node = parent
            elif kind == "pair" and is_field(node, "value"):
                path = [*path, self._key_name(child(parent, "key"))]
                if parent.parent is None:
                    return None
                node = parent.parent
            elif kind in ("template_substitution", "binary_expression") and encoded:
                http = self.url_call(self.url_root(node), depth + 1)
                return KeyContext(QUERY, http) if http is not None else None
            elif kind == "arguments":
                call = parent.parent
                if call is None:
                    return None
                wrapper = self._callee_text(call)
                if wrapper.endswith(("JSON.stringify", "qs.stringify", "Object.assign")):
                    node = call
                elif call.type == "new_expression" and wrapper == "URLSearchParams":
                    node, encoded = call, True
                else:
                    index = [a.id for a in parent.named_children].index(node.id)
                    return self._argument_context(call, index, path[::-1])
            elif kind == "variable_declarator" and is_field(node, "value"):
                return self._follow(child(parent, "name"), parent, path, encoded, depth)
            elif kind == "assignment_expression" and is_field(node, "right"):
                return self._follow(child(parent, "left"), parent, path, encoded, depth)
            else:
                return None
            if node is None:
                return None
        return None

    def _follow(
        self, name: Node | None, declaration: Node, path: list[str], encoded: bool, depth: int
    ) -> KeyContext | None:
        if name is None or name.type != "identifier":
            return None
        for use in self.declared_uses(self.text(name), declaration):
            if use.type == "shorthand_property_identifier":
                if use.parent is None:
                    continue
                found = self._container(use.parent, [*path, self.text(use)], encoded, depth + 1)
            else:
                found = self._container(use, path, encoded, depth + 1)
            if found is not None:
                found.direct = False
                return found
        return None

    def _argument_context(self, call: Node, index: int, path: list[str]) -> KeyContext | None:
        http = self.http(call)
        if http is None:
            operation = self.sdk_operation(call)
            if not operation:
                return None
            return KeyContext(BODY if path else QUERY, operation=operation)
        if http.style == "axios" and http.verb in _WITH_BODY:
            if index == 1:
                return KeyContext(BODY, http, nested=len(path))
            options = 2
        else:
            options = 0 if http.style == "config" else 1
        if index != options or not path:
            return None
        role = _OPTION_ROLES.get(path[0])
        if http.style == "fetch" and path[0] not in ("body", "headers"):
            return None
        return KeyContext(role, http, nested=len(path) - 1) if role else None

    # --- from a URL part to its call -------------------------------------------------------

    def url_step(self, node: Node, parent: Node) -> Node | None:
        kind = parent.type
        if kind in ("binary_expression", "parenthesized_expression", "template_string"):
            return parent
        if kind == "template_substitution" and parent.parent is not None:
            return parent.parent
        if kind == "arguments" and parent.parent is not None:
            call = parent.parent
            if not (
                call.type == "new_expression" and self._callee_text(call) == "URL"
            ) and not self._callee_text(call).endswith(("encodeURIComponent", "String")):
                return None
            return call
        return None

    def url_in_call(self, root: Node, parent: Node) -> tuple[bool, _Http | None]:
        if parent.type == "arguments" and parent.parent is not None:
            http = self.http(parent.parent)
            if http is not None and http.url is not None and http.url.id == root.id:
                return True, http
            return True, None
        if parent.type == "pair" and self._key_name(child(parent, "key")) == "url":
            config = parent.parent
            arguments = config.parent if config is not None else None
            if arguments is not None and arguments.type == "arguments" and arguments.parent:
                return True, self.http(arguments.parent)
            return True, None
        if root.type == "shorthand_property_identifier" and self.text(root) == "url":
            arguments = parent.parent
            if arguments and arguments.type == "arguments" and arguments.parent:
                return True, self.http(arguments.parent)
        return False, None

    def assigned_uses(self, root: Node, parent: Node) -> list[Node] | None:
        if parent.type not in ("variable_declarator", "assignment_expression"):
            return None
        name = child(parent, "name") or child(parent, "left")
        if name is None or name.type != "identifier":
            return []
        return self.declared_uses(self.text(name), parent)

    def use_root(self, use: Node) -> Node:
        return use if use.type == "shorthand_property_identifier" else self.url_root(use)

    def call_url(self, http: _Http) -> str:
        value = self._value(http.url, 0) if http.url is not None else UNKNOWN
        return join_base(http.base, value)

    def is_leftmost(self, root: Node, node: Node) -> bool:
        first = root
        while first.named_child_count and first.type in (
            "binary_expression",
            "template_string",
            "template_substitution",
            "parenthesized_expression",
        ):
            first = first.named_children[0]
        return first.start_byte == node.start_byte

    # --- which calls are HTTP calls --------------------------------------------------------

    def http(self, call: Node) -> _Http | None:
        if call.type != "call_expression":
            return None
        function = child(call, "function")
        args = self._arguments(call)
        if function is None:
            return None
        callee = self.text(function)
        if callee in ("fetch", "window.fetch", "globalThis.fetch", "self.fetch"):
            options = args[1] if len(args) > 1 else None
            method = self._option(options, "method")
            return _Http(method.upper() if method else "GET", args[0] if args else None, "fetch")
        if (function.type == "identifier" and callee == "axios") or callee.endswith(".request"):
            return self._config_call(args)
        if function.type != "member_expression":
            return None
        verb = self.text(child(function, "property"))
        receiver = child(function, "object")
        if verb not in HTTP_VERBS or receiver is None or not args:
            return None
        if any(a.type in _FUNCTION_VALUES for a in args):
            return None  # `router.get(path, handler)`: a server route, not a request
        receiver_text = self.text(receiver)
        base = self._instance_base(receiver)
        made = self._definition(receiver) if receiver.type == "identifier" else None
        if made is not None and made.type == "new_expression":
            return None  # a Map's, a URLSearchParams' or a Headers' `get`
        looks_http = base is not None or bool(_HTTP_RECEIVER.search(receiver_text))
        if not looks_http and "/" not in self._value(args[0], 0):
            return None
        style = "options" if receiver_text in _OPTIONS_STYLE else "axios"
        return _Http(verb.upper(), args[0], style, verb, base or "")

    def _config_call(self, args: list[Node]) -> _Http | None:
        if not args:
            return None
        if args[0].type == "object":
            method = self._option(args[0], "method")
            url = self._pair_value(args[0], "url")
            base = self._option(args[0], "baseURL")
            return _Http((method or "GET").upper(), url, "config", base=base)
        return _Http("GET", args[0], "config")

    def _instance_base(self, receiver: Node) -> str | None:
        """``const api = axios.create({baseURL})``: the base of ``api.get(path)``, else None."""
        if receiver.type != "identifier":
            return None
        value = self._definition(receiver)
        if value is None or value.type != "call_expression":
            return None
        if not self._callee_text(value).endswith(".create"):
            return None
        args = self._arguments(value)
        return self._option(args[0], "baseURL") if args else ""

    def client_method(self, call: Node) -> tuple[str, str] | None:
        function = child(call, "function")
        if function is None or function.type != "member_expression":
            return None
        receiver = self.text(child(function, "object")).split(".")[-1]
        return receiver, self.text(child(function, "property"))

    def is_transport_method(self, name: str) -> bool:
        return name in HTTP_VERBS or name == "request"

    # --- values ----------------------------------------------------------------------------

    def _value(self, node: Node | None, depth: int) -> str:
        if node is None or depth > MAX_DEPTH:
            return UNKNOWN
        kind = node.type
        if kind in ("string", "template_string"):
            parts = []
            for part in node.named_children:
                if part.type == "template_substitution":
                    inner = part.named_children[0] if part.named_child_count else None
                    parts.append(self._value(inner, depth + 1))
                elif part.type in ("string_fragment", "escape_sequence"):
                    parts.append(self.text(part))
            return "".join(parts)
        if kind in ("parenthesized_expression", "as_expression", "non_null_expression"):
            return (
                self._value(node.named_children[0], depth + 1)
                if node.named_child_count
                else UNKNOWN
            )
        if kind == "binary_expression":
            operator = self.text(child(node, "operator"))
            left = self._value(child(node, "left"), depth + 1)
            if operator == "+":
                return left + self._value(child(node, "right"), depth + 1)
            if operator in ("??", "||"):
                return left if left != UNKNOWN else self._value(child(node, "right"), depth + 1)
            return UNKNOWN
        if kind in ("identifier", "shorthand_property_identifier"):
            return self._value(self._definition(node), depth + 1)
        if kind == "new_expression" and self._callee_text(node) == "URL":
            args = [self._value(a, depth + 1) for a in self._arguments(node)]
            return url_join(args[1], args[0]) if len(args) == 2 else (args[0] if args else UNKNOWN)
        return UNKNOWN

    def _definition(self, node: Node) -> Node | None:
        name = self.text(node)
        for ident in self.named_nodes(name, 0, node.start_byte, _is_identifier, reverse=True):
            parent = ident.parent
            if parent is None:
                continue
            if parent.type in ("formal_parameters", "required_parameter", "optional_parameter"):
                if self._within(node, self.scope_of(parent)):
                    return None  # a parameter: its value is the caller's
                continue
            declares = parent.type == "variable_declarator" and is_field(ident, "name")
            if declares and self._within(node, self.scope_of(parent)):
                return child(parent, "value")
        return None

    def is_use(self, node: Node) -> bool:
        return node.type in ("identifier", "shorthand_property_identifier")

    def is_string(self, node: Node) -> bool:
        return node.type in ("string", "template_string")

    def literal(self, node: Node) -> str:
        return self._key_name(node)

    # --- small readers ---------------------------------------------------------------------

    def _arguments(self, call: Node) -> list[Node]:
        arguments = child(call, "arguments")
        if arguments is None:
            return []
        return [a for a in arguments.named_children if a.type != "comment"]

    def _callee_text(self, call: Node) -> str:
        function = child(call, "function") or child(call, "constructor")
        return self.text(function)

    def _pair_value(self, obj: Node | None, key: str) -> Node | None:
        if obj is None or obj.type != "object":
            return None
        for item in obj.named_children:
            if item.type == "pair" and self._key_name(child(item, "key")) == key:
                return child(item, "value")
            if item.type == "shorthand_property_identifier" and self.text(item) == key:
                return item
        return None

    def _option(self, obj: Node | None, key: str) -> str:
        value = self._pair_value(obj, key)
        if value is None:
            return ""
        text = self._value(value, 0)
        return "" if text == UNKNOWN else text

    def _keys(self, obj: Node) -> list[Node]:
        found = []
        for item in obj.named_children:
            if item.type == "pair":
                key = child(item, "key")
                if key is not None:
                    found.append(key)
            elif item.type == "shorthand_property_identifier":
                found.append(item)
        return found

    def _key_name(self, key: Node | None) -> str:
        if key is None:
            return ""
        if key.type == "string":
            return "".join(self.text(p) for p in key.named_children)
        return self.text(key)

    def content_span(self, node: Node) -> tuple[int, int]:
        if node.type in ("string", "template_string") and node.named_child_count:
            return node.named_children[0].start_byte, node.named_children[-1].end_byte
        if node.type in ("string", "template_string"):
            return node.start_byte + 1, max(node.start_byte + 1, node.end_byte - 1)
        return node.start_byte, node.end_byte

    def scope_of(self, node: Node) -> Node | None:
        return next((a for a in ancestors(node) if a.type in _FUNCTIONS), None)

    @staticmethod
    def _within(node: Node, scope: Node | None) -> bool:
        return scope is None or scope.start_byte <= node.start_byte < scope.end_byte


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"
