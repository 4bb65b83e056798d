"""The text editors behind `atlas setup`, over layouts users really have: the edited text must parse,
hold the entry, keep every other value, and (where the entry is new) keep every old character."""

from __future__ import annotations

import copy
import tomllib
from typing import Any

import pytest
import yaml

from atlas_core.errors import ConfigError
from atlas_ls.cli.clients import jsonc, toml_text, yaml_text

ENTRY = {"command": "/opt/atlas/bin/atlas-mcp", "args": ["--bundle", '/b with "quotes"']}


def kept(old: str, new: str) -> bool:
    chars = iter(new)
    return all(char in chars for char in old)


JSONC_LAYOUTS = [
    "{}",
    "{ }",
    "{\n}",
    '{"a":1}',
    '{"servers":{}}',
    '{"servers":{"x":1}}',
    '{\n  "servers": {\n    "x": 1 // why x\n  }\n}',
    '{\n  "servers": {\n    "x": 1, // trailing comma\n  },\n}',
    '{\n  "servers": {\n    "x": 1\n    /* last */\n  }\n}',
    '{"k\\"ey": 1, "a": 1 /* c */, "b": "//not a comment", "servers": {"atl\\"as": 2}}',
    '// top\n{\n\t"a": [1, 2, {"b": null}],\n\t/* x */\n}\n',
    '\ufeff{"a": 1}',
]


@pytest.mark.parametrize("text", JSONC_LAYOUTS)
def test_jsonc_insert_keeps_every_character(text: str) -> None:
    before = jsonc.parse(text, comments=True).value

    after = jsonc.set_entry(text, "servers", "atlas", ENTRY, comments=True)

    expected = copy.deepcopy(before)
    expected.setdefault("servers", {})["atlas"] = ENTRY
    assert jsonc.parse(after, comments=True).value == expected
    assert kept(text, after)


def test_jsonc_replace_touches_only_the_entry() -> None:
    text = '{\n  // mine\n  "servers": {\n    "atlas": {"command": "old"}, // note\n    "z": 2\n  }\n}\n'

    after = jsonc.set_entry(text, "servers", "atlas", ENTRY, comments=True)

    assert after.startswith('{\n  // mine\n  "servers": {\n    "atlas": {\n')
    assert after.endswith('}, // note\n    "z": 2\n  }\n}\n')
    assert jsonc.parse(after, comments=True).value["servers"] == {"atlas": ENTRY, "z": 2}


def test_strict_json_refuses_what_only_jsonc_allows() -> None:
    for text in ('{"a": 1,}', '{"a": 1 // c\n}'):
        with pytest.raises(ConfigError, match="not valid JSON"):
            jsonc.read(text, comments=False, where="f.json")
        assert jsonc.read(text, comments=True, where="f.json").value == {"a": 1}


TOML_LAYOUTS = [
    "",
    "a = 1",
    "[[arr]]\nx = 1\n# end\n",
    # a nested array line inside the atlas table's value is not a table header
    '[mcp_servers.atlas]\ncommand = "o"\nargs = [\n  [1, 2],\n  "x",\n]\n\n[b]\nc = 1\n',
    '[mcp_servers."atlas"] # hi\ncommand = "o"\ntimeout = 20\n\n[mcp_servers.atlas.env]\nA = "1"\n',
]


@pytest.mark.parametrize("text", TOML_LAYOUTS)
def test_toml_edit_keeps_the_other_tables(text: str) -> None:
    before = tomllib.loads(text)
    # As `atlas setup` does: keys the user set on the entry (timeout, env) stay.
    wanted = {**before.get("mcp_servers", {}).get("atlas", {}), **ENTRY}

    after = toml_text.set_entry(text, "mcp_servers", "atlas", wanted, where="c.toml")

    got = tomllib.loads(after)
    assert got["mcp_servers"].pop("atlas") == wanted
    before.get("mcp_servers", {}).pop("atlas", None)
    for data in (got, before):
        if data.get("mcp_servers") == {}:
            del data["mcp_servers"]
    assert got == before
    if "atlas" not in text:
        assert after.startswith(text)


YAML_LAYOUTS = [
    "",
    "---\nname: x\n",
    "mcpServers:\n  - name: a\n    command: b\n  # trailing\nmodels: []\n",
    "mcpServers: []\n",
    "mcpServers:\n- {name: atlas, command: o, env: {A: b}}\n",
    "mcpServers: ~\nx: 1\n",
    "mcpServers:\n  - plain\n",
]


@pytest.mark.parametrize("text", YAML_LAYOUTS)
def test_yaml_edit_keeps_the_other_items(text: str) -> None:
    entry: dict[str, Any] = {"name": "atlas", **ENTRY}
    before = yaml.safe_load(text) or {}

    after = yaml_text.set_entry(text, "mcpServers", entry, where="config.yaml")

    got = yaml.safe_load(after)
    assert entry in got["mcpServers"]
    others = [s for s in got["mcpServers"] if s != entry]
    old = [
        s
        for s in before.get("mcpServers") or []
        if not (isinstance(s, dict) and s.get("name") == "atlas")
    ]
    assert others == old
    assert {k: v for k, v in got.items() if k != "mcpServers"} == {
        k: v for k, v in before.items() if k != "mcpServers"
    } | ({"name": "Local Config", "version": "1.0.0", "schema": "v1"} if not before else {})
