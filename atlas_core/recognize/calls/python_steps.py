"""A Python name built up by steps: ``url = url + "&name=" + n`` in one branch, ``url +=
f"&typeId={t}"`` in the next. Its value is followed through all its steps as one name, up to
`MAX_STEPS` of them, so a query string added to four times reads as one added to once did
(each step counted as a name followed would end the reading at the depth limit)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.python_names import PythonNames

MAX_STEPS = 16


def grown(reader: PythonNames, name: Node, value: Node, depth: int, bind: dict[str, str]) -> str:
    """The string `name` holds, `value` being what it was last assigned."""
    tails: list[list[Node]] = []
    text = reader.text(name)
    while len(tails) < MAX_STEPS:
        head, added = _step(reader, value, text)
        earlier = reader._definition(head) if head is not None else None
        if earlier is None:
            break
        tails.append(added)
        value = earlier
    start = reader._value(value, depth + 1, bind)
    rest = [part for added in reversed(tails) for part in added]
    return start + "".join(reader._value(p, depth + 1, bind) for p in rest)


def _step(reader: PythonNames, value: Node, name: str) -> tuple[Node | None, list[Node]]:
    """(the name, the parts added to it) when `value` is `name` plus more."""
    if value.type == "augmented_assignment":
        if reader.text(child(value, "operator")) != "+=":
            return None, []
        head, right = child(value, "left"), child(value, "right")
        added = [right] if right is not None else []
    else:
        head, added = value, []
        while head.type == "binary_operator" and reader.text(child(head, "operator")) == "+":
            right = child(head, "right")
            head = child(head, "left")
            if head is None or right is None:
                return None, []
            added.insert(0, right)
    # a plain name only: ``self.url``'s assignments are not ordered by where they stand
    if not added or head is None or head.type != "identifier" or reader.text(head) != name:
        return None, []
    return head, added
