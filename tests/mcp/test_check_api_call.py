"""`check_api_call` (issue 13, item 5): an agent checks the request it is about to write, through
the MCP SDK client against `atlas-mcp` over the fixture bundle (tests/fixtures/corpus: GET and
POST /assets with an enum query parameter and a body with required properties, the deprecated
GET /domains/{domainId}/vocabulary)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp_client import McpClient, error_text, structured


def check(client: McpClient, tools: dict[str, Any], **arguments: Any) -> dict[str, Any]:
    """The tool's structured answer, checked against the output schema it declares."""
    data = structured(client.call("check_api_call", arguments))
    jsonschema.validate(data, tools["check_api_call"].output_schema)
    return data


def only(data: dict[str, Any]) -> dict[str, Any]:
    assert len(data["findings"]) == 1, data["findings"]
    return data["findings"][0]


def test_listed_read_only_with_a_short_description(tools: dict[str, Any]) -> None:
    tool = tools["check_api_call"]
    assert tool.annotations.read_only_hint is True
    assert "before you write it" in tool.description
    # Every agent reads tools/list: the description stays as short as the other tools' are.
    assert len(tool.description) <= max(
        len(t.description) for n, t in tools.items() if n != tool.name
    )
    assert set(tool.input_schema["required"]) == {"method", "path"}
    assert {"endpoint", "ok", "findings"} <= set(tool.output_schema["required"])


@pytest.mark.parametrize(
    "path", ["/assets", "/rest/2.0/assets", "assets", "https://acme.collibra.com/rest/2.0/assets"]
)
def test_a_correct_request_is_ok_and_names_its_endpoint(
    client: McpClient, tools: dict[str, Any], path: str
) -> None:
    data = check(
        client, tools, method="get", path=path, params={"name": "Sales", "nameMatchMode": "EXACT"}
    )
    assert data == {"endpoint": "GET /assets", "ok": True, "findings": [], "note": ""}
    text = client.call("check_api_call", {"method": "GET", "path": path}).content[0].text
    assert text == "GET /assets: ok, no findings"


def test_a_path_with_ids_matches_its_template(client: McpClient, tools: dict[str, Any]) -> None:
    for path in ("/assets/{assetId}", "/rest/2.0/assets/0197a0f4-1b2c-7d3e-8f40-123456789abc"):
        data = check(client, tools, method="PATCH", path=path, body={"name": "Renamed"})
        assert (data["endpoint"], data["ok"], data["findings"]) == (
            "PATCH /assets/{assetId}",
            True,
            [],
        )


def test_an_unknown_endpoint_says_which_one_was_meant(
    client: McpClient, tools: dict[str, Any]
) -> None:
    result = client.call("check_api_call", {"method": "GET", "path": "/rest/2.0/asset"})
    data = structured(result)
    assert data["endpoint"] == "" and data["ok"] is False
    finding = only(data)
    assert (finding["check"], finding["severity"], finding["target"]) == (
        "unknown-endpoint",
        "error",
        "path",
    )
    assert "did you mean /assets?" in finding["message"]
    assert finding["href"].endswith("#find-assets") and "openapi.yaml" in finding["rule"]
    assert "error unknown-endpoint (path)" in result.content[0].text


def test_a_wrong_method_names_the_ones_the_path_takes(
    client: McpClient, tools: dict[str, Any]
) -> None:
    data = check(client, tools, method="DELETE", path="/assets")
    finding = only(data)
    assert data["endpoint"] == "" and data["ok"] is False
    assert (finding["check"], finding["target"]) == ("method-not-allowed", "method")
    assert finding["message"] == "/assets does not take DELETE; it takes GET, POST"


def test_an_unknown_query_parameter_gets_a_suggestion(
    client: McpClient, tools: dict[str, Any]
) -> None:
    data = check(client, tools, method="GET", path="/assets", params={"nameMatchMod": "EXACT"})
    finding = only(data)
    assert data["endpoint"] == "GET /assets" and data["ok"] is False
    assert (finding["check"], finding["severity"], finding["target"]) == (
        "unknown-param",
        "warning",
        "params.nameMatchMod",
    )
    assert finding["fixes"] == ["nameMatchMode"] and "did you mean" in finding["message"]


def test_a_query_string_in_the_path_is_checked_too(
    client: McpClient, tools: dict[str, Any]
) -> None:
    data = check(client, tools, method="GET", path="/assets?nameMatchMode=EXACTLY&name=x")
    finding = only(data)
    assert (finding["check"], finding["target"]) == ("bad-value", "params.nameMatchMode")


