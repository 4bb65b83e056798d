"""A Python body or params map made by ``dict(name=n, ...)``: its keyword names are its keys,
checked as a literal's are, and whole only when nothing is merged into it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from tests.apicheck_bundle import build_apicheck_bundle

BASE = "https://acme.collibra.com/rest/2.0"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def test_a_dict_calls_keywords_are_the_keys_it_sends(engine: Engine) -> None:
    code = (
        "import requests\n"
        "def find(n):\n"
        f'    return requests.get("{BASE}/assets", params=dict(name=n, nameMatchmode="EXACT"))\n'
        "def create(n, d):\n"
        f'    return requests.post("{BASE}/assets", json=dict(name=n, domainId=d))\n'
    )
    found = engine.check_code(code, "python")
    assert [(f.line, f.check, f.fixes) for f in found] == [
        (2, "unknown-param", ("nameMatchMode",)),
        (4, "missing-required", ()),
    ]
    assert "'typeId'" in found[1].message and code.split("\n")[4][found[1].start] == "("


def test_a_dict_call_with_more_merged_in_is_not_whole(engine: Engine) -> None:
    code = (
        "import requests\n"
        "def create(n, **extra):\n"
        f'    return requests.post("{BASE}/assets", json=dict(name=n, **extra))\n'
        "def log_only(n):\n"
        "    note = dict(nme=n)\n"
        f'    return requests.get("{BASE}/assets", params={{"name": n}})\n'
    )
    assert engine.check_code(code, "python") == []
    code = code.replace("name=n, **extra", "name=n, domian=d")
    found = sorted(f.check for f in engine.check_code(code, "python"))
    assert found == ["missing-required", "unknown-param"]  # typeId; domian for domainId
