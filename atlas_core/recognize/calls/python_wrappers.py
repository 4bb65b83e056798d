"""Calls through the code's own functions: ``api_get(base, "/rest/2.0/assets", params)``,
``self._get("/assets", params={...})``, ``client.post_json(path, body)``.

A function whose body sends an HTTP request with a URL built from its parameters is summed up
once per document (`Summary`): its URL and method with a placeholder for each parameter, and
what each parameter becomes in the request (query, body). A call of it is then read with its
arguments put in those places, through any number of such functions up to `MAX_WRAPPERS` deep;
a function that (maybe through others) calls itself is no wrapper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.python_callee import Param, PythonCallees
from atlas_core.recognize.calls.site import BODY, HEADER, HTTP_VERBS, QUERY, UNKNOWN
from atlas_core.syntax import field as child
from atlas_core.syntax import is_field

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.tree_reader import NameMemo
    from atlas_core.syntax import Document

# How many functions deep a call is followed to the request it sends.
MAX_WRAPPERS = 4
# Calls looked at in one function body for the request it sends.
_MAX_BODY_CALLS = 200

KEYWORD_ROLES = {
    "params": QUERY,
    "query_params": QUERY,  # an adapter's own words for them
    "query": QUERY,
    "json": BODY,
    "data": BODY,
    "files": BODY,
    "content": BODY,
    "headers": HEADER,
    "cookies": HEADER,
}
_NO_CUT = 1 << 30
_VERBS = "|".join(sorted(HTTP_VERBS))
_FIRST_MARK = 0xF0000  # a parameter's placeholder: one private-use character per parameter
_MARK = re.compile("[\U000f0000-\U000f00ff]")
# What may stand before a forwarded path: a host and an API base (``https://h/rest/2.0/``).
_HOST = re.compile(r"^[A-Za-z][\w+.-]*://[^/]*")
_BASE_ONLY = re.compile(r"/*(?:rest(?:/[\w.]+)?/*)?")
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})


def mark(index: int) -> str:
    return chr(_FIRST_MARK + index)


@dataclass(frozen=True, slots=True)
class Summary:
    """What one function sends: `url` and `method` with `mark(i)` for parameter i."""

    params: tuple[Param, ...]
    url: str
    method: str
    roles: dict[str, str] = field(default_factory=dict)  # parameter -> QUERY, BODY, HEADER
    depth: int = 1  # functions between a call of this one and the request, itself included
    kwargs_on: bool = False  # ``**kwargs`` go on to the request: ``params=`` at a call is its query

    def index(self, name: str) -> int:
        return next((i for i, p in enumerate(self.params) if p.name == name), -1)


@dataclass(slots=True)
class Bound:
    """A call of a summed-up function: its URL and method with the call's arguments in place,
    the arguments the URL is built from, and the role of each argument."""

    url: str
    method: str
    url_args: tuple[Node, ...]
    keyword_roles: dict[str, str]
    positional_roles: dict[int, str]


def fill(template: str, values: list[str]) -> str:
    return _MARK.sub(lambda m: values[ord(m.group()) - _FIRST_MARK], template)


def has_marks(text: str) -> bool:
    return _MARK.search(text) is not None


class PythonWrappers(PythonCallees):
    """Summaries of the document's own functions that send requests. Subclasses say which calls
    are direct HTTP calls (`direct_template`)."""

    def __init__(
        self,
        document: Document,
        root: Node,
        language: str,
        line: int,
        offset: int,
        *,
        memo: NameMemo | None = None,
    ) -> None:
        super().__init__(document, root, language, line, offset, memo=memo)
        self._active: list[int] = []  # the functions being summed up, outermost first
        self._cut = _NO_CUT  # the outermost of them a recursion led back to
        self._own: dict[int, Summary | None] = {}

    # --- hooks ------------------------------------------------------------------------------

    def direct_template(self, call: Node, bind: dict[str, str]) -> tuple[str, str] | None:
        """(URL, method) of a direct HTTP call, its names read through `bind`; else None."""
        raise NotImplementedError

    def direct_role(self, call: Node, keyword: str, index: int) -> str | None:
        """The role of a direct HTTP call's argument (`keyword`, or positional `index`)."""
        raise NotImplementedError

    # --- a call of a wrapper ---------------------------------------------------------------

    def bound_call(self, call: Node) -> Bound | None:
        """`call` read through the function it calls, when that function sends a request."""
        found = self._callee(call)
        if found is None:
            return None
        definition, leading = found
        summary = self.summary(definition)
        if summary is None:
            return None
        values, nodes = self._arguments(call, summary, leading, {})
        url = fill(summary.url, values)
        method = fill(summary.method, values).upper()
        url_names = {summary.params[ord(m) - _FIRST_MARK].name for m in _MARK.findall(summary.url)}
        keyword_roles = dict(summary.roles)
        if summary.kwargs_on:
            for keyword, role in KEYWORD_ROLES.items():
                keyword_roles.setdefault(keyword, role)
        positional_roles = {}
        for index, param in enumerate(summary.params[leading:]):
            if param.rest:
                break
            if param.name in summary.roles:
                positional_roles[index] = summary.roles[param.name]
        return Bound(
            url,
            method if method.lower() in HTTP_VERBS else "",
            tuple(node for name, node in nodes.items() if name in url_names),
            {k: v for k, v in keyword_roles.items() if summary.index(k) < 0 or k in summary.roles},
            positional_roles,
        )

    def template(self, call: Node, bind: dict[str, str]) -> tuple[str, str, int] | None:
        """(URL, method, functions deep) that `call` sends, direct or through wrappers, names
        read through `bind` (a summary's placeholders)."""
        found = self._callee(call)
        summary = self.summary(found[0]) if found is not None else None
        if found is None or summary is None:
            direct = self.direct_template(call, bind)
            return (*direct, 0) if direct is not None else None
        values, _ = self._arguments(call, summary, found[1], bind)
        return fill(summary.url, values), fill(summary.method, values), summary.depth

    def forwards(self, call: Node) -> bool:
        """Whether `call`, a direct request in a function that sends one for its callers, sends
        a path the caller passes: ``requests.get(BASE + path)``. Its callers are the calls."""
        scope = self.scope_of(call)
        if scope is None or scope.type != "function_definition" or self.summary(scope) is None:
            return False
        params = self._params(scope)
        bind = {p.name: mark(i) for i, p in enumerate(params) if not p.rest}
        sent = self.direct_template(call, bind)
        if sent is None or not has_marks(sent[0]):
            return False
        literal = _HOST.sub("", _MARK.sub("", sent[0]).replace(UNKNOWN, ""))
        return _BASE_ONLY.fullmatch(literal) is not None

    def _arguments(
        self, call: Node, summary: Summary, leading: int, bind: dict[str, str]
    ) -> tuple[list[str], dict[str, Node]]:
        """The value of each parameter at `call` (its default, else ``{}``, where none is
        passed), and the argument node of each parameter passed."""
        nodes: dict[str, Node] = {}
        params = summary.params
        positional = self._positional(call)
        index = leading
        for argument in positional:
            if index >= len(params) or params[index].rest:
                break
            nodes[params[index].name] = argument
            index += 1
        for keyword in self._kwargs(call):
            name, value = self.text(child(keyword, "name")), child(keyword, "value")
            if value is not None and summary.index(name) >= 0:
                nodes[name] = value
        values = []
        for i, param in enumerate(params):
            if i < leading:
                values.append(UNKNOWN)
            elif param.name in nodes:
                values.append(self._value(nodes[param.name], 0, bind))
            elif param.default is not None:
                values.append(self._value(param.default, 0, {}))
            else:
                values.append(UNKNOWN)
        return values, nodes

    # --- what a function sends -------------------------------------------------------------

    def summary(self, definition: Node) -> Summary | None:
        known = self._summaries()
        if definition.id in known:
            return known[definition.id]
        if definition.id in self._active:
            # Recursion: no summary here, and none for the functions between this one and its
            # outer reading either, since theirs depends on where the reading started.
            self._cut = min(self._cut, self._active.index(definition.id))
            return None
        if len(self._active) >= MAX_WRAPPERS:
            return None
        level = len(self._active)
        self._active.append(definition.id)
        try:
            found = self._read_summary(definition)
        finally:
            self._active.pop()
        if self._cut >= level:
            self._cut = _NO_CUT if self._cut == level else self._cut
            known[definition.id] = found
        return found

    def _summaries(self) -> dict[int, Summary | None]:
        """The summaries found so far: one scan's readers share them through its memo."""
        if self.memo is None:
            return self._own
        return self.memo.remember(("summaries", 0), dict)

    def _read_summary(self, definition: Node) -> Summary | None:
        params = tuple(self._params(definition))
        body = child(definition, "body")
        if body is None or not params:
            return None
        bind = {p.name: mark(i) for i, p in enumerate(params) if not p.rest}
        for call in self._body_calls(body):
            sent = self.template(call, bind)
            if sent is None or not has_marks(sent[0] + sent[1]) or sent[2] >= MAX_WRAPPERS:
                continue
            url, method, depth = sent
            if not has_marks(method):
                method = self._dispatched(body, params, method)
            roles, kwargs_on = self._roles(definition, body, params)
            return Summary(params, url, method, roles, depth + 1, kwargs_on)
        return None

    def _dispatched(self, body: Node, params: tuple[Param, ...], method: str) -> str:
        """``if call == "post": requests.post(...)`` on a parameter: the method is that
        parameter's value at each call site (its default where not passed), not the first
        branch's."""
        text = self.text(body)
        for i, param in enumerate(params):
            if not param.rest and re.search(
                rf"\b{re.escape(param.name)}(?:\.(?:lower|upper)\(\))?\s*==\s*[\"'](?i:{_VERBS})[\"']",
                text,
            ):
                return mark(i)
        return method

    def _body_calls(self, body: Node) -> list[Node]:
        calls: list[Node] = []
        stack = [body]
        while stack and len(calls) < _MAX_BODY_CALLS:
            node = stack.pop()
            if node.type == "call":
                calls.append(node)
            stack.extend(c for c in reversed(node.named_children) if c.type not in _SCOPES)
        return calls

    def _roles(
        self, definition: Node, body: Node, params: tuple[Param, ...]
    ) -> tuple[dict[str, str], bool]:
        """What each parameter becomes in the request the function sends."""
        roles: dict[str, str] = {}
        kwargs_on = False
        for param in params:
            for use in self.named_nodes(param.name, body.start_byte, body.end_byte, _is_identifier):
                if self.scope_of(use) != definition:
                    continue
                role = self._role_of_use(use)
                if param.rest and use.parent is not None and use.parent.type == "dictionary_splat":
                    kwargs_on = kwargs_on or self._splat_into_request(use.parent)
                elif role is not None:
                    roles.setdefault(param.name, role)
        return roles, kwargs_on

    def _role_of_use(self, use: Node) -> str | None:
        parent = use.parent
        if parent is None:
            return None
        if parent.type == "keyword_argument" and is_field(use, "value"):
            keyword = self.text(child(parent, "name"))
            call = parent.parent.parent if parent.parent is not None else None
            return self._role_at(call, keyword, -1) if call is not None else None
        if parent.type == "argument_list" and parent.parent is not None:
            positional = self._positional(parent.parent)
            index = next((i for i, a in enumerate(positional) if a.id == use.id), -1)
            return self._role_at(parent.parent, "", index) if index >= 0 else None
        if parent.type == "pair" and is_field(use, "value"):
            key = child(parent, "key")
            return (
                KEYWORD_ROLES.get(self.literal(key))
                if key is not None and key.type == "string"
                else None
            )
        if parent.type == "assignment" and is_field(use, "right"):
            target = child(parent, "left")
            key = (
                child(target, "subscript")
                if target is not None and target.type == "subscript"
                else None
            )
            return (
                KEYWORD_ROLES.get(self.literal(key))
                if key is not None and key.type == "string"
                else None
            )
        return None

    def _role_at(self, call: Node, keyword: str, index: int) -> str | None:
        if call.type != "call":
            return None
        found = self._callee(call)
        summary = self.summary(found[0]) if found is not None else None
        if found is None or summary is None:
            if self.direct_template(call, {}) is None:
                return None
            return self.direct_role(call, keyword, index)
        leading = found[1]
        if keyword:
            if summary.index(keyword) >= 0:
                return summary.roles.get(keyword)
            return KEYWORD_ROLES.get(keyword) if summary.kwargs_on else None
        position = leading + index
        if position < len(summary.params) and not summary.params[position].rest:
            return summary.roles.get(summary.params[position].name)
        return None

    def _splat_into_request(self, splat: Node) -> bool:
        arguments = splat.parent
        call = arguments.parent if arguments is not None else None
        return call is not None and call.type == "call" and self.template(call, {}) is not None


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"