def test_a_value_outside_the_enum_lists_the_allowed_ones(
    client: McpClient, tools: dict[str, Any]
) -> None:
    data = check(client, tools, method="GET", path="/assets", params={"nameMatchMode": "EXACTLY"})
    finding = only(data)
    assert data["ok"] is False
    assert (finding["check"], finding["target"]) == ("bad-value", "params.nameMatchMode")
    assert finding["fixes"][0] == "EXACT"
    assert set(finding["fixes"]) == {"EXACT", "START", "END", "ANYWHERE"}


def test_a_missing_required_body_property_is_named(
    client: McpClient, tools: dict[str, Any]
) -> None:
    data = check(client, tools, method="POST", path="/assets", body={"name": "x", "domainId": "d"})
    finding = only(data)
    assert data["endpoint"] == "POST /assets" and data["ok"] is False
    assert (finding["check"], finding["target"]) == ("missing-required", "body")
    assert "'typeId'" in finding["message"] and "'name'" not in finding["message"]
    # A bulk body: each object is checked.
    bulk = check(client, tools, method="POST", path="/assets", body=[{"name": "a"}])
    assert "'domainId', 'typeId'" in only(bulk)["message"]
    whole = {"name": "x", "domainId": "d", "typeId": "t"}
    assert check(client, tools, method="POST", path="/assets", body=whole)["ok"] is True


def test_a_deprecated_operation_is_flagged_but_still_ok(
    client: McpClient, tools: dict[str, Any]
) -> None:
    data = check(client, tools, method="GET", path="/rest/2.0/domains/123/vocabulary")
    finding = only(data)
    assert data["endpoint"] == "GET /domains/{domainId}/vocabulary"
    assert data["ok"] is True  # deprecated, not removed: it still works
    assert (finding["check"], finding["severity"], finding["deprecated"]) == (
        "deprecated",
        "information",
        True,
    )
    assert "use getDomain" in finding["message"]


def test_another_services_url_is_not_checked(client: McpClient, tools: dict[str, Any]) -> None:
    data = check(client, tools, method="GET", path="https://api.example.com/v1/users")
    assert (
        data["endpoint"] == "" and data["findings"] == [] and "nothing was checked" in data["note"]
    )


BAD_INPUT = [
    ({"method": "", "path": "/assets"}, "method is empty"),
    (
        {"method": "FETCH", "path": "/assets"},
        "'FETCH' is not an HTTP method (hint: pass one of GET, POST",
    ),
    ({"method": "GET\nHost: x", "path": "/assets"}, "is not an HTTP method"),
    ({"method": "GET", "path": "  "}, "path is empty"),
    ({"method": "GET", "path": "/assets\x00/x"}, "control character"),
    ({"method": "GET", "path": "/assets\r\nX-Evil: 1"}, "control character"),
    ({"method": "GET", "path": "/" + "a" * 5000}, "longer than 1000 characters"),
    ({"method": "GET", "path": "/assets", "params": {"na\x00me": "x"}}, "params key"),
    ({"method": "POST", "path": "/assets", "body": [{"\x1b[31m": 1}]}, "body key"),
    ({"method": "POST", "path": "/assets", "body": {"name": "x" * 200_000}}, "more than the"),
]


@pytest.mark.parametrize(("arguments", "expected"), BAD_INPUT)
def test_bad_input_is_a_one_line_tool_error(
    client: McpClient, arguments: dict[str, Any], expected: str
) -> None:
    text = error_text(client.call("check_api_call", arguments))
    assert expected in text and "\n" not in text and "Traceback" not in text


@pytest.mark.parametrize(
    "arguments",
    [
        {"path": "/assets"},
        {"method": "GET"},
        {"method": 1, "path": "/assets"},
        {"method": "GET", "path": "/assets", "params": "name=x"},
        {"method": "GET", "path": "/assets", "params": ["name"]},
        {"method": "POST", "path": "/assets", "body": "name=x"},
        {"method": "POST", "path": "/assets", "body": 3},
    ],
)
def test_arguments_of_the_wrong_type_are_invalid_params(
    client: McpClient, arguments: dict[str, Any]
) -> None:
    with pytest.raises(MCPError) as raised:
        client.call("check_api_call", arguments)
    assert raised.value.code == -32602
    assert "check_api_call" in str(raised.value) and "\n" not in str(raised.value)


def test_deep_or_odd_json_never_breaks_the_server(client: McpClient, tools: dict[str, Any]) -> None:
    nested: Any = "leaf"
    for _ in range(150):
        nested = {"a": nested}
    data = check(client, tools, method="POST", path="/assets", body={"name": nested})
    assert data["endpoint"] == "POST /assets"
    odd = check(
        client,
        tools,
        method="GET",
        path="/assets",
        params={"nameMatchMode": ["EXACT", None], "limit": 10, "": "x"},
    )
    assert odd["endpoint"] == "GET /assets"
    # The server still answers.
    assert check(client, tools, method="GET", path="/assets")["ok"] is True
