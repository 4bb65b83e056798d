"""Ansible's ``uri`` tasks in a playbook (YAML) read as requests: the task's URL with its
``method:`` (GET when none), Jinja's ``{{ var }}`` an unknown part; other YAML reads nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.recognize.calls.scan import scan_calls
from tests.apicheck_bundle import build_apicheck_bundle

PLAYBOOK = """\
- hosts: localhost
  tasks:
    - name: Find the asset
      ansible.builtin.uri:
        url: "{{ collibra_url }}/rest/2.0/assets?name={{ asset }}&limt=5"
        user: "{{ user }}"
        force_basic_auth: true
      register: found

    - name: Add it
      uri:
        url: https://{{ collibra_host }}/rest/2.0/assets
        method: POST  # the JSON body follows
        body_format: json

    - name: Not an API call
      copy:
        dest: /tmp/url: "/rest/2.0/assets"
    - name: Another service
      uri:
        url: "https://tracker.example.org/api/issues?limt=5"
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_uri_tasks_are_requests_with_their_method(engine: Engine) -> None:
    found = [
        (i.line, i.site.method, i.site.role, i.site.name) for i in scan_calls(PLAYBOOK, "yaml")
    ]
    assert found == [
        (4, "GET", "endpoint", ""),
        (4, "GET", "query", "name"),
        (4, "GET", "query", "limt"),
        (11, "POST", "endpoint", ""),
        (20, "GET", "endpoint", ""),  # read, and not judged: another service's host
        (20, "GET", "query", "limt"),
    ]
    # The URL keeps its own columns: a finding sits on the key as written.
    line = PLAYBOOK.splitlines()[4]
    [finding] = engine.check_code(PLAYBOOK, "ansible")  # the Ansible extension's language id
    assert (finding.line, finding.check, line[finding.start : finding.end]) == (
        4,
        "unknown-param",
        "limt",
    )


def test_yaml_without_uri_tasks_reads_nothing() -> None:
    config = 'openapi: 3.0.0\npaths:\n  /rest/2.0/assets:\n    get:\n      summary: "GET /rest/2.0/assets"\n'
    assert scan_calls(config, "yaml") == []
    assert scan_calls("uri:\n" * 100_000, "yaml") == []  # no task URL: nothing, quickly
