"""What a JavaScript or TypeScript expression holds, as far as the text shows it: the string a URL
expression builds (template literals, ``+``, ``new URL(path, base)``, names, ``this.baseUrl``), an
object's options, its keys.

`bind` maps the parameters of a wrapper function to the values its caller passes (None for an
argument the caller leaves out): a wrapper's URL is read again at each call site with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.recognize.calls.js_strings import REPLACE, joined, replaced
from atlas_core.recognize.calls.site import UNKNOWN, url_join
from atlas_core.recognize.calls.tree_reader import MAX_DEPTH
from atlas_core.recognize.calls.walk import CallWalk
from atlas_core.syntax import ancestors, is_field
from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

Bind = dict[str, "str | None"]

FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "function",
    }
)
PARAMETER_PARENTS = frozenset({"formal_parameters", "required_parameter", "optional_parameter"})
CLASS_FIELDS = frozenset({"field_definition", "public_field_definition"})
_CALLEE_WRAPPERS = frozenset(
    {"await_expression", "parenthesized_expression", "non_null_expression"}
)
_NOTHING = frozenset({"null", "undefined"})
# TypeScript's typing around a value: ``{...} as const``, ``{...} satisfies Routes``.
TYPINGS = frozenset({"as_expression", "satisfies_expression"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function"})
# Calls that give back the string they are called on (for a method name, upper case).
_SAME_VALUE = frozenset({"toString", "toUpperCase", "trim"})
# How many definitions of `this.name` are compared before giving up on one value.
_MAX_FIELD_DEFINITIONS = 8


class JsValues(CallWalk):
    """Values and small readers of the JavaScript and TypeScript call reader."""

    def _value(self, node: Node | None, depth: int, bind: Bind | None = None) -> str:
        if node is None or depth > MAX_DEPTH:
            return UNKNOWN
        kind = node.type
        if kind in ("string", "template_string"):
            parts = []
            for part in node.named_children:
                if part.type == "template_substitution":
                    inner = part.named_children[0] if part.named_child_count else None
                    parts.append(self._value(inner, depth + 1, bind))
                elif part.type in ("string_fragment", "escape_sequence"):
                    parts.append(self.text(part))
            if len(parts) > 1 and parts[0] == UNKNOWN and parts[1][:1].isalpha():
                parts.insert(1, "/")  # `${config.apiUrl}assets`: the base ends in its slash
            return "".join(parts)
        if kind in ("parenthesized_expression", "as_expression", "non_null_expression"):
            first = node.named_children[0] if node.named_child_count else None
            return self._value(first, depth + 1, bind)
        if kind == "binary_expression":
            operator = self.text(child(node, "operator"))
            left = self._value(child(node, "left"), depth + 1, bind)
            if operator == "+":
                return left + self._value(child(node, "right"), depth + 1, bind)
            if operator in ("??", "||"):
                if left != UNKNOWN:
                    return left
                return self._value(child(node, "right"), depth + 1, bind)
            return UNKNOWN
        if kind == "ternary_expression":
            return self._choice(node, depth, bind)
        if kind in ("identifier", "shorthand_property_identifier"):
            name = self.text(node)
            definition = self._definition(node)
            if definition is None and bind is not None and name in bind:
                bound = bind[name]
                return UNKNOWN if bound is None else bound
            value = self._value(definition, depth + 1, bind)
            if definition is None:
                return value
            # `let url = process.env.BASE; url += "/rest/2.0/assets"`: added to an unknown base
            return self._changed(value, name, definition, node, depth, bind)
        if kind == "member_expression" and self.text(child(node, "property")) == "href":
            return self._value(child(node, "object"), depth + 1, bind)  # a `new URL`'s
        if kind == "member_expression":
            value = self._field_value(node)
            if value is None:
                value = self._member_value(node, depth)
            return self._value(value, depth + 1)
        if kind == "call_expression":
            function = self.callee(node)  # `url.toString()`, `method.toUpperCase()`
            spelled = self.text(child(function, "property")) if function is not None else ""
            if spelled in _SAME_VALUE and function is not None and not self._arguments(node):
                value = self._value(child(function, "object"), depth + 1, bind)
                return value.upper() if spelled == "toUpperCase" else value
            if spelled in REPLACE and function is not None:
                return replaced(self, node, child(function, "object"), depth, bind)
            if spelled == "join" and function is not None:
                return joined(self, node, child(function, "object"), depth, bind)
            return self._call_value(node, depth, bind)
        if kind in _FUNCTION_VALUES:
            return self._function_value(node, depth)  # a path builder passed to a helper
        if kind == "new_expression" and self._callee_text(node) == "URL":
            args = [self._value(a, depth + 1, bind) for a in self._arguments(node)]
            return url_join(args[1], args[0]) if len(args) == 2 else (args[0] if args else UNKNOWN)
        return UNKNOWN

    def _function_value(self, function: Node, depth: int) -> str:
        """The URL a function passed as a value returns, its parameters unknown."""
        return UNKNOWN

    def _call_value(self, call: Node, depth: int, bind: Bind | None) -> str:
        """What a call of the code's own URL-building function returns (`js_returns`)."""
        return UNKNOWN

    def _changed(
        self, value: str, name: str, definition: Node, node: Node, depth: int, bind: Bind | None
    ) -> str:
        """The value `value` of a name's definition as the statements between it and the read
        `node` change it. ``name += ...`` adds its value where it runs unconditionally, beside
        the declaration; a query string added under a condition changes no endpoint; any other
        conditional part is unknown. ``name = ...`` beside the declaration replaces the value;
        one under a condition leaves it unknown, unless the cursor is in one of the values."""
        declaration = definition.parent.parent if definition.parent is not None else None
        block = declaration.parent if declaration is not None else None
        in_first = definition.start_byte <= self.offset < definition.end_byte
        changes = []  # nearest the read first
        for ident in self.named_nodes(
            name, definition.end_byte, node.start_byte, _is_identifier, reverse=True
        ):
            change = ident.parent
            if change is None or not is_field(ident, "left") or change.end_byte > node.start_byte:
                continue  # not a change, or the one whose value the read is part of
            right = child(change, "right")
            here = right is not None and right.start_byte <= self.offset < right.end_byte
            if here and change.type == "assignment_expression":
                return self._value(right, depth + 1, bind)  # the URL the cursor is in
            changes.append(change)
        start, added = value, []
        for change in changes:  # back to the last value given whole, each read once
            statement = change.parent
            beside = block is not None and statement is not None and statement.parent == block
            right = child(change, "right")
            if change.type == "assignment_expression" and right is not None:
                if beside and in_first:
                    return UNKNOWN  # the first value, where the cursor is, is never sent
                if beside:
                    start = self._value(right, depth + 1, bind)
                    break
                if not in_first:  # else the first value, where the cursor is, may be sent
                    start = UNKNOWN
                    break
                continue
            if change.type != "augmented_assignment_expression":
                continue
            if self.text(child(change, "operator")) != "+=":
                continue
            part = self._value(right, depth + 1, bind)
            if beside:
                added.append(part)
            elif not part.startswith(("?", "&")):
                added.append(UNKNOWN)
        return start + "".join(reversed(added))

    def _choice(self, node: Node, depth: int, bind: Bind | None) -> str:
        """``body ? "POST" : "GET"``: the branch a wrapper's caller picks by passing `body` or
        not; else the value both branches agree on, a query string's start among them."""
        condition = child(node, "condition")
        yes, no = child(node, "consequence"), child(node, "alternative")
        for branch in (yes, no):
            if branch is not None and branch.start_byte <= self.offset < branch.end_byte:
                return self._value(branch, depth + 1, bind)  # the URL the cursor is in
        if condition is not None and condition.type == "identifier" and bind is not None:
            name = self.text(condition)
            if name in bind and self._definition(condition) is None:
                return self._value(yes if bind[name] is not None else no, depth + 1, bind)
        first = self._value(yes, depth + 1, bind)
        second = self._value(no, depth + 1, bind)
        if {first, second} == {"?", "&"}:
            return "?"  # `path.includes("?") ? "&" : "?"`: the path ends here either way
        return first if first == second else UNKNOWN

    def held_value(self, owner: Node | None) -> Node | None:
        """The value a name (its definition) or a field (``this.url``, ``Client.BASE``: its one
        value) holds; None for any other expression."""
        if owner is None:
            return None
        if owner.type == "identifier":
            return self._definition(owner)
        if owner.type == "member_expression":
            return self._field_value(owner)
        return None

    def _field_value(self, member: Node) -> Node | None:
        """``this.baseUrl`` (or ``Client.BASE``): the one value the class gives the field, in its
        declaration or in ``this.baseUrl = ...`` assignments; None when they differ."""
        receiver = child(member, "object")
        name = self.text(child(member, "property"))
        if receiver is None or not name:
            return None
        this = receiver.type == "this"
        if not this and not (receiver.type == "identifier" and self.text(receiver)[:1].isupper()):
            return None  # `Client.BASE` is a static field; `response.data` is no one's field
        values: list[Node] = []
        found = self.named_nodes(
            name, 0, len(self.data), _is_property, limit=_MAX_FIELD_DEFINITIONS
        )
        for prop in found:
            value = self._field_definition_value(prop, this)
            if value is not None and value.type not in _NOTHING:
                values.append(value)
        texts = {self.text(v) for v in values}
        return values[0] if len(texts) == 1 else None

    def _member_value(self, member: Node, depth: int) -> Node | None:
        """``endpoints.assets``, ``config.api.base``: a key of an object literal a name holds."""
        receiver = child(member, "object")
        if receiver is None or depth > MAX_DEPTH:
            return None
        key = self.text(child(member, "property"))
        if receiver.type == "identifier":
            held = self._definition(receiver)
            if held is None:
                return self._enum_value(self.text(receiver), key)  # `Method.DELETE`
        elif receiver.type == "member_expression":
            held = self._member_value(receiver, depth + 1)
        else:
            return None
        held = unwrapped(held)  # `{...} as const`
        if held is None or held.type != "object":
            return None
        return self._pair_value(held, key)

    def _enum_value(self, name: str, key: str) -> Node | None:
        """The value a TypeScript ``enum name { key = "..." }`` gives its member `key`."""
        for ident in self.named_nodes(name, 0, len(self.data), _is_enum_name, limit=4):
            body = child(ident.parent, "body") if ident.parent is not None else None
            for item in body.named_children if body is not None else []:
                if item.type == "enum_assignment" and self.text(child(item, "name")) == key:
                    return child(item, "value")
        return None

    def _field_definition_value(self, prop: Node, this: bool) -> Node | None:
        parent = prop.parent
        if parent is None:
            return None
        if parent.type in CLASS_FIELDS:
            return child(parent, "value")
        if not this or parent.type != "member_expression":
            return None
        receiver = child(parent, "object")
        assignment = parent.parent
        if receiver is None or receiver.type != "this" or assignment is None:
            return None
        if assignment.type == "assignment_expression" and is_field(parent, "left"):
            return child(assignment, "right")
        return None

    def field_uses(self, prop: Node) -> list[Node]:
        """Where a class field (`prop`, its name in a declaration or in ``this.x = ...``) is read:
        the ``this.x`` expressions in its class."""
        name = self.text(prop)
        scope = next((a for a in ancestors(prop) if a.type == "class_body"), None)
        start, end = (scope.start_byte, scope.end_byte) if scope else (0, len(self.data))
        uses = []
        for found in self.named_nodes(name, start, end, _is_property):
            member = found.parent
            if member is None or member.type != "member_expression" or found.id == prop.id:
                continue
            receiver = child(member, "object")
            assignment = member.parent
            if receiver is None or receiver.type != "this":
                continue
            if (
                assignment
                and assignment.type == "assignment_expression"
                and is_field(member, "left")
            ):
                continue
            uses.append(member)
        return uses

    def _definition(self, node: Node) -> Node | None:
        name = self.text(node)
        for ident in self.named_nodes(name, 0, node.start_byte, _is_identifier, reverse=True):
            parent = ident.parent
            if parent is None:
                continue
            if parent.type in PARAMETER_PARENTS or (
                parent.type == "assignment_pattern" and is_field(ident, "left")
            ):
                if self._within(node, self.scope_of(parent)):
                    return None  # a parameter: its value is the caller's
                continue
            if parent.type == "arrow_function" and is_field(ident, "parameter"):
                if self._within(node, parent):
                    return None
                continue
            declares = parent.type == "variable_declarator" and is_field(ident, "name")
            if declares and self._within(node, self.scope_of(parent)):
                return child(parent, "value")
        if self.scope_of(node) is None:
            return None
        # A function runs after the module has set its constants, wherever they are written.
        for ident in self.named_nodes(name, node.end_byte, len(self.data), _is_identifier):
            parent = ident.parent
            if parent is None or parent.type != "variable_declarator":
                continue
            if is_field(ident, "name") and self.scope_of(parent) is None:
                return child(parent, "value")
        return None

    # Static, so that `self.is_use` is one object for every reader of a scan: the scan's
    # `NameMemo` keeps a name's nodes per (name, filter), and a bound method would be a new filter
    # per read, listing the name's nodes in the whole document again at each.
    @staticmethod
    def is_use(node: Node) -> bool:
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

    def callee(self, call: Node) -> Node | None:
        """What `call` calls; TypeScript's grammar reads ``await axios.get<T>(url)`` as a call
        of ``await axios.get``."""
        function = child(call, "function") or child(call, "constructor")
        while function is not None and function.type in _CALLEE_WRAPPERS:
            function = function.named_children[0] if function.named_child_count else None
        return function

    def _callee_text(self, call: Node) -> str:
        return self.text(self.callee(call))

    def _pair_value(self, obj: Node | None, key: str) -> Node | None:
        if obj is not None and obj.type == "identifier":
            obj = self._definition(obj)  # `fetch(url, options)` with `const options = {...}`
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
        return next((a for a in ancestors(node) if a.type in FUNCTIONS), None)

    @staticmethod
    def _within(node: Node, scope: Node | None) -> bool:
        return scope is None or scope.start_byte <= node.start_byte < scope.end_byte


def unwrapped(value: Node | None) -> Node | None:
    """`value` without its TypeScript typing: ``{...} as const``, ``{...} satisfies Routes``."""
    while value is not None and value.type in TYPINGS and value.named_child_count:
        value = value.named_children[0]
    return value


def _is_identifier(node: Node) -> bool:
    return node.type == "identifier"


def _is_enum_name(node: Node) -> bool:
    parent = node.parent
    return node.type == "identifier" and parent is not None and parent.type == "enum_declaration"


def _is_property(node: Node) -> bool:
    return node.type == "property_identifier"
