"""Calls in JavaScript and TypeScript: `fetch(url, init)`, `axios.verb(url, data?, config?)`,
`axios(config)`, instances from `axios.create({baseURL})`, `ky`/`got` options, and generated
clients (`assetApi.findAssets({...})`).

A key's role comes from the path of keys between it and the call argument it ends up in: a key of
the object inside ``body: JSON.stringify(...)`` of fetch's options is a body key, one under
``params`` of an axios config a query parameter. An object wrapped in ``new URLSearchParams`` and
put into the URL is a query string.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.held_keys import held_whole_js
from atlas_core.recognize.calls.js_appends import assigned_options, first_written
from atlas_core.recognize.calls.js_config import (
    OPTIONS,
    merged_into,
    options_context,
    sending_call,
    spread_into,
)
from atlas_core.recognize.calls.js_out_of_view import named_options_context
from atlas_core.recognize.calls.js_params import (
    builder_key_site,
    chain_context,
    search_assignment,
)
from atlas_core.recognize.calls.js_passed import is_query_builder
from atlas_core.recognize.calls.js_requests import Http, JsRequests
from atlas_core.recognize.calls.js_returns import (
    argument_in_url,
    built_by_several,
    callers,
    url_argument_of,
)
from atlas_core.recognize.calls.js_routes import enum_reads, route_reads
from atlas_core.recognize.calls.js_shapes import (
    OPTION_ROLES,
    PASS_THROUGH,
    TYPED,
    URL_KEYS,
    WITH_BODY,
)
from atlas_core.recognize.calls.js_strings import fills, join_step, to_string
from atlas_core.recognize.calls.js_values import CLASS_FIELDS
from atlas_core.recognize.calls.js_wrappers import in_forwarding_body, is_forwarded
from atlas_core.recognize.calls.js_xhr import xhr_send
from atlas_core.recognize.calls.site import (
    BODY,
    ENDPOINT,
    HTTP_VERBS,
    QUERY,
    CallSite,
)
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.recognize.calls.walk import KeyContext
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node


class JavaScriptCalls(JsRequests):
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
            callee = parent
            while callee.parent is not None and callee.parent.type == "await_expression":
                callee = callee.parent  # TypeScript's `await axios.get<T>(url)`
            call = callee.parent
            if call is None or call.type != "call_expression" or not is_field(callee, "function"):
                return None
            return self._call_site(call, node)
        if node.type == "identifier" and parent.type == "call_expression":
            return self._call_site(parent, node)
        if node.type in ("string", "template_string") and parent.type == "arguments":
            key = builder_key_site(self, node)  # `url.searchParams.append("name", q)`
            if key is not None:
                return key
        if node.type in ("string", "template_string", "identifier"):
            return self.url_part_site(node)
        return None

    # --- what the cursor is on ------------------------------------------------------------

    def _on_key(self, key: Node, obj: Node | None) -> CallSite | None:
        if obj is None or obj.type != "object":
            return None
        context = self._container(obj, [], False, 0)
        if context is None or (isinstance(context.http, Http) and self._forwards(context.http)):
            return None
        name = self._key_name(key)
        span = self.content_span(key)
        keys = tuple(dict.fromkeys(k for k in map(self._key_name, self._keys(obj)) if k))
        written = [c for c in obj.named_children if c.type != "comment"]
        complete = (
            context.direct
            and not spread_into(obj)
            and not context.merged
            and not context.nested
            and all(c.type in ("pair", "shorthand_property_identifier") for c in written)
            and len(keys) == len(written)
        ) or (not context.nested and len(keys) == len(written) and held_whole_js(self, obj))
        return self.context_site(context, name, span, keys, complete=complete)

    def _call_site(self, call: Node, name: Node) -> CallSite | None:
        """The cursor on the name of the function `call` calls: its request, or the request of
        the call whose URL it builds (`http.delete(paths.mapping(id))`) where the builder's URL
        reaches several calls, else none (its literal reads as that one call)."""
        sent = url_argument_of(self, call)
        if sent is None:
            return self.callee_site(call, name, self.http(call))
        return self.callee_site(call, name, sent) if built_by_several(self, call) else None

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
            if kind in PASS_THROUGH:
                node = parent
            elif kind == "object" and node.type == "spread_element":
                node = parent  # `{...defaults, ...params}`: the keys join the outer object
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
                elif call.type == "call_expression" and is_query_builder(self, call):
                    node, encoded = call, True  # `path + toQuery({...})`
                elif call.type == "new_expression" and wrapper == "HttpParams":
                    if path != ["fromObject"]:  # `new HttpParams({fromObject: {...}})`
                        return None
                    node, path = call, []
                else:
                    index = [a.id for a in parent.named_children].index(node.id)
                    chained = chain_context(self, call, path[::-1])
                    if chained is not None:
                        return chained
                    return self._argument_context(call, index, path[::-1])
            elif kind == "variable_declarator" and is_field(node, "value"):
                return self._follow(child(parent, "name"), parent, path, encoded, depth)
            elif kind == "member_expression" and to_string(self, node, parent):
                node = parent.parent or parent  # `params.toString()`
            elif kind == "assignment_expression" and is_field(node, "right") and encoded:
                http = search_assignment(self, parent)  # `url.search = params`
                return KeyContext(QUERY, http) if http is not None else None
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
        if name is not None and name.type == "member_expression":
            # `options.body = JSON.stringify(payload)`: the keys are the options' `body`
            key = self.text(child(name, "property"))
            name, path = child(name, "object"), [*path, key]
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

    def use_context(self, use: Node) -> KeyContext | None:
        if use.type == "shorthand_property_identifier":
            obj = use.parent
            return self._container(obj, [self.text(use)], False, 0) if obj is not None else None
        context = self._container(use, [], False, 0) or options_context(self, use)
        if context is not None and spread_into(use):
            context.merged = True  # `{ domainId, ...overrides }`: the caller's keys are some
        return context

    def _argument_context(self, call: Node, index: int, path: list[str]) -> KeyContext | None:
        http = self.http(call)
        if http is not None and http.style == "named" and path:
            return named_options_context(self, http, call, index, path)
        if http is not None and http.style in ("passed", "named"):
            # which keys a passed function reads, its callers' argument says; what a helper out
            # of view does with its other arguments, nothing here says
            return None
        if http is not None and http.style == "wrapper":
            inner = (http.roles or {}).get(index)
            if inner is None:
                return None
            if inner.role == OPTIONS:  # `send(path, {qs: {...}})`: the keys under `qs`
                role = OPTION_ROLES.get(path[0]) if path else None
                return KeyContext(role, http, nested=len(path) - 1) if role else None
            return KeyContext(
                inner.role, http, nested=inner.nested + len(path), merged=inner.merged
            )
        if http is None and index == 0:
            sent = xhr_send(self, call)  # `xhr.send(JSON.stringify({...}))`
            if sent is not None:
                return KeyContext(BODY, sent, nested=len(path))
        if http is None:
            operation = self.sdk_operation(call)
            if not operation:
                return None
            return KeyContext(BODY if path else QUERY, operation=operation)
        if http.style == "jquery":
            role = QUERY if http.method == "GET" else BODY
            return KeyContext(role, http, nested=len(path)) if index == 1 else None
        if http.style == "axios" and http.verb in WITH_BODY:
            if index == 1:
                return KeyContext(BODY, http, nested=len(path))
            options = 2
        else:
            options = 0 if http.style == "config" else 1
        if index != options or not path:
            return None
        role = OPTION_ROLES.get(path[0])
        if http.verb == "ajax" and path[0] == "data" and http.method == "GET":
            role = QUERY  # jQuery sends a GET's data as its query string
        if http.style == "fetch" and path[0] not in ("body", "headers", "payload"):
            return None
        return KeyContext(role, http, nested=len(path) - 1) if role else None

    # --- from a URL part to its call -------------------------------------------------------

    def url_step(self, node: Node, parent: Node) -> Node | None:
        kind = parent.type
        if kind in ("binary_expression", "parenthesized_expression", "template_string"):
            return parent
        if kind == "ternary_expression" and not is_field(node, "condition"):
            return parent  # `kind === "group" ? `/userGroups/${id}` : `/users/${id}``
        if kind in TYPED and parent.named_children[0].id == node.id:
            return parent  # `url as string`, `url!`
        if kind == "template_substitution" and parent.parent is not None:
            return parent.parent
        if kind == "member_expression" and to_string(self, node, parent):
            return parent.parent  # `fetch(url.toString())` of a `new URL(...)`
        if kind == "member_expression" and is_field(node, "object") and fills(self, parent):
            return parent.parent  # `fetch(TEMPLATE.replace("{assetId}", id))`
        if kind == "member_expression" and self.text(child(parent, "property")) == "href":
            return parent if is_field(node, "object") else None
        if kind in ("array", "member_expression"):
            return join_step(self, node, parent)  # `[BASE, "rest/2.0", "assets"].join("/")`
        if kind == "arguments" and parent.parent is not None:
            call = parent.parent
            if call.type == "call_expression" and argument_in_url(
                self, call, [a.id for a in self._arguments(call)].index(node.id)
            ):
                return call  # `endpoint("assets")` of the code's own URL builder
            if not (
                call.type == "new_expression" and self._callee_text(call) == "URL"
            ) and not self._callee_text(call).endswith(("encodeURIComponent", "String")):
                return None
            return call
        return None

    def url_in_call(self, root: Node, parent: Node) -> tuple[bool, Http | None]:
        if parent.type == "assignment_expression" and is_field(root, "right"):
            config = assigned_options(self, child(parent, "left"), URL_KEYS)
            if config is not None:  # `config.url = "/rest/2.0/..."; axios(config)`
                return True, merged_into(self, root, config)
        if parent.type == "arguments" and parent.parent is not None:
            http = self.http(parent.parent)
            if http is not None and http.url is not None and http.url.id == root.id:
                return True, http
            return True, None
        if parent.type == "pair" and self._key_name(child(parent, "key")) in URL_KEYS:
            config = parent.parent
            call = sending_call(self, config)
            return True, self.http(call) if call is not None else merged_into(self, root, config)
        if root.type == "shorthand_property_identifier" and self.text(root) in URL_KEYS:
            call = sending_call(self, parent)
            return True, self.http(call) if call is not None else merged_into(self, root, parent)
        return False, None

    def url_part_site(self, node: Node) -> CallSite | None:
        root = self.url_root(node)
        http = self.url_call(root, 0)
        if isinstance(http, Http) and self._forwards(http):
            return None
        site = super().url_part_site(node)
        appended = root.parent is not None and root.parent.type == "augmented_assignment_expression"
        if site is not None and appended and site.role == ENDPOINT and root.parent is not None:
            # `url += "/x"`: the call's endpoint is where `url` is declared, if written there
            return site if first_written(self, root.parent) else None
        return site

    def _forwards(self, http: Http) -> bool:
        """A request in a wrapper's body whose whole path is the wrapper's caller's: the call
        sites are the calls, the body itself is none."""
        return http.call is not None and in_forwarding_body(self, http.call, self.call_url(http))

    def assigned_uses(self, root: Node, parent: Node) -> list[Node] | None:
        if parent.type in CLASS_FIELDS and is_field(root, "value"):
            prop = child(parent, "property") or child(parent, "name")
            return self.field_uses(prop) if prop is not None else []
        left = child(parent, "left") if parent.type == "assignment_expression" else None
        if parent.type == "augmented_assignment_expression":
            # `url += "?name=" + q`: the name's reads after it
            name = child(parent, "left")
            if not is_field(root, "right") or name is None or name.type != "identifier":
                return None
            return self.declared_uses(self.text(name), parent)
        if left is not None and left.type == "member_expression" and is_field(root, "right"):
            http = search_assignment(self, parent)  # `url.search = "?name=" + q`
            if http is not None:
                return [http.url] if http.url is not None else []
            prop = child(left, "property")
            receiver = child(left, "object")
            if prop is None or receiver is None or receiver.type != "this":
                return []
            uses = self.field_uses(prop)
            return uses if len(uses) == 1 else []  # a base URL many methods share
        if parent.type in ("return_statement", "arrow_function"):
            if is_forwarded(self._value(root, 0)):
                return []  # `(resource) => `${API}/${resource}``: its callers write the path
            return callers(self, root)  # a URL-building function's value: its calls
        if parent.type == "pair" and is_field(root, "value"):
            return route_reads(self, parent, root)  # `const paths = {assets: "/rest/2.0/..."}`
        if parent.type == "enum_assignment" and is_field(root, "value"):
            return enum_reads(self, parent, root)  # `enum Path { Assets = "/assets" }`
        if parent.type not in ("variable_declarator", "assignment_expression"):
            return None
        name = child(parent, "name") or child(parent, "left")
        if name is None or name.type != "identifier":
            return []
        return self.declared_uses(self.text(name), parent)

    def use_root(self, use: Node) -> Node:
        return use if use.type == "shorthand_property_identifier" else self.url_root(use)

    def call_url(self, http: Http) -> str:
        return self._url_of(http, None)

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

    def client_method(self, call: Node) -> tuple[str, str] | None:
        function = self.callee(call)
        if function is None or function.type != "member_expression":
            return None
        receiver = self.text(child(function, "object")).split(".")[-1]
        return receiver, self.text(child(function, "property"))

    def is_transport_method(self, name: str) -> bool:
        return name in HTTP_VERBS or name == "request"


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"
