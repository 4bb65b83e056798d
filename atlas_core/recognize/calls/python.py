"""Calls in Python: `requests`/`httpx`/`aiohttp` verbs and `request(method, url)`, session and
client wrappers, and generated clients (`api.find_assets(name=...)`).

A key is tied to its call through the containers and names between them: ``params = {...}``,
``params["k"] = v`` and ``requests.get(url, params=params)`` are one call, and so are ``item = {...}``,
``payload = [item]`` and ``json=payload``. A URL is rebuilt through the assignments it names,
in the function, the class (``self.base``) or the module.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.held_keys import held_whole
from atlas_core.recognize.calls.python_http import (
    GENERATED_SENDERS,
    URL_KEYWORDS,
    PythonHttp,
    SentRequest,
)
from atlas_core.recognize.calls.python_models import model_field_site
from atlas_core.recognize.calls.python_wrappers import KEYWORD_ROLES
from atlas_core.recognize.calls.site import (
    BODY,
    HTTP_VERBS,
    QUERY,
    SDK,
    UNKNOWN,
    CallSite,
    join_base,
)
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.recognize.calls.walk import KeyContext
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

_STRING_PARTS = frozenset({"string_start", "string_content", "string_end", "escape_sequence"})
# Containers a key passes through unchanged on its way to a call argument.
_TRANSPARENT = frozenset(
    {
        "list",
        "tuple",
        "set",
        "parenthesized_expression",
        "dictionary_splat",
        "list_splat",
        "conditional_expression",
        "boolean_operator",
        "await",
        "expression_list",
    }
)
_TRANSPARENT_CALLS = frozenset({"dumps", "dict", "list", "copy", "deepcopy", "urlencode"})
_URL_COMPOSERS = frozenset({"urljoin", "join", "format", "str", "quote"})


# The map a verb method takes right after the URL: requests' and httpx's `get(url, params)`,
# `post(url, data)`. Any other function's maps by position (`api_call("GET", url, {...})`, defined
# who knows where) have no role the reader can know.
_POSITIONAL_ROLE = {
    "get": QUERY,
    "head": QUERY,
    "options": QUERY,
    "post": BODY,
    "put": BODY,
    "patch": BODY,
}


class PythonCalls(PythonHttp):
    def read(self) -> CallSite | None:
        node = self.node_at(self.offset)
        if node is None or node.type == "comment":
            return None
        if node.type in _STRING_PARTS or node.type == "interpolation":
            node = node.parent
        if node is None:
            return None
        if node.type not in ("string", "identifier"):
            return None
        field = model_field_site(self, node)  # ``domainId: str`` of a model sent as a body
        if field is not None:
            return field
        return self._on_string(node) if node.type == "string" else self._on_identifier(node)

    # --- what the cursor is on ------------------------------------------------------------

    def _on_string(self, string: Node) -> CallSite | None:
        parent = string.parent
        if parent is None:
            return None
        if parent.type == "expression_statement" and parent.named_child_count == 1:
            return None  # a docstring or a bare string: prose, not a call
        if parent.type == "pair" and is_field(string, "key"):
            return self._on_key(string, parent.parent)
        if parent.type == "subscript" and is_field(string, "subscript"):
            return self._on_subscript_key(parent, string)
        return self.url_part_site(string)

    def _on_identifier(self, ident: Node) -> CallSite | None:
        parent = ident.parent
        if parent is None:
            return None
        if parent.type == "keyword_argument" and is_field(ident, "name"):
            return self._on_keyword(parent)
        if parent.type == "attribute" and is_field(ident, "attribute"):
            call = parent.parent
            if call is not None and call.type == "call" and is_field(parent, "function"):
                return self.callee_site(call, ident, self.http(call))
            if self._is_self(child(parent, "object")):
                return self.url_part_site(parent)
            return None
        return self.url_part_site(ident)

    def _on_key(self, key: Node, dictionary: Node | None) -> CallSite | None:
        if dictionary is None:
            return None
        if self.memo is None:
            found = self._dict_context(dictionary)
        else:  # the keys of one dict share their call: found out once per dict in a scan
            found = self.memo.remember(
                ("dict", dictionary.id), lambda: self._dict_context(dictionary)
            )
        if found is None:
            return None
        context, keys, complete = found
        return self._key_site(context, self.literal(key), key, keys, complete=complete)

    def _dict_context(self, dictionary: Node) -> tuple[KeyContext, tuple[str, ...], bool] | None:
        context = self._container(dictionary, 0)
        if context is None:
            return None
        keys = self._dict_keys(dictionary)
        complete = (
            context.direct
            and not context.nested
            and all(p.type in ("pair", "comment") for p in dictionary.named_children)
            and len(keys) == sum(p.type == "pair" for p in dictionary.named_children)
        ) or (not context.nested and held_whole(self, dictionary))
        return context, keys, complete

    def _on_subscript_key(self, subscript: Node, key: Node) -> CallSite | None:
        target = child(subscript, "value")
        assignment = subscript.parent
        if target is None or target.type != "identifier" or assignment is None:
            return None
        if assignment.type != "assignment" or not is_field(subscript, "left"):
            return None
        context = self._var_container(self.text(target), assignment, 0, 0)
        if context is None:
            return None
        keys = self._var_keys(self.text(target), assignment)
        held = self._definition_before(self.text(target), assignment)
        complete = (
            not context.nested
            and held is not None
            and held.type == "dictionary"
            and held_whole(self, held)
        )
        return self._key_site(context, self.literal(key), key, keys, complete=complete)

    def _on_keyword(self, keyword: Node) -> CallSite | None:
        call = keyword.parent.parent if keyword.parent else None
        if call is None or call.type != "call":
            return None
        name = self.text(child(keyword, "name"))
        kwargs = tuple(self.text(child(k, "name")) for k in self._kwargs(call))
        if self._callee_name(call) == "dict":
            context = self._container(call, 0)
            if context is None:
                return None
            arguments = child(call, "arguments")
            whole = arguments is not None and all(
                a.type in ("keyword_argument", "comment") for a in arguments.named_children
            )  # no map or ``**extra`` merged in
            complete = whole and context.direct and not context.nested
            return self._key_site(context, name, child(keyword, "name"), kwargs, complete=complete)
        operation = self.sdk_operation(call)
        if not operation:
            return None
        span = child(keyword, "name")
        return self.site(
            method="",
            url="",
            role=QUERY,
            name=name,
            span=(span.start_byte, span.end_byte) if span else (0, 0),
            client=SDK,
            operation=operation,
            keys=kwargs,
        )

    def _key_site(
        self,
        context: KeyContext,
        name: str,
        key: Node | None,
        keys: tuple[str, ...],
        *,
        complete: bool = False,
    ) -> CallSite:
        span = self.content_span(key) if key is not None else (0, 0)
        return self.context_site(context, name, span, keys, complete=complete)

    # --- from a key to its call ----------------------------------------------------------

    def _container(self, node: Node, depth: int, nested: int = 0) -> KeyContext | None:
        """The call a dict (or a name for one) ends up in, and as what; `nested` counts the
        objects it sits in below the call's own (a value of ``"attributes": {...}``)."""
        while depth <= MAX_DEPTH:
            parent = node.parent
            if parent is None:
                return None
            kind = parent.type
            if (
                kind == "dictionary_splat"
                and parent.parent
                and parent.parent.type == "argument_list"
            ):
                return None  # ``**kwargs`` at a call: its keys are the call's keywords
            if kind in _TRANSPARENT or (kind == "pair" and is_field(node, "value")):
                up = parent if kind != "pair" else parent.parent
                if up is None:
                    return None
                nested += kind == "pair"
                node = up
                continue
            if kind == "argument_list":
                call = parent.parent
                if call is None:
                    return None
                if self._callee_name(call) in _TRANSPARENT_CALLS:
                    node = call
                    continue
                function = child(call, "function")
                if function is not None and function.type == "attribute":
                    receiver = child(function, "object")
                    if (
                        self._callee_name(call) == "update"
                        and receiver is not None
                        and receiver.type == "identifier"
                    ):
                        return self._var_container(self.text(receiver), call, depth + 1, nested)
                return _placed(self._argument_context(call, node), nested)
            if kind == "keyword_argument":
                call = parent.parent.parent if parent.parent else None
                if call is None:
                    return None
                if self._callee_name(call) in _TRANSPARENT_CALLS:
                    node = call
                    continue
                keyword = self.text(child(parent, "name"))
                return _placed(self._keyword_context(call, keyword), nested)
            if kind == "assignment" and is_field(node, "right"):
                target = child(parent, "left")
                if target is None:
                    return None
                if target.type == "identifier":
                    return self._var_container(self.text(target), parent, depth + 1, nested)
                if target.type == "subscript":
                    holder = child(target, "value")
                    if holder is not None and holder.type == "identifier":
                        name = self.text(holder)
                        return self._var_container(name, parent, depth + 1, nested + 1)
                return None
            return None
        return None

    def _var_container(self, name: str, after: Node, depth: int, nested: int) -> KeyContext | None:
        for use in self._uses(name, after):
            found = self._container(use, depth, nested)
            if found is not None:
                found.direct = False
                return found
        return None

    def _argument_context(self, call: Node, argument: Node) -> KeyContext | None:
        http = self.http(call)
        if http is not None and http.sent is not None:
            index = next((i for i, a in enumerate(self._positional(call)) if a == argument), -1)
            role = http.positional_roles.get(index)
            return KeyContext(role, http) if role else None
        if http is not None and self._callee_name(call) not in GENERATED_SENDERS:
            # A generated client's `call_api` takes path, query and header maps by position.
            role = _POSITIONAL_ROLE.get(self._callee_name(call))
            return KeyContext(role, http) if role and argument != http.url else None
        operation = self.sdk_operation(call)
        return KeyContext(BODY, operation=operation) if operation else None

    def _keyword_context(self, call: Node, keyword: str) -> KeyContext | None:
        http = self.http(call)
        if http is not None:
            roles = http.keyword_roles if http.sent is not None else KEYWORD_ROLES
            role = roles.get(keyword)
            return KeyContext(role, http) if role else None
        operation = self.sdk_operation(call)
        if not operation:
            return None
        role = BODY if keyword in ("body", "json", "data", "request") else QUERY
        return KeyContext(role, operation=operation)

    # --- from a URL part to its call -------------------------------------------------------

    def url_step(self, node: Node, parent: Node) -> Node | None:
        kind = parent.type
        if kind in ("binary_operator", "parenthesized_expression", "concatenated_string"):
            return parent
        if kind == "interpolation" and parent.parent is not None:
            return parent.parent
        if kind in ("list", "tuple") and self._is_join_argument(parent):
            return parent
        if kind == "argument_list" and parent.parent is not None:
            call = parent.parent
            if self._callee_name(call) in _URL_COMPOSERS or self.builds_from(call, node):
                return call
            return None
        if kind == "call" and is_field(node, "function"):
            return parent if self._builds_url(parent) else None  # ``asset_url(i)``
        if kind == "attribute" and is_field(node, "object") and parent.parent is not None:
            call = parent.parent  # ``"{}/rest/2.0/assets".format(base)``, ``urls.asset(i)``
            if call.type != "call" or not is_field(parent, "function"):
                return None
            format_call = self.text(child(parent, "attribute")) == "format"
            return call if format_call or self._builds_url(call) else None
        return None

    def url_in_call(self, root: Node, parent: Node) -> tuple[bool, SentRequest | None]:
        if parent.type in ("argument_list", "keyword_argument"):
            call = parent.parent
            if parent.type == "keyword_argument" and call is not None:
                call = call.parent  # keyword_argument -> argument_list -> call
            http = self.http(call) if call is not None else None
            if http is None:
                return True, None
            if http.sent is not None:  # the code's own helper: any argument its URL is built from
                return True, http if any(u.id == root.id for u in http.urls) else None
            if (
                parent.type == "keyword_argument"
                and self.text(child(parent, "name")) not in URL_KEYWORDS
            ):
                return True, None
            url = http.url
            if url is None or url.id != root.id or (call is not None and self.forwards(call)):
                return True, None
            return True, http
        return False, None

    def assigned_uses(self, root: Node, parent: Node) -> list[Node] | None:
        if parent.type in ("return_statement", "lambda"):  # a URL builder's: where it is called
            return self.builder_callers(root)
        if parent.type not in ("assignment", "augmented_assignment") or not is_field(root, "right"):
            return None
        target = child(parent, "left")
        return list(self._target_uses(target, parent)) if target is not None else []

    def call_url(self, http: SentRequest) -> str:
        if self.memo is None:
            return self._read_call_url(http)
        return self.memo.remember(("url", id(http)), lambda: self._read_call_url(http))

    def _read_call_url(self, http: SentRequest) -> str:
        if http.sent is not None:
            return http.sent
        if http.url is None:
            return join_base(http.base, UNKNOWN)
        return join_base(http.base, self._value(http.url, 0, {}))

    def is_leftmost(self, root: Node, node: Node) -> bool:
        if root.start_byte == node.start_byte:
            return True
        first = root
        while first.named_child_count and first.type in (
            "binary_operator",
            "string",
            "interpolation",
            "concatenated_string",
            "parenthesized_expression",
        ):
            nxt = next((c for c in first.named_children if c.type != "string_start"), None)
            if nxt is None:
                break
            first = nxt
            if first.type == "interpolation":
                first = child(first, "expression") or first
        return first.start_byte == node.start_byte

    # --- which calls are HTTP calls --------------------------------------------------------

    def client_method(self, call: Node) -> tuple[str, str] | None:
        function = child(call, "function")
        if function is None or function.type != "attribute":
            return None
        # `AssetsApi(client).find_assets(...)`: the class made in place, not its argument.
        receiver = re.sub(r"\([^()]*\)$", "", self.text(child(function, "object")))
        last = re.split(r"[.(]", receiver.rstrip(")"))[-1] if receiver else ""
        return last, self._callee_name(call)

    def is_transport_method(self, name: str) -> bool:
        return (
            name in HTTP_VERBS
            or name == "request"
            or name.startswith("_")
            or name in GENERATED_SENDERS  # a generated client's own sending, not an operation
        )


def _placed(context: KeyContext | None, nested: int) -> KeyContext | None:
    """A call's context for a dict written right in it, `nested` objects deep."""
    if context is not None:
        context.nested, context.direct = nested, True
    return context
