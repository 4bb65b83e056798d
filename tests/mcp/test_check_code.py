"""`check_code` (issue 29, item 5): an agent checks the client code it wrote, every call in it,
through the MCP SDK client against `atlas-mcp` over the fixture bundle (tests/fixtures/corpus:
GET and POST /assets with an enum query parameter, a body with required properties)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp_client import McpClient, error_text, structured

BASE = "https://catalog.example.invalid/rest/2.0"

CODE = f"""import requests

BASE = "{BASE}"


def find(session, name):
    return session.get(BASE + "/assets", params={{"name": name, "nameMatchMode": "EXCAT"}})


def one(session, asset_id):
    return session.get(f"{{BASE}}/asset/{{asset_id}}")
"""


def check(client: McpClient, tools: dict[str, Any], **arguments: Any) -> dict[str, Any]:
    data = structured(client.call("check_code", arguments))
    jsonschema.validate(data, tools["check_code"].output_schema)
    return data


def test_listed_read_only_with_a_short_description(tools: dict[str, Any]) -> None:
    tool = tools["check_code"]
    assert tool.annotations.read_only_hint is True
    assert len(tool.description) <= len(tools["check_api_call"].description)
    assert set(tool.input_schema["required"]) == {"code", "language"}
    assert {"ok", "calls", "findings"} <= set(tool.output_schema["required"])


def test_every_call_of_the_code_is_checked_with_fixes_and_pages(
    client: McpClient, tools: dict[str, Any]
) -> None:
    result = client.call("check_code", {"code": CODE, "language": "py"})
    data = structured(result)
    jsonschema.validate(data, tools["check_code"].output_schema)
    assert data["ok"] is False and data["calls"] == 2
    found = {(f["line"], f["check"]): f for f in data["findings"]}
    assert set(found) == {(7, "bad-value"), (11, "unknown-endpoint")}
    value = found[(7, "bad-value")]
    assert value["fixes"][0] == "EXACT" and value["endpoint"] == "GET /assets"
    assert CODE.splitlines()[6][value["column"] - 1 :].startswith("EXCAT")
    assert value["href"] and "openapi.yaml" in value["rule"]
    endpoint = found[(11, "unknown-endpoint")]
    assert "did you mean /assets/{assetId}" in endpoint["message"]
    text = result.content[0].text
    assert text.startswith("2 call sites read: not ok, 2 findings")
    assert "- line 7:" in text and "fixes: EXACT" in text


def test_correct_code_is_ok_and_code_without_calls_says_nothing_was_checked(
    client: McpClient, tools: dict[str, Any]
) -> None:
    good = CODE.replace("EXCAT", "EXACT").replace("/asset/", "/assets/")
    assert check(client, tools, code=good, language="python") == {
        "ok": True,
        "calls": 2,
        "findings": [],
        "note": "",
    }
    empty = check(client, tools, code="print('hello')\n", language="python")
    assert empty["calls"] == 0 and "nothing was checked" in empty["note"]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"code": "x = 1", "language": "cobol"}, "pass one of python, javascript"),
        ({"code": "x = 1\n" * 40_000, "language": "python"}, "more than the 200,000 checked"),
    ],
)
def test_bad_input_is_a_one_line_tool_error(
    client: McpClient, arguments: dict[str, Any], expected: str
) -> None:
    text = error_text(client.call("check_code", arguments))
    assert expected in text and "\n" not in text and "Traceback" not in text


@pytest.mark.parametrize("arguments", [{"code": "x"}, {"code": 1, "language": "python"}])
def test_arguments_of_the_wrong_type_are_invalid_params(
    client: McpClient, arguments: dict[str, Any]
) -> None:
    with pytest.raises(MCPError) as raised:
        client.call("check_code", arguments)
    assert raised.value.code == -32602
