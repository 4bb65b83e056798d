"""The VS Code extension's settings (``editors/vscode/package.json``) against the settings the
server reads (``atlas_ls.lsp.settings``): every server setting is declared, with the server's
default, the per-check severities with the server's check and severity names as enums, and the
extension sends each one in its initializationOptions. A VS Code binary cannot run here, so the
manifest is checked as data and through the server's own parser."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from atlas_ls.lsp.settings import CHECK_NAMES, SEVERITY_NAMES, Settings, parse_settings

VSCODE = Path(__file__).resolve().parents[2] / "editors" / "vscode"

# Each field of the server's Settings and the VS Code key that sets it. A field added to the
# server without a key here (and in package.json) fails test_every_server_setting_is_declared.
SERVER_KEYS = {
    "bundle": "atlas.bundle",
    "max_symbol_results": "atlas.workspaceSymbols.maxResults",
    "project_symbols": "atlas.workspaceSymbols.project",
    "recognizers_enabled": "atlas.recognizers.enabled",
    "diagnostics_enabled": "atlas.diagnostics.enabled",
    "diagnostics_debounce_ms": "atlas.diagnostics.debounceMs",
    "api_checks_enabled": "atlas.diagnostics.api",
    "check_severity": "atlas.diagnostics.severity",
}
# Read by the extension itself, never sent to the server.
CLIENT_KEYS = {"atlas.serverPath", "atlas.trace.server"}


@pytest.fixture(scope="module")
def declared() -> dict[str, Any]:
    manifest = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    return manifest["contributes"]["configuration"]["properties"]


def test_every_server_setting_is_declared(declared: dict[str, Any]) -> None:
    assert set(SERVER_KEYS) == {f.name for f in fields(Settings)}
    assert set(declared) == set(SERVER_KEYS.values()) | CLIENT_KEYS


@pytest.mark.parametrize("key", sorted(SERVER_KEYS.values()))
def test_declared_defaults_are_the_servers(declared: dict[str, Any], key: str) -> None:
    # As VS Code sends it: the section's dotted key with the value the user has not changed.
    parsed = parse_settings({key: declared[key]["default"]})
    assert parsed.problems == ()
    assert parsed.settings == Settings()


@pytest.mark.parametrize("key", sorted(SERVER_KEYS.values()))
def test_the_server_reads_each_declared_key(declared: dict[str, Any], key: str) -> None:
    # The parser ignores keys it does not know; a complaint about a wrong type shows it read it.
    wrong = {"object": 1, "boolean": "yes", "integer": "many"}
    kind = declared[key]["type"]
    value = wrong.get(kind, True) if isinstance(kind, str) else {"not": "a path"}
    problems = parse_settings({key: value}).problems
    assert len(problems) == 1 and problems[0].startswith(key), problems


def test_severity_enums_are_the_servers_check_and_severity_names(
    declared: dict[str, Any],
) -> None:
    severity = declared["atlas.diagnostics.severity"]
    assert severity["type"] == "object"
    assert severity["additionalProperties"] is False  # VS Code flags a misspelt check
    checks = severity["properties"]
    assert list(checks) == list(CHECK_NAMES)
    for check, schema in checks.items():
        assert schema["type"] == "string"
        assert schema["enum"] == list(SEVERITY_NAMES), check
        for level in schema["enum"]:
            parsed = parse_settings({"atlas.diagnostics.severity": {check: level}})
            assert parsed.problems == ()
            assert parsed.settings.check_severity == ((check, level),)


def test_api_checks_switch_is_a_boolean_on_by_default(declared: dict[str, Any]) -> None:
    api = declared["atlas.diagnostics.api"]
    assert (api["type"], api["default"]) == ("boolean", True)
    assert "atlas: ignore[unknown-param]" in api["markdownDescription"]
    assert parse_settings({"atlas.diagnostics.api": False}).settings.api_checks_enabled is False


def test_the_extension_sends_every_server_setting() -> None:
    source = (VSCODE / "src" / "extension.ts").read_text(encoding="utf-8")
    for key in SERVER_KEYS.values():
        assert f'config.get("{key.removeprefix("atlas.")}")' in source, key
