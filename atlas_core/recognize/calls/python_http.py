"""Which Python calls send HTTP requests: `requests`/`httpx`/`aiohttp` verbs and
`request(method, url)` on a session or client, ``functools.partial`` of them, `urlopen`, a
generated client's `call_api(path, method)`, and calls of the code's own functions that send one
(`python_wrappers`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.python_mocks import mocked
from atlas_core.recognize.calls.python_wrappers import KEYWORD_ROLES, PythonWrappers
from atlas_core.recognize.calls.site import BODY, HTTP_VERBS, QUERY, UNKNOWN, join_base
from atlas_core.recognize.calls.verbs import named_verb
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

URL_KEYWORDS = ("url", "endpoint", "path", "uri", "route", "resource_path")
# A generated client's request functions: where the path and the method are, by position.
GENERATED_SENDERS = {"call_api": (0, 1), "param_serialize": (1, 0)}
_HTTP_RECEIVER = re.compile(r"(?i)requests|httpx|aiohttp|session|client|http")
# What makes an HTTP session or client: ``self.s = requests.Session()``, ``httpx.Client(...)``.
_SESSION = re.compile(
    r"^(?:requests|httpx|aiohttp)\.(?:Session|Client|AsyncClient|ClientSession)\("
)


@dataclass(slots=True)
class SentRequest:
    """An HTTP call in Python code: its method, the URL argument, and what reads it."""

    method: str
    url: Node | None
    base: str = ""  # a client's base_url
    method_node: Node | None = None  # the expression giving the method, where not a literal
    # A call of the code's own function that sends the request (`python_wrappers`): the URL it
    # sends with this call's arguments, the arguments that URL is built from, and what each
    # keyword (or positional) argument becomes.
    sent: str | None = None
    urls: tuple[Node, ...] = ()
    keyword_roles: dict[str, str] = field(default_factory=dict)
    positional_roles: dict[int, str] = field(default_factory=dict)


class PythonHttp(PythonWrappers):
    def http(self, call: Node) -> SentRequest | None:
        if self.memo is None:
            return self._read_http(call)
        return self.memo.remember(("http", call.id), lambda: self._read_http(call))

    def _read_http(self, call: Node) -> SentRequest | None:
        bound = self.bound_call(call) if call.type == "call" else None
        if bound is not None:
            url = bound.url_args[0] if bound.url_args else None
            return SentRequest(
                bound.method,
                url,
                sent=bound.url,
                urls=bound.url_args,
                keyword_roles=bound.keyword_roles,
                positional_roles=bound.positional_roles,
            )
        return self._direct(call)

    def _direct(self, call: Node) -> SentRequest | None:
        if self.memo is None:
            return self._read_direct(call)
        return self.memo.remember(("direct", call.id), lambda: self._read_direct(call))

    def direct_template(self, call: Node, bind: dict[str, str]) -> tuple[str, str] | None:
        http = self._direct(call)
        if http is None:
            return None
        url = join_base(http.base, self._value(http.url, 0, bind) if http.url else UNKNOWN)
        method = http.method
        if not method and http.method_node is not None:
            method = self._value(http.method_node, 0, bind)
        return url, method

    def direct_role(self, call: Node, keyword: str, index: int) -> str | None:
        if keyword:
            return KEYWORD_ROLES.get(keyword)
        http = self._direct(call)
        if http is None or index < 0 or index >= len(args := self._positional(call)):
            return None
        if self._callee_name(call) in GENERATED_SENDERS:
            return None  # path, query and header maps by position: no one role
        if args[index] in (http.url, http.method_node):
            return None
        return QUERY if http.method == "GET" else BODY

    def _read_direct(self, call: Node) -> SentRequest | None:
        if call.type != "call" or (call.parent is not None and call.parent.type == "decorator"):
            return None  # `@app.get("/assets")` declares a server route
        function = child(call, "function")
        args = self._positional(call)
        kwargs = {
            self.text(child(k, "name")): value
            for k in self._kwargs(call)
            if (value := child(k, "value")) is not None
        }
        if function is None:
            return None
        name = self._callee_name(call)
        receiver = child(function, "object") if function.type == "attribute" else None
        if receiver is not None and mocked(self, receiver):
            return None  # a test double registering a fake answer: no request is sent
        if function.type == "identifier":
            made = self._definition(function)
            if made is not None and made.type == "call" and self._callee_name(made) == "partial":
                return self._partial(made, args, kwargs)
        if name in HTTP_VERBS and receiver is not None:
            # An adapter defined elsewhere (`self._rest.get(endpoint="/assets")`) names its URL
            # argument in its own words.
            url = args[0] if args else next((kwargs[k] for k in URL_KEYWORDS if k in kwargs), None)
            receiver_text = self.text(receiver)
            made = (
                self._definition(receiver) if receiver.type in ("identifier", "attribute") else None
            )
            if made is not None and made.type in ("dictionary", "set", "list"):
                return None  # a dict's `get`
            looks_http = (
                bool(_HTTP_RECEIVER.search(receiver_text))
                or any(k in KEYWORD_ROLES for k in kwargs)
                or (made is not None and made.type == "call" and _SESSION.search(self.text(made)))
            )
            if not looks_http and (url is None or "/" not in self._value(url, 0, {})):
                return None
            return SentRequest(name.upper(), url, self._client_base(receiver))
        if name in GENERATED_SENDERS:
            # A generated client's internals (``call_api(path, method, ...)``, or by keyword;
            # openapi-generator 7's ``param_serialize(method=..., resource_path=...)``): the path
            # is relative to a base the client is configured with at runtime, which may be
            # another API's.
            path_at, method_at = GENERATED_SENDERS[name]
            url = args[path_at] if len(args) > path_at else kwargs.get("resource_path")
            method_node = args[method_at] if len(args) > method_at else kwargs.get("method")
            if url is None or method_node is None:
                return None
            method = self._method_named(method_node)
            return SentRequest(method, url, UNKNOWN, method_node=method_node)
        method_node = args[0] if args else kwargs.get("method")
        by_method = name == "request" and receiver is not None  # `session.request(method, url)`
        # Any other call with a method literal first (`http("GET", url)`); only `request` reads a
        # name the method was assigned to.
        method = (self._method_named if by_method else self._method_literal)(method_node)
        if method or by_method:
            url = (args[1] if len(args) > 1 else kwargs.get("url")) if args else kwargs.get("url")
            base = self._client_base(receiver) if receiver else ""
            return SentRequest(method, url, base, method_node=None if method else method_node)
        if name in ("urlopen", "Request") and args:
            return SentRequest(self._method_named(kwargs.get("method")), args[0])
        verb = named_verb(name)
        if verb and self._callee(call) is None:
            # A helper imported from another module (`api_get(url)`, `post_request(url, body)`):
            # its body is not in view, its name says the method, and the URL it is given says
            # the endpoint. One whose body is in view is read through that body instead.
            url = args[0] if args else next((kwargs[k] for k in URL_KEYWORDS if k in kwargs), None)
            if url is not None and "/" in self._value(url, 0, {}):
                return SentRequest(verb, url)
        return None

    def _partial(self, made: Node, args: list[Node], kwargs: dict[str, Node]) -> SentRequest | None:
        """``get = partial(session.request, "GET")`` and then ``get(url)``."""
        fixed = self._positional(made)
        target = fixed[0] if fixed else None
        if target is None or target.type != "attribute":
            return None
        name = self.text(child(target, "attribute"))
        receiver = child(target, "object")
        if not _HTTP_RECEIVER.search(self.text(receiver)):
            return None
        given = [*fixed[1:], *args]
        url = kwargs.get("url")
        if name in HTTP_VERBS:
            return SentRequest(
                name.upper(), given[0] if given else url, self._client_base(receiver)
            )
        if name != "request" or not given:
            return None
        method = self._method_literal(given[0])
        url = given[1] if len(given) > 1 else url
        return SentRequest(method, url, self._client_base(receiver), None if method else given[0])

    def _method_named(self, node: Node | None) -> str:
        """The HTTP method a literal or a name the code assigns one (``method = "PATCH"``) says;
        "" for anything else."""
        method = self._method_literal(node)
        if method or node is None or node.type != "identifier":
            return method
        value = self._value(node, 0, {})
        return value.upper() if value.lower() in HTTP_VERBS else ""

    def _client_base(self, receiver: Node | None) -> str:
        """``client = httpx.Client(base_url=...)``: the base every ``client.get(path)`` gets."""
        if receiver is None:
            return ""
        value = self._definition(receiver)
        if value is None or value.type != "call":
            return ""
        for keyword in self._kwargs(value):
            if self.text(child(keyword, "name")) in ("base_url", "base"):
                base = child(keyword, "value")
                return self._value(base, 0, {}) if base is not None else ""
        return ""
