"""The ``atlas`` settings section: every accepted shape, every bad value named, defaults kept."""

from __future__ import annotations

from typing import Any

import pytest

from atlas_ls.lsp.settings import Settings, parse_settings


@pytest.mark.parametrize(
    "raw",
    [
        {"atlas": {"workspaceSymbols": {"maxResults": 7}, "diagnostics": {"enabled": False}}},
        {"workspaceSymbols": {"maxResults": 7}, "diagnostics": {"enabled": False}},
        {"workspaceSymbols.maxResults": 7, "diagnostics.enabled": False},
        {"atlas.workspaceSymbols.maxResults": 7, "atlas.diagnostics.enabled": False},
    ],
    ids=["nested", "bare", "dotted", "dotted-with-section"],
)
def test_accepted_shapes(raw: dict[str, Any]) -> None:
    parsed = parse_settings(raw)
    assert parsed.problems == ()
    assert parsed.settings.max_symbol_results == 7
    assert parsed.settings.diagnostics_enabled is False


def test_defaults_when_nothing_is_given() -> None:
    for raw in (None, {}, {"atlas": {}}):
        parsed = parse_settings(raw)
        assert parsed.settings == Settings() and parsed.message() == ""
    assert Settings().max_symbol_results == 50


def test_every_key() -> None:
    parsed = parse_settings(
        {
            "atlas": {
                "bundle": ["/b/one", "/b/two"],
                "workspaceSymbols": {"maxResults": 1000},
                "recognizers": {"enabled": ["rest_path"]},
                "diagnostics": {"enabled": True, "debounceMs": 0},
                "serverPath": "/usr/local/bin/atlas-ls",  # the VS Code client's own key
            }
        }
    )
    s = parsed.settings
    assert parsed.problems == ()
    assert s.bundle == ("/b/one", "/b/two")
    assert s.max_symbol_results == 1000
    assert s.recognizers_enabled == frozenset({"rest_path"})
    assert s.diagnostics_debounce_ms == 0
    assert parse_settings({"bundle": "/b/x"}).settings.bundle == ("/b/x",)
    assert parse_settings({"bundle": ""}).settings.bundle == ()
    assert parse_settings({"recognizers": {"enabled": None}}).settings.recognizers_enabled is None


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"workspaceSymbols": {"maxResults": "lots"}}, "maxResults must be a whole number from 1 to 1000, got 'lots'"),
        ({"workspaceSymbols": {"maxResults": 0}}, "got 0"),
        ({"workspaceSymbols": {"maxResults": 2.5}}, "got 2.5"),
        ({"workspaceSymbols": {"maxResults": True}}, "got True"),
        ({"workspaceSymbols": {"maxResults": 5000}}, "got 5000"),
        ({"workspaceSymbols": 10}, "atlas.workspaceSymbols must be an object, got 10"),
        ({"diagnostics": {"enabled": "yes"}}, "atlas.diagnostics.enabled must be true or false, got 'yes'"),
        ({"diagnostics": {"debounceMs": -5}}, "debounceMs must be a whole number of milliseconds"),
        ({"diagnostics": []}, "atlas.diagnostics must be an object"),
        ({"recognizers": {"enabled": "rest_path"}}, "must be a list of recogniser names"),
        ({"recognizers": {"enabled": [1, 2]}}, "must be a list of recogniser names"),
        ({"bundle": 42}, "atlas.bundle must be a directory path or a list of paths, got 42"),
        ({"bundle": ["ok", 3]}, "atlas.bundle must be a directory path"),
        ({"atlas": "fast"}, "settings for 'atlas' must be an object, got 'fast'"),
        ("fast", "settings for 'atlas' must be an object, got 'fast'"),
    ],
)  # fmt: skip
def test_bad_values_are_named_and_replaced_by_defaults(raw: Any, fragment: str) -> None:
    parsed = parse_settings(raw)
    assert parsed.settings == Settings()
    assert fragment in parsed.message()
    assert parsed.message().startswith("Atlas: ignored bad settings")


def test_good_keys_survive_next_to_bad_ones() -> None:
    parsed = parse_settings(
        {"workspaceSymbols": {"maxResults": "x"}, "diagnostics": {"enabled": False}}
    )
    assert len(parsed.problems) == 1
    assert parsed.settings.max_symbol_results == 50
    assert parsed.settings.diagnostics_enabled is False


def test_layering_on_a_base() -> None:
    base = parse_settings({"bundle": "/from/init", "workspaceSymbols": {"maxResults": 9}}).settings
    layered = parse_settings({"diagnostics": {"enabled": False}}, base).settings
    assert layered.bundle == ("/from/init",) and layered.max_symbol_results == 9
    assert layered.diagnostics_enabled is False


def test_long_values_are_cut_in_messages() -> None:
    message = parse_settings({"bundle": 12345678901234567890**5}).message()
    assert "..." in message and len(message) < 250


def test_project_symbols_setting() -> None:
    assert parse_settings({}).settings.project_symbols is False
    on = parse_settings({"atlas": {"workspaceSymbols": {"project": True, "maxResults": 7}}})
    assert (on.settings.project_symbols, on.settings.max_symbol_results, on.problems) == (
        True,
        7,
        (),
    )
    dotted = parse_settings({"atlas.workspaceSymbols.project": True})
    assert dotted.settings.project_symbols is True
    bad = parse_settings({"atlas": {"workspaceSymbols": {"project": "yes", "maxResults": 7}}})
    assert bad.settings.project_symbols is False and bad.settings.max_symbol_results == 7
    assert "atlas.workspaceSymbols.project must be true or false" in bad.message()
