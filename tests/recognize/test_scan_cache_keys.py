"""A statement whose sites are keys of a call in another statement (a module-level dict a
function sends, a model class's fields) is read again on every scan of an edited document: its
keys change with the statement that sends them, not with its own text."""

from __future__ import annotations

from atlas_core.recognize.calls import CallReader

SENT = """\
import requests

BASE = "https://acme.collibra.com/rest/2.0"
PAYLOAD = {"name": "Customer", "domainID": "d"}


def add(session):
    return session.post(BASE + "/assets", json=PAYLOAD)
"""


def _keys(found: list) -> list[tuple[int, str, str, str]]:
    return [
        (i.line, i.site.method, i.site.role, i.site.name) for i in found if i.site.role == "body"
    ]


def test_keys_sent_from_another_statement_follow_an_edit_of_that_statement() -> None:
    reader = CallReader()
    first = reader.scan("file:///client.py", SENT, 1, "python")
    assert (3, "POST", "body", "domainID") in _keys(first)
    # Only the sending function changes: the dict's text, and its statement, stay the same.
    unsent = SENT.replace("json=PAYLOAD", "json=None")
    assert _keys(reader.scan("file:///client.py", unsent, 2, "python")) == []
    patched = SENT.replace("session.post(", "session.patch(").replace('"/assets"', '"/assets/a"')
    again = reader.scan("file:///client.py", patched, 3, "python")
    assert (3, "PATCH", "body", "domainID") in _keys(again)
