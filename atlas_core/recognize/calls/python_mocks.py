"""Test doubles that look like HTTP clients: ``requests_mock``'s ``m.post(url, json=...)``,
``responses.get(url, json=...)``, ``respx.post(url)``, ``httpx_mock.add_response(method=...,
url=..., json=...)``, aioresponses' ``m.get(url, payload=...)``.

They take a Collibra URL and a method as a real call does, but register what a fake server
answers: their ``json`` is a response (``{"id": ..., "createdBy": ...}``), never a request body,
and no request is sent. Reading them as calls flags every response field as an unknown body key.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from atlas_core.syntax import field as child

if TYPE_CHECKING:
    from tree_sitter import Node

    from atlas_core.recognize.calls.python_names import PythonNames

# A receiver named for a double (``requests_mock``, ``httpx_mock``, ``mock_session``, pytest's
# ``mocker``) or one of the libraries whose module-level verbs register responses.
_MOCK_NAME = re.compile(r"(?i)mock|^(?:responses|rsps|respx|aioresponses)$")
# What makes one: ``requests_mock.Mocker()``, ``responses.RequestsMock()``, ``aioresponses()``,
# ``respx.mock(...)``, ``MagicMock()``.
_MOCK_MAKER = re.compile(r"(?i)mock|aioresponses|^responses\.|^respx\b")
_CHAIN = frozenset({"attribute", "call", "subscript"})


def mocked(reader: PythonNames, receiver: Node) -> bool:
    """Whether `receiver` (``m`` in ``m.post(...)``) is a test double registering responses."""
    root: Node | None = receiver
    for _ in range(16):  # ``requests_mock.Mocker().post``, ``self.rsps.add``: the leftmost name
        if root is None or root.type not in _CHAIN:
            break
        root = child(root, "object") if root.type == "attribute" else child(root, "function")
        if root is not None and root.type == "subscript":
            root = child(root, "value")
    if root is None or root.type != "identifier":
        return False
    if _MOCK_NAME.search(reader.text(root)):
        return True
    made = reader._definition(root)  # ``m = requests_mock.Mocker()``
    if made is not None and _made_by_mock(reader, made):
        return True
    return _bound_by_with(reader, root)


def _made_by_mock(reader: PythonNames, value: Node) -> bool:
    if value.type == "await":
        value = value.named_children[0] if value.named_children else value
    if value.type != "call":
        return False
    function = child(value, "function")
    return function is not None and bool(_MOCK_MAKER.search(reader.text(function)))


def _bound_by_with(reader: PythonNames, root: Node) -> bool:
    """``with requests_mock.Mocker() as m:`` (or ``async with aioresponses() as m``)."""
    name = reader.text(root)
    for ident in reader.named_nodes(name, 0, root.start_byte, _is_with_alias, reverse=True):
        pattern = ident.parent.parent if ident.parent is not None else None
        value = pattern.named_children[0] if pattern is not None else None
        return value is not None and _made_by_mock(reader, value)
    return False


def _is_with_alias(node: Node) -> bool:
    target = node.parent
    pattern = target.parent if target is not None else None
    return (
        node.type == "identifier"
        and target is not None
        and target.type == "as_pattern_target"
        and pattern is not None
        and pattern.type == "as_pattern"
        and pattern.parent is not None
        and pattern.parent.type == "with_item"
    )
