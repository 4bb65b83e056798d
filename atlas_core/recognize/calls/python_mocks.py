"""Test doubles that look like HTTP clients: ``requests_mock``'s ``m.post(url, json=...)``,
``responses.get(url, json=...)``, ``respx.post(url)``, ``httpx_mock.add_response(method=...,
url=..., json=...)``, aioresponses' ``m.get(url, payload=...)``.

They take a Collibra URL and a method as a real call does, but register what a fake server
answers: their ``json`` is a response (``{"id": ..., "createdBy": ...}``), never a request body,
and no request is sent. Reading them as calls flags every response field as an unknown body key.

So do the test clients of the project's own app (Flask's ``app.test_client()``, Starlette's
``TestClient(app)``, Django's ``Client()``, ``httpx.AsyncClient(app=app)``, pytest-aiohttp's
``await aiohttp_client(app)``, a test's ``client`` fixture): their requests go to that app, a mock
server or a proxy, whose routes take its own keys.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from atlas_core.syntax import ancestors
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
# What makes a test client of the document's own app.
_APP_CLIENT = re.compile(r"(?:^|\.)(?:test_client|TestClient|aiohttp_client)$")
_BARE_CLIENT = frozenset({"Client", "APIClient", "AsyncClient"})  # Django's and DRF's: no args
# ``httpx.AsyncClient(app=app)``, ``transport=ASGITransport(app=app)`` (not a real transport:
# ``httpx.HTTPTransport(retries=3)`` sends)
_APP_TRANSPORT = re.compile(r"^(?:\w+\.)*(?:ASGI|WSGI|Mock)Transport\(")
# A test's parameter of these names is pytest's fixture of the app's test client.
_CLIENT_FIXTURES = frozenset({"client", "test_client"})
_CHAIN = frozenset({"attribute", "call", "subscript"})


def mocked(reader: PythonNames, receiver: Node) -> bool:
    """Whether `receiver` (``m`` in ``m.post(...)``) is a test double registering responses."""
    root: Node | None = receiver
    for _ in range(16):  # ``requests_mock.Mocker().post``, ``self.rsps.add``: the leftmost name
        if root is None or root.type not in _CHAIN:
            break
        if root.type == "call" and _made_by_mock(reader, root):
            return True  # ``TestClient(app).get(...)``
        root = child(root, "object") if root.type == "attribute" else child(root, "function")
        if root is not None and root.type == "subscript":
            root = child(root, "value")
    if root is None or root.type != "identifier":
        return False
    if _MOCK_NAME.search(reader.text(root)):
        return True
    if not _has_doubles(reader.data):
        return False  # most documents: no double or test client is made anywhere in them
    made = reader._definition(root)  # ``m = requests_mock.Mocker()``
    if made is not None and _made_by_mock(reader, made):
        return True
    return _bound_by_with(reader, root) or _client_fixture(reader, root)


# What a document that makes a double or a test client writes somewhere: a cheap test (plain
# substrings, no regular expression over the whole text) before a name's definitions and `with`
# bindings are looked for.
_DOUBLE_SIGNS = (
    b"mock",
    b"Mock",
    b"MOCK",
    b"responses",
    b"respx",
    b"test_client",
    b"TestClient",
    b"aiohttp_client",
    b"app=",
    b"app =",
    b"Transport",
    b"Client()",
    b"def test",
)


@lru_cache(maxsize=4)
def _has_doubles(data: bytes) -> bool:
    return any(sign in data for sign in _DOUBLE_SIGNS)


def _made_by_mock(reader: PythonNames, value: Node) -> bool:
    if value.type == "await":
        value = value.named_children[0] if value.named_children else value
    if value.type != "call":
        return False
    function = child(value, "function")
    if function is None:
        return False
    name = reader.text(function)
    if _MOCK_MAKER.search(name) or _APP_CLIENT.search(name):
        return True
    arguments = child(value, "arguments")
    given = arguments.named_children if arguments is not None else []
    if name in _BARE_CLIENT and not given:
        return True
    for a in given:
        keyword = reader.text(child(a, "name")) if a.type == "keyword_argument" else ""
        argument = child(a, "value") if keyword else None
        if keyword == "app" or (
            keyword == "transport"
            and argument is not None
            and _APP_TRANSPORT.match(reader.text(argument))
        ):
            return True
    return False


def _client_fixture(reader: PythonNames, root: Node) -> bool:
    """``def test_add(client): client.post(...)``: pytest's fixture of the app's test client."""
    name = reader.text(root)
    if name not in _CLIENT_FIXTURES:
        return False
    function = next((a for a in ancestors(root) if a.type == "function_definition"), None)
    if function is None or not reader.text(child(function, "name")).startswith("test"):
        return False
    parameters = child(function, "parameters")
    return parameters is not None and any(
        p.type == "identifier" and reader.text(p) == name for p in parameters.named_children
    )


def _bound_by_with(reader: PythonNames, root: Node) -> bool:
    """``with requests_mock.Mocker() as m:`` (or ``async with aioresponses() as m``) around the
    call: looked for among the call's enclosing statements, not through the whole file."""
    name = reader.text(root)
    for around in ancestors(root):
        if around.type != "with_statement":
            continue
        clause = next((c for c in around.named_children if c.type == "with_clause"), None)
        for item in clause.named_children if clause is not None else []:
            pattern = item.named_children[0] if item.named_children else None
            if pattern is None or pattern.type != "as_pattern" or not pattern.named_children:
                continue
            alias = child(pattern, "alias")
            if alias is not None and reader.text(alias).strip() == name:
                return _made_by_mock(reader, pattern.named_children[0])
    return False
