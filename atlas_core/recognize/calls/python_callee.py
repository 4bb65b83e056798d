"""Which of the document's own functions a Python call calls: a module function by name, a
method of the class around the call (``self._get(...)``), of the class a receiver was made from
(``client = Client(); client.get_json(...)``), or, for a call on an object held in an attribute
(``self._connector._request(...)``), the one method of that name the document defines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.python_names import PythonNames
from atlas_core.recognize.calls.scan_sends import sent
from atlas_core.recognize.calls.site import HTTP_VERBS, UNKNOWN
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node

_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})
# Names an HTTP client's own methods have: a held session's ``self.s.get(url)`` is its call, not
# a call of a method of the document's that happens to share the name.
_CLIENT_METHODS = HTTP_VERBS | frozenset({"request", "send", "fetch", "stream", "open"})
# Classes looked through for an inherited method: the class itself and its bases.
_MAX_BASES = 8
# Definitions of one name looked at to find the one method a held object's call reaches.
_MAX_SAME_NAME = 16
# A URL builder: a function whose one ``return`` gives one of these, or a call of `_URL_CALLS`.
_URL_VALUES = frozenset(
    {"string", "concatenated_string", "binary_operator", "identifier", "attribute"}
)
_URL_CALLS = frozenset({"format", "urljoin", "join", "strip", "rstrip", "lstrip", "quote"})
_MAX_BODY_NODES = 2000  # nodes of one function body looked through for its returns
_MAX_CALLERS = 8  # call sites of one URL builder followed


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    default: Node | None = None
    rest: bool = False  # ``*args`` or ``**kwargs``


class PythonCallees(PythonNames):
    """Finds the definition a call calls in this document, and the parameters a definition takes."""

    def _callee(self, call: Node) -> tuple[Node, int] | None:
        """The function definition `call` calls in this document, and how many of its leading
        parameters the call does not pass (``self``)."""
        function = child(call, "function")
        if function is None:
            return None
        if function.type == "identifier":
            definition = self._function_named(self.text(function), call)
            return (definition, 0) if definition is not None else None
        if function.type != "attribute":
            return None
        receiver = child(function, "object")
        name = self.text(child(function, "attribute"))
        if receiver is None:
            return None
        klass = None
        if self._is_self(receiver):
            klass = next((a for a in ancestors(call) if a.type == "class_definition"), None)
        elif receiver.type in ("identifier", "attribute"):
            made = self._definition(receiver)
            if made is not None and made.type == "call":
                maker = child(made, "function")
                if maker is not None and maker.type == "identifier":
                    klass = self._class_of(self.text(maker))
            elif receiver.type == "identifier":
                klass = self._class_of(self.text(receiver))  # ``Client.helper(...)``
        definition = self._inherited(klass, name) if klass is not None else None
        if definition is None and klass is None and self._held(receiver):
            definition = self._sole_method(name)
        if definition is None:
            return None
        params = self._params(definition)
        leading = 1 if params and params[0].name in ("self", "cls") else 0
        return definition, leading

    # --- the document's own URL builders ----------------------------------------------------

    def _returned(self, call: Node, depth: int, bind: dict[str, str]) -> str:
        """The URL a call of the document's own URL builder makes
        (``def asset_url(i): return f"{BASE}/rest/2.0/assets/{i}"``, then ``asset_url(5)``):
        its one ``return``, with the parameters read as the call passes them."""
        found = self._builder(call)
        if found is None or depth + 2 > MAX_DEPTH:
            return UNKNOWN
        definition, leading = found
        built = self._built_url(definition)
        if built is None:
            return UNKNOWN
        params = self._params(definition)[leading:]
        given = {
            self.text(child(k, "name")): v
            for k in self._kwargs(call)
            if (v := child(k, "value")) is not None
        }
        positional = self._positional(call)
        inner: dict[str, str] = {}
        for index, param in enumerate(params):
            value = positional[index] if index < len(positional) else given.get(param.name)
            if value is None:
                value = param.default
            if value is None or param.rest:
                inner[param.name] = UNKNOWN
            else:
                inner[param.name] = self._value(value, depth + 1, bind)
        return self._value(built, depth + 2, inner)

    def _built_url(self, definition: Node) -> Node | None:
        """The URL-like expression a function returns from its one ``return`` (a string, a
        concatenation, a name, a ``format``); None for a function returning anything else, such
        as a response (``return s.get(url).json()``), or from several places."""
        if self.memo is None:
            return _sole_return(definition, self.text)
        return self.memo.remember(
            ("py-built", definition.id), lambda: _sole_return(definition, self.text)
        )

    def _builder(self, call: Node) -> tuple[Node, int] | None:
        """The document's own function `call` calls (`_callee`), or the lambda a name it calls
        holds (``url = lambda p: f"{B}/{p}"``)."""
        found = self._callee(call)
        function = child(call, "function")
        if found is None and function is not None and function.type == "identifier":
            held = self._definition(function)
            return (held, 0) if held is not None and held.type == "lambda" else None
        return found

    def builder_callers(self, value: Node) -> list[Node] | None:
        """The calls of the function whose one returned URL is `value` (at most
        `_MAX_CALLERS`); None when `value` is not such a return."""
        statement = value.parent
        if statement is not None and statement.type == "lambda" and is_field(value, "body"):
            definition = statement
            assigned = statement.parent
            if assigned is None or assigned.type != "assignment":
                return []
            name = self.text(child(assigned, "left"))
        elif statement is not None and statement.type == "return_statement":
            definition = next((a for a in ancestors(statement) if a.type in _SCOPES), None)
            if definition is None or definition.type != "function_definition":
                return None
            name = self.text(child(definition, "name"))
        else:
            return None
        built = self._built_url(definition)
        if built is None or built.id != value.id:
            return []
        calls = []
        for ident in self.named_nodes(name, 0, len(self.data), _is_identifier, limit=64):
            function = ident.parent
            if function is not None and function.type == "attribute":
                if not is_field(ident, "attribute"):
                    continue
            else:
                function = ident
            call = function.parent if function is not None else None
            if call is None or call.type != "call" or not is_field(function, "function"):
                continue
            found = self._builder(call)
            if found is not None and found[0].id == definition.id:
                calls.append(call)
                if len(calls) >= _MAX_CALLERS:
                    break
        return calls

    def _builds_url(self, call: Node) -> bool:
        """Whether `call` is one of several requests' calls of the document's own URL builder,
        each read where it stands (`shared_uses`); the one call of a builder is read at the
        builder's literal."""
        found = self._builder(call)
        built = self._built_url(found[0]) if found is not None else None
        callers = self.builder_callers(built) if built is not None else None
        return (
            callers is not None
            and len(callers) > 1
            and all(self._sent_directly(c) for c in callers)
        )

    def shared_uses(self, parent: Node, uses: list[Node]) -> bool:
        """A URL builder called straight as the URL of several requests
        (``s.get(urls.mapping(i))``, ``s.delete(urls.mapping(i))``): each call is read where
        it stands, and the builder's literal as none of them."""
        if parent.type in ("return_statement", "lambda"):
            return all(self._sent_directly(use) for use in uses)
        return super().shared_uses(parent, uses)

    def _sent_directly(self, call: Node) -> bool:
        """Whether `call` is the first argument of a verb-named call: what a document scan asks
        at (`scan_sends.sent`)."""
        arguments = call.parent
        outer = arguments.parent if arguments is not None else None
        if outer is None or outer.type != "call" or arguments is None:
            return False
        first = next((a for a in arguments.named_children if a.type != "comment"), None)
        return first is not None and first.id == call.id and sent(self.document, call)

    def builds_from(self, call: Node, argument: Node) -> bool:
        """Whether positional `argument` of `call` is part of the URL the document's own
        function it calls returns (``api("assets")`` of ``def api(p): return f"{B}/{p}"``)."""
        if not self._callee_name(call):
            return False
        found = self._builder(call)
        if found is None:
            return False
        definition, leading = found
        built = self._built_url(definition)
        if built is None:
            return False
        index = next((i for i, a in enumerate(self._positional(call)) if a.id == argument.id), -1)
        params = self._params(definition)[leading:]
        if index < 0 or index >= len(params) or params[index].rest:
            return False
        uses = self.named_nodes(
            params[index].name, built.start_byte, built.end_byte, _is_identifier, limit=1
        )
        return any(True for _ in uses)

    def _function_named(self, name: str, at: Node) -> Node | None:
        """A function `name` defined at module level (or around `at`)."""
        for ident in self.named_nodes(name, 0, len(self.data), _is_identifier, limit=16):
            parent = ident.parent
            if (
                parent is None
                or parent.type != "function_definition"
                or not is_field(ident, "name")
            ):
                continue
            owner = next((a for a in ancestors(parent) if a.type in _SCOPES), None)
            if owner is None or (
                owner.type != "class_definition" and any(a.id == owner.id for a in ancestors(at))
            ):
                return parent
        return None

    def _inherited(self, klass: Node, name: str) -> Node | None:
        """Method `name` of `klass` or of the first of its base classes (in this document) that
        defines it, `_MAX_BASES` classes up at most."""
        seen: set[int] = set()
        todo = [klass]
        while todo and len(seen) < _MAX_BASES:
            current = todo.pop(0)
            if current.id in seen:
                continue
            seen.add(current.id)
            definition = self._method_in(current, name)
            if definition is not None:
                return definition
            bases = child(current, "superclasses")
            for base in bases.named_children if bases is not None else []:
                if base.type == "identifier":
                    found = self._class_of(self.text(base))
                    if found is not None:
                        todo.append(found)
        return None

    def _held(self, receiver: Node) -> bool:
        """Whether `receiver` is an object the instance holds (``self._connector``), whose
        class the document does not say."""
        return receiver.type == "attribute" and self._is_self(child(receiver, "object"))

    def _sole_method(self, name: str) -> Node | None:
        """The one method `name` of the document's classes; None when no class or several
        define it, or when it is a name HTTP clients' own methods have."""
        if name in _CLIENT_METHODS:
            return None
        found: Node | None = None
        for ident in self.named_nodes(
            name, 0, len(self.data), _is_identifier, limit=_MAX_SAME_NAME
        ):
            parent = ident.parent
            if parent is None or parent.type != "function_definition":
                continue
            if not is_field(ident, "name"):
                continue
            owner = next((a for a in ancestors(parent) if a.type in _SCOPES), None)
            if owner is None or owner.type != "class_definition":
                continue
            if found is not None:
                return None
            found = parent
        return found

    def _method_in(self, klass: Node, name: str) -> Node | None:
        body = child(klass, "body")
        for statement in body.named_children if body is not None else []:
            definition = statement
            if statement.type == "decorated_definition":
                definition = child(statement, "definition") or statement
            if (
                definition.type == "function_definition"
                and self.text(child(definition, "name")) == name
            ):
                return definition
        return None

    def _params(self, definition: Node) -> list[Param]:
        parameters = child(definition, "parameters")
        found = []
        for p in parameters.named_children if parameters is not None else []:
            if p.type == "identifier":
                found.append(Param(self.text(p)))
            elif p.type in ("default_parameter", "typed_default_parameter"):
                name = child(p, "name")
                if name is not None and name.type == "identifier":
                    found.append(Param(self.text(name), child(p, "value")))
            elif p.type == "typed_parameter":
                first = p.named_child(0)
                if first is not None and first.type == "identifier":
                    found.append(Param(self.text(first)))
                elif first is not None and first.named_child(0) is not None:
                    found.append(Param(self.text(first.named_child(0)), rest=True))
            elif p.type in ("list_splat_pattern", "dictionary_splat_pattern"):
                name = p.named_child(0)
                if name is not None:
                    found.append(Param(self.text(name), rest=True))
        return found


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"


def _sole_return(definition: Node, text: Callable[[Node | None], str]) -> Node | None:
    """The value of a function's one ``return`` (nested functions and classes aside) when it
    reads as a URL; None otherwise."""
    body = child(definition, "body")
    if definition.type == "lambda":
        found = [body] if body is not None else []
        stack = []
    else:
        found = []
        stack = list(body.named_children) if body is not None else []
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _MAX_BODY_NODES or len(found) > 1:
            return None
        if node.type in _SCOPES or node.type == "decorated_definition":
            continue
        if node.type == "return_statement":
            if not node.named_child_count:
                return None
            found.append(node.named_children[0])
            continue
        stack.extend(node.named_children)
    if len(found) != 1:
        return None
    value = found[0]
    if value.type in _URL_VALUES:
        return value
    function = child(value, "function") if value.type == "call" else None
    name = child(function, "attribute") if function and function.type == "attribute" else function
    if name is not None and text(name) in _URL_CALLS:
        return value
    return None
