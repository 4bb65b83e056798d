"""Which JavaScript and TypeScript calls send requests: `fetch(url, init)`, axios verbs and
configs, instances from `axios.create({baseURL})`, request, got, ky, ofetch's `$fetch` and Nuxt's
`useFetch`, AngularJS `$http`, Angular's `HttpClient`, jQuery `$.ajax`/`$.get`/`$.getJSON`/`$.post`,
`XMLHttpRequest` (`xhr.open(method, url)`), and calls of the code's own wrapper functions
(`js_wrappers`), with the method and URL each sends, read again under a wrapper caller's arguments
(`Bind`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from atlas_core.recognize.calls.js_appends import later_key
from atlas_core.recognize.calls.js_config import (
    MAX_SOURCES,
    declared_method,
    merged_config,
    options_method,
    sources,
)
from atlas_core.recognize.calls.js_destructured import bind_patterns
from atlas_core.recognize.calls.js_http import FORWARDED, Http
from atlas_core.recognize.calls.js_instances import (
    destructured_verb,
    instance_base,
    instance_call,
)
from atlas_core.recognize.calls.js_out_of_view import curried_helper, helper_out_of_view
from atlas_core.recognize.calls.js_passed import (
    as_wrapper,
    bind_function,
    is_parameter_call,
    is_query_builder,
)
from atlas_core.recognize.calls.js_returns import (
    builder_of,
    made_config,
    made_options_method,
    options_call,
    returned,
)
from atlas_core.recognize.calls.js_server_routes import is_server_route, page_origin
from atlas_core.recognize.calls.js_values import Bind, JsValues, unwrapped
from atlas_core.recognize.calls.js_wrappers import (
    MAX_WRAPPER_DEPTH,
    parameters,
    summary_of,
)
from atlas_core.recognize.calls.js_xhr import is_xhr_open
from atlas_core.recognize.calls.site import HTTP_VERBS, UNKNOWN, join_base
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.walk import KeyContext

_HTTP_RECEIVER = re.compile(r"(?i)axios|http|client|api|instance|request|agent|ky|got")
# Libraries whose verb methods take (url, options) or (options): `got.post(url, {json})`,
# `request.post({url, json}, cb)`.
_OPTIONS_STYLE = frozenset({"ky", "got", "request", "rp", "requestPromise"})
# Functions called with (config): `axios(config)`, AngularJS `$http(config)`, `request(options)`.
_CONFIG_CALLS = frozenset(
    {"axios", "$http", "request", "rp", "requestPromise", "$.ajax", "jQuery.ajax"}
)
# Functions called with (url, options), the options' keys named as `js_shapes.OPTION_ROLES`
# names them.
_URL_OPTIONS_CALLS = frozenset({"got", "ky", "$fetch", "ofetch", "useFetch", "useLazyFetch"})
# jQuery's shorthands, `$.get(url, data?, success?)`: the data object is the query of a GET, the
# body of a POST.
_JQUERY = frozenset({"$", "jQuery"})
_JQUERY_VERBS = {"get": "GET", "getJSON": "GET", "post": "POST"}
# Calls that send a GET to a URL and show nothing else of the request: SWR's hooks, whose key is
# the URL its fetcher gets (`useSWR("/rest/2.0/assets?limit=10", fetcher)`), and a Postman
# script's `pm.sendRequest(url, callback)` (given a config instead, its `url` and `method`; its
# `body` is Postman's `{mode, raw}`, no request body's keys).
_GETS = frozenset({"useSWR", "useSWRImmutable", "pm.sendRequest"})
# fetch, and Google Apps Script's `UrlFetchApp.fetch(url, {method, payload})`
_FETCH = frozenset({"fetch", "window.fetch", "globalThis.fetch", "self.fetch", "UrlFetchApp.fetch"})


class JsRequests(JsValues):
    """The request a call sends, if it sends one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.summarising: list[int] = []  # wrappers being summarised, innermost last
        # Readings cut short by recursion or depth: what they found is not remembered.
        self.cuts = 0
        self.passing = 0  # passed functions being read through, for the depth limit
        self.passed_functions: dict[str, Node] = {}  # `Bind` tokens of functions passed

    def use_context(self, use: Node) -> KeyContext | None:
        """What the keys of the object a name holds become, read where the name is used."""
        raise NotImplementedError

    def http(self, call: Node) -> Http | None:
        if call.type != "call_expression":
            return None
        if self.memo is None:
            return self._read_http(call)
        return self.memo.remember(
            ("js-http", call.id), lambda: self._read_http(call), lambda: self.cuts
        )

    def _read_http(self, call: Node) -> Http | None:
        function = self.callee(call)
        args = self._arguments(call)
        if function is None:
            return None
        callee = self.text(function)
        if callee in _FETCH:
            options = args[1] if len(args) > 1 else None
            http = Http("GET", args[0] if args else None, "fetch", call=call)
            return self._with_method(http, options)
        if callee in _URL_OPTIONS_CALLS:
            options = args[1] if len(args) > 1 else None
            http = Http("GET", args[0] if args else None, "options", call=call)
            http.base = self._option(options, "baseURL")
            return self._with_method(http, options)
        if callee in _GETS and args:
            http = self._config_call(args, "") if args[0].type == "object" else None
            http = http or Http("GET", args[0], "named", call=call)
            http.style = "named"  # what else it sends, the call does not show
            return http
        if is_xhr_open(self, function, args):
            http = Http("GET", args[1], "xhr", call=call, method_node=args[0])
            http.method = self._method_of(http, None)
            return http
        # AngularJS injects its `$http` as a parameter by that name: the service, not a function
        # the caller passes
        if callee != "$http" and is_parameter_call(self, function):
            url = args[0] if args else None
            return Http("", url, "passed", callee, call=call, args=tuple(("", a) for a in args))
        wrapped = self._wrapper_call(call, args)
        if wrapped is not None:
            return wrapped
        if callee in _CONFIG_CALLS or callee.endswith(".request"):
            return self._config_call(args, "ajax" if "ajax" in callee else "")
        if callee.endswith(".callApi") and len(args) > 1:
            # A generated JavaScript client's internals, `apiClient.callApi(path, method, ...)`:
            # the path is relative to a base configured at runtime.
            http = Http("", args[0], "config", base=UNKNOWN, call=call, method_node=args[1])
            http.method = self._method_of(http, None)
            return http
        if function.type == "call_expression":
            return curried_helper(self, call, function, args)  # `Post(client)(path, options)`
        if function.type == "identifier":
            instance = instance_base(self, function) if args else None
            if instance:  # `api(path, {query})` of `api = $fetch.create({baseURL})`
                return instance_call(self, call, args, instance)
            taken = destructured_verb(self, function) if args else None
            if taken is not None:  # `const { get } = api; get(path)`
                return self._verb_call(call, args, taken[0], taken[1], taken=True)
            return helper_out_of_view(self, call, callee, args)
        if function.type != "member_expression":
            return None
        verb = self.text(child(function, "property"))
        receiver = child(function, "object")
        if receiver is None or not args:
            return None
        receiver_text = self.text(receiver)
        if verb[:1] == "$" and verb[1:] in HTTP_VERBS and receiver_text.endswith("$axios"):
            verb = verb[1:]  # Nuxt's `$axios.$get(url)`: the response's data, same request
        jquery = receiver_text in _JQUERY and verb in _JQUERY_VERBS
        if verb not in HTTP_VERBS and not jquery:
            return helper_out_of_view(self, call, verb, args, receiver_text)  # `client.restCall`
        made = self._definition(receiver) if receiver.type == "identifier" else None
        if made is not None and made.type == "new_expression":
            return None  # a Map's, a URLSearchParams' or a Headers' `get`
        if jquery:
            return self._jquery(call, args, _JQUERY_VERBS[verb])
        return self._verb_call(call, args, verb, receiver)

    def _verb_call(
        self, call: Node, args: list[Node], verb: str, receiver: Node, *, taken: bool = False
    ) -> Http | None:
        """``receiver.verb(*args)``: a request where the receiver reads as an HTTP client (a
        method `taken` out of it, only where its name says so: a `get` of any other object
        is no request, whatever its arguments)."""
        receiver_text = self.text(receiver)
        base = instance_base(self, receiver)
        looks_http = base is not None or bool(_HTTP_RECEIVER.search(receiver_text))
        if receiver_text not in _OPTIONS_STYLE and is_server_route(
            self, args, looks_http, receiver
        ):
            return None  # `router.get(path, handler)`: a server route, not a request's callback
        if not looks_http and (taken or "/" not in self._value(args[0], 0)):
            return None
        if receiver_text in _OPTIONS_STYLE and args[0].type == "object":
            http = self._config_call(args, "")  # `request.post({url, json: true})`
            if http is not None:
                http.method, http.method_node = verb.upper(), None
            return http
        style = "options" if receiver_text in _OPTIONS_STYLE else "axios"
        return Http(verb.upper(), args[0], style, verb, base or "", call)

    def _jquery(self, call: Node, args: list[Node], method: str) -> Http | None:
        """`$.get(url, data, success)`, or jQuery 3's `$.get({url, data})`."""
        if args[0].type == "object":
            http = self._config_call(args, "ajax")
            if http is not None:
                http.method, http.method_node = method, None
            return http
        return Http(method, args[0], "jquery", call=call)

    def _with_method(self, http: Http, options: Node | None) -> Http:
        # `fetch(url, opts)`, `fetch(url, {...options, headers})`: a wrapper's caller may pass
        # the method in the options it hands on.
        made = options_call(self, options)
        if made is not None:
            http.method = made_options_method(self, made)  # `fetch(url, opts("DELETE"))`
            http.method_node = None if http.method else made  # unknown: a value not shown
            return http
        http.method_node, http.method_param = options_method(self, options)
        http.method = self._method_of(http, None)
        return http

    def _config_call(self, args: list[Node], verb: str) -> Http | None:
        if not args:
            return None
        call = args[0].parent.parent if args[0].parent is not None else None
        spread = any(c.type == "spread_element" for c in args[0].named_children)
        # `request(Object.assign({}, defaults, opts))`, `axios({...defaults, ...opts})`
        merged = merged_config(self, args[0]) if args[0].type != "object" or spread else None
        if merged is not None:
            http = Http("GET", merged.url, "config", verb, merged.base, call, merged.method)
            http.method_param = merged.param
            http.method = self._method_of(http, None)
            return http
        config, held, made = args[0], None, None
        if config.type == "call_expression":
            return self._made_config(config, verb)
        if config.type == "identifier":  # `const options = {path, method}; https.request(options)`
            made = self._definition(config)
            value = unwrapped(made)
            if value is not None and value.type == "object":
                held, config = config, value
        if config.type != "object":  # `request(url, {method})`, `axios(url, config)`
            options = args[1] if len(args) > 1 and args[1].type == "object" else None
            return self._with_method(Http("GET", args[0], "config", verb, call=call), options)
        # `path` as Node's `https.request({hostname, path, method})` and generated TypeScript
        # clients' `this.request({path, method, query})` name it.
        url = (
            self._pair_value(config, "url")
            or self._pair_value(config, "uri")
            or self._pair_value(config, "path")
        )
        method = declared_method(self, config)
        if held is not None and made is not None:  # `config.url = "/rest/2.0/..."` after it
            url = later_key(self, held, made, "url") or url
            method = later_key(self, held, made, "method") or method
        base = self._option(config, "baseURL") or self._option(config, "baseUrl")
        http = Http("GET", url, "config", verb, base, call)
        http.method_node = method or (self._pair_value(config, "type") if verb == "ajax" else None)
        http.method = self._method_of(http, None)
        return http

    def _made_config(self, maker: Node, verb: str) -> Http | None:
        """``axios(req("get", path))``: the config the document's own function returns, read
        with the arguments of the call that makes it (a wrapper with that config inside)."""
        found = made_config(self, maker)
        call = maker.parent.parent if maker.parent is not None else None
        if found is None or call is None:
            return None
        definition, config = found
        base = self._option(config, "baseURL") or self._option(config, "baseUrl")
        method = declared_method(self, config)
        inner = Http("GET", self._pair_value(config, "url"), "config", verb, base, None, method)
        names = parameters(self, definition)
        args = tuple(zip(names, [*self._arguments(maker), *([None] * len(names))], strict=False))
        http = Http("", maker, "wrapper", call=call, inner=inner, args=args)
        http.method = self._method_of(http, None)
        return http

    def _wrapper_call(self, call: Node, args: list[Node]) -> Http | None:
        """A call of one of the document's own functions that sends a request built from its
        parameters (`js_wrappers`): the request, with this call's arguments in them."""
        summary = summary_of(self, call)
        if summary is None:
            return None
        if any(a.type == "spread_element" for a in args):
            return None  # `request(...args)`: which argument is which is not written here
        padded = [*args, *([None] * len(summary.params))]
        index = summary.url_index
        http = Http(
            "",
            padded[index] if index is not None else None,
            "wrapper",
            call=call,
            inner=summary.inner,
            args=tuple(zip(summary.params, padded, strict=False)),
            roles=summary.roles,
            patterns=summary.patterns,
        )
        if not self._resolves(http):
            return None  # a function passed to it that the document does not show
        http.method = self._method_of(http, None)
        return http

    def _resolves(self, http: Http) -> bool:
        """Whether the functions a wrapper call's chain calls through its parameters are each
        one this call (or a caller, for a parameter it forwards) passes."""
        bind: Bind | None = None
        for _ in range(MAX_WRAPPER_DEPTH * 2):
            if http.inner is not None:
                bind, http = self._bind(http, bind), http.inner
            elif http.style == "passed":
                token = bind.get(f"{http.verb}.fn") if bind is not None else None
                if token == FORWARDED:
                    return True
                target = as_wrapper(self, http, bind)
                if target is None:
                    return False
                http = target
            else:
                return True
        return False

    def _through(
        self, http: Http, bind: Bind | None, read: Callable[[Http, Bind | None], str], none: str
    ) -> str:
        """`read` of the request a passed function's call makes (`as_wrapper`), counted: a
        function passing itself along stops at the depth limit; `none` where it is not known."""
        if self.passing >= MAX_WRAPPER_DEPTH * 2:
            self.cuts += 1
            return none
        target = as_wrapper(self, http, bind)
        if target is None:
            return none
        self.passing += 1
        try:
            return read(target, bind)
        finally:
            self.passing -= 1

    def _bind(self, http: Http, bind: Bind | None) -> Bind:
        """The values a wrapper call gives its wrapper's parameters (None: not passed), and
        ``name.method`` for an options object passed as one that asks for a method."""
        bound: Bind = {}
        for index, (name, arg) in enumerate(http.args):
            names = http.patterns.get(index) if http.patterns else None
            if names:
                # `(url, { method = "GET" } = {})`
                found = sources(self, arg)[:MAX_SOURCES] if arg is not None else None
                bind_patterns(self, bound, names, found, bind)
            if not name:
                continue
            bound[name] = self._value(arg, 0, bind) if arg is not None else None
            method = declared_method(self, arg) if arg is not None else None
            if method is not None:
                bound[f"{name}.method"] = self._value(method, 0, bind)
            elif arg is not None and arg.type == "identifier" and bind is not None:
                passed = bind.get(f"{self.text(arg)}.method")  # forwarded from an outer wrapper
                if passed is not None:
                    bound[f"{name}.method"] = passed
            if arg is not None:
                bind_function(self, bound, name, arg, bind)
        return bound

    def _method_of(self, http: Http, bind: Bind | None) -> str:
        """The method a request sends; "" where it comes from a value the code does not show."""
        if http.inner is not None:
            return self._method_of(http.inner, self._bind(http, bind))
        if http.style == "passed":
            return self._through(http, bind, self._method_of, "")
        chosen = bind.get(f"{http.method_param}.method") if http.method_param and bind else None
        if chosen is not None:
            return "" if chosen in (UNKNOWN, "") else chosen.upper()
        if http.style == "named":
            return http.method  # "" where the call does not show it
        if http.method_node is None:
            return http.verb.upper() if http.style == "axios" else (http.method or "GET")
        value = self._value(http.method_node, 0, bind)
        return "" if value in (UNKNOWN, "") else value.upper()

    def _function_value(self, function: Node, depth: int) -> str:
        value = returned(self, function)
        return self._value(value, depth + 1) if value is not None else UNKNOWN

    def _call_value(self, call: Node, depth: int, bind: Bind | None) -> str:
        if is_query_builder(self, call):
            return "?" + UNKNOWN  # `path + toQuery(params)`: the path ends here
        definition = builder_of(self, call)
        value = returned(self, definition) if definition is not None else None
        if definition is None or value is None:
            return UNKNOWN
        if definition.id in self.summarising or len(self.summarising) >= MAX_WRAPPER_DEPTH:
            self.cuts += 1
            return UNKNOWN  # a builder calling itself, or too deep a chain
        names = parameters(self, definition)
        args = [*self._arguments(call), *([None] * len(names))]
        inner: Bind = {
            name: self._value(arg, depth + 1, bind) if arg is not None else None
            for name, arg in zip(names, args, strict=False)
            if name
        }
        self.summarising.append(definition.id)
        try:
            return self._value(value, depth + 1, inner)
        finally:
            self.summarising.pop()

    def _url_of(self, http: Http, bind: Bind | None) -> str:
        if http.inner is not None:
            return self._url_of(http.inner, self._bind(http, bind))
        if http.style == "passed":
            return self._through(http, bind, self._url_of, UNKNOWN)
        value = self._value(http.url, 0, bind) if http.url is not None else UNKNOWN
        return page_origin(http.style, http.base, join_base(http.base, value))
