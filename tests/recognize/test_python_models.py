"""Python bodies and params made from a model class (pydantic ``model_dump()``/``.dict()``,
``dataclasses.asdict``): the keys are the class's fields, checked where each is declared, and
said nothing of where the class's keys cannot be known."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas_core.engine import Engine
from atlas_core.types import ApiFinding
from tests.apicheck_bundle import build_apicheck_bundle

BASE = "https://acme.collibra.com/rest/2.0"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with Engine.open(build_apicheck_bundle(tmp_path_factory.getbasetemp())) as opened:
        yield opened


def _found(engine: Engine, code: str) -> list[tuple[int, str, str]]:
    lines = code.split("\n")
    return [(f.line, f.check, _covered(lines, f)) for f in engine.check_code(code, "python")]


def _covered(lines: list[str], finding: ApiFinding) -> str:
    return lines[finding.line][finding.start : finding.end]


def test_a_dumped_models_fields_are_the_bodys_keys(engine: Engine) -> None:
    code = (
        "import requests\n"
        "from pydantic import BaseModel\n"
        "\n"
        "class NewAsset(BaseModel):\n"
        "    name: str\n"
        "    domain: str\n"
        "\n"
        "def create(req: NewAsset):\n"
        f'    return requests.post("{BASE}/assets", json=req.model_dump())\n'
    )
    assert _found(engine, code) == [
        (4, "missing-required", "name"),  # no typeId among the fields: all of them are in view
        (5, "unknown-param", "domain"),
    ]


def test_a_dataclass_made_and_sent_with_asdict(engine: Engine) -> None:
    code = (
        "import requests\n"
        "from dataclasses import dataclass, asdict\n"
        "\n"
        "@dataclass\n"
        "class NewAsset:\n"
        "    name: str\n"
        "    domainID: str\n"
        "    typeId: str\n"
        "\n"
        "def create(n, d, t):\n"
        "    item = NewAsset(n, d, t)\n"
        f'    return requests.post("{BASE}/assets", json=asdict(item))\n'
    )
    found = engine.check_code(code, "python")
    assert [(f.line, f.check, f.fixes) for f in found] == [(6, "unknown-param", ("domainId",))]


def test_aliases_are_the_keys_only_when_the_dump_asks_for_them(engine: Engine) -> None:
    model = (
        "import requests\n"
        "from pydantic import BaseModel, Field\n"
        "\n"
        "class NewAsset(BaseModel):\n"
        "    name: str\n"
        '    domain_id: str = Field(alias="domainId")\n'
        '    type_id: str = Field(alias="typeID")\n'
        "\n"
        "def create(a: NewAsset):\n"
    )
    by_alias = model + f'    requests.post("{BASE}/assets", json=a.model_dump(by_alias=True))\n'
    assert _found(engine, by_alias) == [(6, "unknown-param", "typeID")]
    by_name = model + f'    requests.post("{BASE}/assets", json=a.dict())\n'
    # each misspelt key offers the required name, so neither is reported missing again
    assert _found(engine, by_name) == [
        (5, "unknown-param", "domain_id"),
        (6, "unknown-param", "type_id"),
    ]


def test_a_model_whose_keys_cannot_be_known_says_nothing(engine: Engine) -> None:
    call = f'requests.post("{BASE}/assets", json=a.model_dump(by_alias=True))\n'
    generated = (
        "class NewAsset(BaseModel):\n"
        "    model_config = ConfigDict(alias_generator=to_camel)\n"
        "    domain_id: str\n"
    )
    unknown_base = "class NewAsset(Shared):\n    domain: str\n"
    picked = "class NewAsset(BaseModel):\n    domain: str\n"
    for model, dump in (
        (generated, call),
        (unknown_base, call),
        (picked, call.replace("by_alias=True", 'exclude={"domain"}')),
    ):
        code = f"import requests\n{model}\ndef create(a: NewAsset):\n    {dump}"
        assert engine.check_code(code, "python") == [], model
    # the same model dumped whole: its field is a key
    plain = call.replace("by_alias=True", "")
    code = f"import requests\n{picked}\ndef create(a: NewAsset):\n    {plain}"
    found = sorted(f.check for f in engine.check_code(code, "python"))
    assert found == ["missing-required", "unknown-param"]
    # sent to two calls: whose keys they are is not one answer
    code = (
        "import requests\n"
        f"{picked}\n"
        "def a(m: NewAsset):\n"
        f'    requests.post("{BASE}/assets", json=m.model_dump())\n'
        "def b(m: NewAsset):\n"
        f'    requests.post("{BASE}/communities", json=m.model_dump())\n'
    )
    assert engine.check_code(code, "python") == []


def test_a_dump_changed_before_it_is_sent_is_not_complete(engine: Engine) -> None:
    model = (
        "import requests\n"
        "from pydantic import BaseModel\n"
        "\n"
        "class Named(BaseModel):\n"
        "    name: str\n"
        "\n"
        "class NewAsset(Named):\n"
        "    domainId: str\n"
        "\n"
    )
    changed = model + (
        "def create(req: NewAsset, t):\n"
        "    body = req.model_dump()\n"
        '    body["typeId"] = t\n'
        f'    return requests.post("{BASE}/assets", json=body)\n'
    )
    assert engine.check_code(changed, "python") == []
    # sent as dumped: its fields (a base's of the document included) are all the keys
    whole = model + (
        "def create(req: NewAsset):\n"
        f'    return requests.post("{BASE}/assets", json=req.model_dump())\n'
    )
    [missing] = engine.check_code(whole, "python")
    assert (missing.line, missing.check) == (7, "missing-required")
    assert "'typeId'" in missing.message and "'name'" not in missing.message
