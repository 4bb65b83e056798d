"""How Python code names values: what a name or ``self.name`` was last assigned, where a name is
read, which keys a dict gets, and the string an expression makes (``{}`` for what cannot be seen).
`PythonCalls` builds on it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.recognize.calls.python_steps import grown
from atlas_core.recognize.calls.site import HTTP_VERBS, UNKNOWN, url_join
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.recognize.calls.walk import CallWalk
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

_FUNCTIONS = frozenset({"function_definition", "lambda"})
_PERCENT = re.compile(r"%[sdr]")
_FIELD = re.compile(r"\{([^{}]*)\}")


class PythonNames(CallWalk):
    # --- values ----------------------------------------------------------------------------

    def _value(self, node: Node, depth: int, bind: dict[str, str]) -> str:
        """The string an expression makes, with ``{}`` for what cannot be seen."""
        if depth > MAX_DEPTH:
            return UNKNOWN
        kind = node.type
        if kind == "string":
            parts = []
            for part in node.named_children:
                if part.type == "interpolation":
                    inner = child(part, "expression")
                    parts.append(self._value(inner, depth + 1, bind) if inner else UNKNOWN)
                elif part.type in ("string_content", "escape_sequence"):
                    parts.append(self.text(part))
            return "".join(parts)
        if kind == "concatenated_string":
            return "".join(self._value(c, depth + 1, bind) for c in node.named_children)
        if kind == "parenthesized_expression" and node.named_child_count:
            return self._value(node.named_children[0], depth + 1, bind)
        if kind == "binary_operator":
            left, right = child(node, "left"), child(node, "right")
            operator = self.text(child(node, "operator"))
            if left is None or right is None:
                return UNKNOWN
            if operator == "+":
                return self._value(left, depth + 1, bind) + self._value(right, depth + 1, bind)
            if operator == "%":
                items = right.named_children if right.type == "tuple" else [right]
                values = iter([self._value(i, depth + 1, bind) for i in items])
                return _PERCENT.sub(
                    lambda _: next(values, UNKNOWN), self._value(left, depth + 1, bind)
                )
            return UNKNOWN
        if kind == "boolean_operator":
            right = child(node, "right")
            return self._value(right, depth + 1, bind) if right is not None else UNKNOWN
        if kind == "identifier" and self.text(node) in bind:
            return bind[self.text(node)]
        if kind == "augmented_assignment":
            left, right = child(node, "left"), child(node, "right")
            if left is None or right is None or self.text(child(node, "operator")) != "+=":
                return UNKNOWN
            return self._value(left, depth + 1, bind) + self._value(right, depth + 1, bind)
        if kind in ("identifier", "attribute"):
            value = self._definition(node)
            return grown(self, node, value, depth, bind) if value is not None else UNKNOWN
        if kind == "call":
            return self._call_value(node, depth, bind)
        return UNKNOWN

    def _call_value(self, call: Node, depth: int, bind: dict[str, str]) -> str:
        name = self._callee_name(call)
        args = self._positional(call)
        values = [self._value(a, depth + 1, bind) for a in args]
        function = child(call, "function")
        receiver = child(function, "object") if function and function.type == "attribute" else None
        if name == "urljoin" and len(values) == 2:
            return url_join(values[0], values[1])
        if name == "join" and self.text(receiver) in ("os.path", "posixpath") and values:
            return "/".join(v.strip("/") if i else v.rstrip("/") for i, v in enumerate(values))
        if name == "join" and receiver is not None and receiver.type == "string" and args:
            items = args[0].named_children if args[0].type in ("list", "tuple") else []
            parts = [self._value(i, depth + 1, bind) for i in items]
            return self._value(receiver, depth + 1, bind).join(parts) if parts else UNKNOWN
        if name == "format" and receiver is not None and receiver.type == "string":
            named = {
                self.text(child(k, "name")): self._value(v, depth + 1, bind)
                for k in self._kwargs(call)
                if (v := child(k, "value")) is not None
            }
            order = iter(values)

            def placed(m: re.Match[str]) -> str:
                key = m.group(1).split(":")[0].split("!")[0]
                if key.isdigit():
                    return values[int(key)] if int(key) < len(values) else UNKNOWN
                return named.get(key, UNKNOWN) if key else next(order, UNKNOWN)

            return _FIELD.sub(placed, self._value(receiver, depth + 1, bind))
        if name in ("str", "quote") and values:
            return values[0]
        if name in ("strip", "lstrip", "rstrip") and receiver is not None and len(values) < 2:
            # ``base.rstrip("/")``, ``path.lstrip("/")``: an unknown end stays unknown
            value = self._value(receiver, depth + 1, bind)
            chars = values[0] if values else " \t\n"
            if UNKNOWN in chars:
                return UNKNOWN
            if name != "rstrip" and not value.startswith(UNKNOWN):
                value = value.lstrip(chars)
            if name != "lstrip" and not value.endswith(UNKNOWN):
                value = value.rstrip(chars)
            return value
        return self._returned(call, depth, bind)

    def _returned(self, call: Node, depth: int, bind: dict[str, str]) -> str:
        """The string a call of the document's own function returns (`PythonCallees`)."""
        return UNKNOWN

    def _definition(self, node: Node) -> Node | None:
        """The value last assigned to a name (or to ``self.name``) before `node`, if visible."""
        if node.type == "attribute":
            holder = child(node, "object")
            attribute = self.text(child(node, "attribute"))
            if holder is not None and holder.type == "identifier" and not self._is_self(holder):
                klass = self._class_of(self.text(holder))  # ``Client.PREFIX``
                return self._class_constant(klass, attribute) if klass is not None else None
            if not self._is_self(holder):
                return None
            return self._self_definition(attribute, node)
        name = self.text(node)
        scope = self.scope_of(node)
        for ident in self.named_nodes(name, 0, node.start_byte, _is_binding, reverse=True):
            parent = ident.parent
            if parent is None:
                continue
            if parent.type in _PARAMETER_PARENTS:
                if self.scope_of(parent) == scope:
                    # a parameter: its value is the caller's; where the function is read on its
                    # own, a string default is the one value the code shows (not a method's: a
                    # wrapper's callers pass their own, read through its summary)
                    default = child(parent, "value") if parent.type in _DEFAULTS else None
                    if default is None or default.type != "string":
                        return None
                    return None if self.literal(default).lower() in HTTP_VERBS else default
                continue
            if parent.type not in _ASSIGNMENTS or not is_field(ident, "left"):
                continue
            if parent.type == "assignment" and parent.end_byte > node.start_byte:
                continue  # ``url = f"{url}?limit={n}"`` reads the value assigned before
            home = self.scope_of(parent)
            if home == scope or home is None:
                if parent.type == "augmented_assignment":
                    return parent  # ``url += "?offset=0"``: `_value` adds it to the value before
                return child(parent, "right")
        return None

    def _self_definition(self, attribute: str, at: Node) -> Node | None:
        klass = next((a for a in ancestors(at) if a.type == "class_definition"), None)
        if klass is None:
            return None
        constant = self._class_constant(klass, attribute)
        if constant is not None:
            return constant
        for ident in self.named_nodes(attribute, klass.start_byte, klass.end_byte, _is_identifier):
            holder = ident.parent
            if holder is None or holder.type != "attribute" or not self._is_self(holder.child(0)):
                continue
            assignment = holder.parent
            if (
                assignment is not None
                and assignment.type == "assignment"
                and is_field(holder, "left")
            ):
                return child(assignment, "right")
        return None

    def _class_of(self, name: str) -> Node | None:
        """The class `name` defined in this document (a capitalised name only)."""
        if not name[:1].isupper():
            return None
        for ident in self.named_nodes(name, 0, len(self.data), _is_identifier, limit=16):
            parent = ident.parent
            if parent is not None and parent.type == "class_definition" and is_field(ident, "name"):
                return parent
        return None

    def _class_constant(self, klass: Node, name: str) -> Node | None:
        """``PREFIX = "/rest/2.0"`` in the body of `klass`."""
        body = child(klass, "body")
        for statement in body.named_children if body is not None else []:
            assignment = (
                statement.named_child(0) if statement.type == "expression_statement" else None
            )
            if assignment is None or assignment.type != "assignment":
                continue
            target = child(assignment, "left")
            if target is not None and target.type == "identifier" and self.text(target) == name:
                return child(assignment, "right")
        return None

    # --- names and scopes ------------------------------------------------------------------

    def _uses(self, name: str, after: Node) -> list[Node]:
        """Reads of `name` after `after`, in the scope `after` is in."""
        scope = self.scope_of(after)
        end = scope.end_byte if scope is not None else self.root.end_byte
        found = []
        for ident in self.named_nodes(name, after.end_byte, end, _is_identifier):
            parent = ident.parent
            if parent is not None and parent.type == "assignment" and is_field(ident, "left"):
                # Reassigned: later uses see another value, which goes on from this one where
                # it reads it (``url = f"{url}?limit={n}"``, ``url = url + "&offset=" + o``).
                right = child(parent, "right")
                if right is not None:
                    reads = self.named_nodes(name, right.start_byte, right.end_byte, _is_identifier)
                    found += list(reads)[:1]
                break
            if parent is not None and parent.type == "keyword_argument" and is_field(ident, "name"):
                continue
            found.append(ident)
        return found

    def _target_uses(self, target: Node, assignment: Node) -> list[Node]:
        if target.type == "identifier":
            return self._uses(self.text(target), assignment)
        if target.type == "attribute" and self._is_self(child(target, "object")):
            klass = next((a for a in ancestors(target) if a.type == "class_definition"), None)
            attribute = self.text(child(target, "attribute"))
            if klass is None:
                return []
            return [
                ident.parent
                for ident in self.named_nodes(
                    attribute, assignment.end_byte, klass.end_byte, _is_identifier
                )
                if ident.parent is not None
                and ident.parent.type == "attribute"
                and self._is_self(ident.parent.child(0))
                and not (
                    ident.parent.parent is not None
                    and ident.parent.parent.type == "assignment"
                    and is_field(ident.parent, "left")
                )
            ]
        return []

    def _dict_keys(self, dictionary: Node) -> tuple[str, ...]:
        keys = [
            self.literal(key)
            for pair in dictionary.named_children
            if pair.type == "pair" and (key := child(pair, "key")) is not None
            if key.type == "string"
        ]
        assignment = dictionary.parent
        if assignment is not None and assignment.type == "assignment":
            target = child(assignment, "left")
            if target is not None and target.type == "identifier":
                keys += self._subscript_keys(self.text(target), assignment)
        return tuple(dict.fromkeys(keys))

    def _var_keys(self, name: str, at: Node) -> tuple[str, ...]:
        value = self._definition_before(name, at)
        if value is not None and value.type == "dictionary":
            return self._dict_keys(value)
        return tuple(dict.fromkeys(self._subscript_keys(name, at)))

    def _definition_before(self, name: str, at: Node) -> Node | None:
        for ident in self.named_nodes(name, 0, at.start_byte, _is_identifier, reverse=True):
            parent = ident.parent
            if parent is not None and parent.type == "assignment" and is_field(ident, "left"):
                return child(parent, "right")
        return None

    def _subscript_keys(self, name: str, after: Node) -> list[str]:
        scope = self.scope_of(after)
        start = scope.start_byte if scope is not None else 0
        end = scope.end_byte if scope is not None else self.root.end_byte
        keys = []
        for ident in self.named_nodes(name, start, end, _is_identifier):
            subscript = ident.parent
            if subscript is None or subscript.type != "subscript":
                continue
            key = child(subscript, "subscript")
            assignment = subscript.parent
            if key is None or key.type != "string" or assignment is None:
                continue
            if assignment.type == "assignment" and is_field(subscript, "left"):
                keys.append(self.literal(key))
        return keys

    # --- small readers ---------------------------------------------------------------------

    def _positional(self, call: Node) -> list[Node]:
        arguments = child(call, "arguments")
        if arguments is None:
            return []
        return [
            a
            for a in arguments.named_children
            if a.type not in ("keyword_argument", "comment", "dictionary_splat", "list_splat")
        ]

    def _kwargs(self, call: Node) -> list[Node]:
        arguments = child(call, "arguments")
        if arguments is None:
            return []
        return [a for a in arguments.named_children if a.type == "keyword_argument"]

    def _parameters(self, definition: Node) -> list[Node]:
        parameters = child(definition, "parameters")
        found = []
        for p in parameters.named_children if parameters is not None else []:
            # ``*`` and ``/`` separators have no name (and no child at all).
            first = p.named_children[0] if p.named_children else None
            name = p if p.type == "identifier" else child(p, "name") or first
            if name is not None and name.type == "identifier":
                found.append(name)
        return found

    def _callee_name(self, call: Node) -> str:
        function = child(call, "function")
        if function is None:
            return ""
        if function.type == "attribute":
            return self.text(child(function, "attribute"))
        return self.text(function) if function.type == "identifier" else ""

    def _method_literal(self, node: Node | None) -> str:
        if node is None or node.type != "string":
            return ""
        value = self.literal(node).upper()
        return value if value.lower() in HTTP_VERBS else ""

    def literal(self, node: Node) -> str:
        return "".join(
            self.text(p)
            for p in node.named_children
            if p.type in ("string_content", "escape_sequence")
        )

    def is_string(self, node: Node) -> bool:
        return node.type == "string"

    def content_span(self, node: Node) -> tuple[int, int]:
        string = node
        parts = [p for p in string.children if p.type not in ("string_start", "string_end")]
        if not parts:
            return string.start_byte, string.end_byte
        return parts[0].start_byte, parts[-1].end_byte

    def _is_self(self, node: Node | None) -> bool:
        return node is not None and node.type == "identifier" and self.text(node) in ("self", "cls")

    def _is_join_argument(self, container: Node) -> bool:
        arguments = container.parent
        call = arguments.parent if arguments is not None else None
        return call is not None and call.type == "call" and self._callee_name(call) == "join"

    def scope_of(self, node: Node) -> Node | None:
        return next((a for a in ancestors(node) if a.type in _FUNCTIONS), None)


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"


_PARAMETER_PARENTS = frozenset(
    {"parameters", "default_parameter", "typed_parameter", "typed_default_parameter"}
)
_DEFAULTS = frozenset({"default_parameter", "typed_default_parameter"})
_ASSIGNMENTS = frozenset({"assignment", "augmented_assignment"})


def _is_binding(node: Node) -> bool:
    """A name that a parameter or an assignment binds (what `_definition` looks for)."""
    parent = node.parent
    return (
        node.type == "identifier"
        and parent is not None
        and (
            parent.type in _PARAMETER_PARENTS
            or (parent.type in _ASSIGNMENTS and is_field(node, "left"))
        )
    )
