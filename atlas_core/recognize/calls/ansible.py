"""Ansible's ``uri`` module in a playbook or role (YAML): each task's ``url:`` with its
``method:`` (GET when none is given), read as a request line on the URL's own line and columns.
Jinja's ``{{ var }}`` in the URL is an unknown part. A YAML file with no ``uri`` task gives none."""

from __future__ import annotations

import re

# A task's module key: `uri:`, `ansible.builtin.uri:` (perhaps after a list dash).
_MODULE = re.compile(
    r"^(?P<indent>[ \t]*(?:-[ \t]+)?)(?:ansible\.(?:builtin|legacy)\.)?uri:[ \t]*$"
)
_URL = re.compile(
    r"""^[ \t]+url:[ \t]*(?P<q>["']?)(?P<url>[^"'\s#][^"'#]*?)(?P=q)[ \t]*(?:#.*)?$"""
)
_METHOD = re.compile(r"""^[ \t]+method:[ \t]*["']?(?P<m>[A-Za-z]+)["']?[ \t]*(?:#.*)?$""")
_JINJA = re.compile(r"\{\{[^{}]*\}\}")
_VERBS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"})
MAX_CHARS = 4_000_000
MAX_TASK_LINES = 200  # lines of one task's options looked at


def ansible_lines(text: str) -> list[tuple[int, str]]:
    """Each ``uri`` task as a request line (``GET {{_host_}}/rest/2.0/assets``) on the line of
    its URL, the URL in its own columns; [] for a file with no ``uri`` task."""
    if len(text) > MAX_CHARS or "uri:" not in text:
        return []
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    for number, content in enumerate(lines):
        module = _MODULE.match(content)
        if module is None:
            continue
        depth = len(module.group("indent"))
        url_at, url, method = -1, None, "GET"
        for below in range(number + 1, min(len(lines), number + 1 + MAX_TASK_LINES)):
            line = lines[below]
            if line.strip() and len(line) - len(line.lstrip()) <= depth:
                break  # the module's options end where the indentation does
            found = _URL.match(line)
            if found is not None:
                url_at, url = below, found
            given = _METHOD.match(line)
            if given is not None:
                method = given.group("m").upper()
        if url is None or method not in _VERBS:
            continue
        start = url.start("url")
        written = _JINJA.sub(
            lambda m: "{{" + re.sub(r"\W", "_", m.group()[2:-2]) + "}}", url.group("url")
        )
        pad = start - len(method) - 1
        if pad >= 0:
            out.append((url_at, " " * pad + method + " " + written))
    return out
