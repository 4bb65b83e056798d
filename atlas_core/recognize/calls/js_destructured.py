"""Options a wrapper takes as a destructured parameter, read at each call site::

    async function http(url, { method = "GET", body } = {}) {
      return fetch(url, { method, body: JSON.stringify(body) });
    }
    http(`${BASE}/rest/2.0/attributes/${id}`, { method: "PATCH", body });  // PATCH
    http(`${BASE}/rest/2.0/attributeTypes`);                                // GET, the default

Each name the pattern declares is bound to the value of its key in the caller's options object,
or to the pattern's default where the caller's options (every object merged into them visible)
leave the key out. Options the caller does not show bind nothing: the name reads as unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.js_values import Bind, JsValues

# One destructured name: (the name the body reads, the options key it takes, its default).
Name = tuple[str, str, "Node | None"]
Patterns = dict[int, tuple[Name, ...]]
_MAX_NAMES = 32
_PLAIN = frozenset({"pair", "shorthand_property_identifier", "comment"})


def pattern_params(reader: JsValues, definition: Node) -> Patterns:
    """The names each object-pattern parameter of a function declares, by parameter index."""
    listed = child(definition, "parameters")
    if listed is None:
        return {}
    found: Patterns = {}
    for index, param in enumerate(listed.named_children):
        default = None
        if param.type in ("required_parameter", "optional_parameter"):
            default = child(param, "value")
            param = child(param, "pattern") or param
        if param.type == "assignment_pattern":
            default = child(param, "right")
            param = child(param, "left") or param
        if param.type != "object_pattern":
            continue
        if default is not None and not (default.type == "object" and not default.named_child_count):
            continue  # `{ method } = DEFAULTS`: the defaults are another object's keys
        names = _names(reader, param)
        if names:
            found[index] = names
    return found


def _names(reader: JsValues, pattern: Node) -> tuple[Name, ...]:
    names: list[Name] = []
    for item in pattern.named_children[:_MAX_NAMES]:
        if item.type == "shorthand_property_identifier_pattern":
            spelled = reader.text(item)
            names.append((spelled, spelled, None))
        elif item.type == "object_assignment_pattern":
            left = child(item, "left")
            if left is not None and left.type == "shorthand_property_identifier_pattern":
                spelled = reader.text(left)
                names.append((spelled, spelled, child(item, "right")))
        elif item.type == "pair_pattern":
            key, value = child(item, "key"), child(item, "value")
            default = None
            if value is not None and value.type == "assignment_pattern":
                value, default = child(value, "left"), child(value, "right")
            if key is not None and value is not None and value.type == "identifier":
                names.append((reader.text(value), reader._key_name(key), default))
    return tuple(names)


def bind_patterns(
    reader: JsValues,
    bound: Bind,
    names: tuple[Name, ...],
    found: list[Node] | None,
    bind: Bind | None,
) -> None:
    """Binds the names an options pattern declares to what the caller's options give each key
    (`found`: the objects merged into them, None where the caller leaves them out), else to the
    key's default."""
    objects: list[Node] = []
    if found is not None:
        if not found or any(s.type != "object" for s in found):
            return  # options the caller does not show (a parameter, a call)
        if any(c.type not in _PLAIN for s in found for c in s.named_children):
            return  # a spread, a computed key: which keys the options hold is not written
        objects = found
    for name, key, default in names:
        value = None
        for source in objects:
            value = reader._pair_value(source, key) or value
        if value is None:
            value = default
        if value is not None:
            bound[name] = reader._value(value, 0, bind)
