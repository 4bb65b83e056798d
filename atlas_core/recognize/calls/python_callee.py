"""Which of the document's own functions a Python call calls: a module function by name, a
method of the class around the call (``self._get(...)``), of the class a receiver was made from
(``client = Client(); client.get_json(...)``), or, for a call on an object held in an attribute
(``self._connector._request(...)``), the one method of that name the document defines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.python_names import PythonNames
from atlas_core.recognize.calls.site import HTTP_VERBS
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})
# Names an HTTP client's own methods have: a held session's ``self.s.get(url)`` is its call, not
# a call of a method of the document's that happens to share the name.
_CLIENT_METHODS = HTTP_VERBS | frozenset({"request", "send", "fetch", "stream", "open"})
# Classes looked through for an inherited method: the class itself and its bases.
_MAX_BASES = 8
# Definitions of one name looked at to find the one method a held object's call reaches.
_MAX_SAME_NAME = 16


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
