"""The ``atlas`` settings section: parsing and validation.

Settings arrive from initializationOptions and from workspace/configuration (section ``atlas``),
either nested (``{"atlas": {"workspaceSymbols": {"maxResults": 20}}}``), as the bare section, or
with dotted keys as VS Code writes them (``{"workspaceSymbols.maxResults": 20}``). A bad value
never stops the server: it is replaced by its default and reported in one message that names the
key, what was wrong and what to write instead.
"""

from __future__ import annotations

import asyncio
import logging
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from atlas_ls.lsp import handlers

if TYPE_CHECKING:
    from atlas_ls.lsp.server import AtlasLanguageServer

logger = logging.getLogger(__name__)

SECTION = "atlas"
MAX_SYMBOL_RESULTS = 1000
DEFAULT_SYMBOL_RESULTS = 50
DEFAULT_DEBOUNCE_MS = 300
CONFIGURATION_TIMEOUT_S = 10
# No setting is nested deeper than atlas.workspaceSymbols.maxResults; objects far deeper than that
# are a client's mistake (or an attack on the recursion limit) and are not descended into.
MAX_SETTINGS_DEPTH = 8


@dataclass(frozen=True, slots=True)
class Settings:
    bundle: tuple[str, ...] = ()  # empty: the server's --bundle, then the default resolution
    max_symbol_results: int = DEFAULT_SYMBOL_RESULTS
    project_symbols: bool = False  # atlas.workspaceSymbols.project: the project index's too
    recognizers_enabled: frozenset[str] | None = None  # None: every recogniser
    diagnostics_enabled: bool = True
    diagnostics_debounce_ms: int = DEFAULT_DEBOUNCE_MS
    api_checks_enabled: bool = True  # atlas.diagnostics.api
    # atlas.diagnostics.severity: a check's name -> "error" | "warning" | "information" | "hint"
    # | "off"; checks not named keep the severity the docs give them.
    check_severity: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedSettings:
    settings: Settings
    problems: tuple[str, ...] = field(default=())

    def message(self) -> str:
        """One line for window/showMessage, or "" when every key was fine."""
        if not self.problems:
            return ""
        return "Atlas: ignored bad settings, using defaults for them: " + "; ".join(self.problems)


def _unflatten(raw: Mapping[str, Any], depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if depth > MAX_SETTINGS_DEPTH:
        return out
    for key, value in raw.items():
        if not isinstance(key, str):
            continue
        node = out
        *parents, last = key.split(".")
        for part in parents:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {}
                node[part] = child
            node = child
        if isinstance(value, Mapping) and isinstance(node.get(last), dict):
            node[last].update(_unflatten(value, depth + 1))
        elif isinstance(value, Mapping):
            node[last] = _unflatten(value, depth + 1)
        else:
            node[last] = value
    return out


def section_of(raw: Any) -> dict[str, Any] | None:
    """The ``atlas`` section of a settings object, whichever of the accepted shapes it has.

    None means "no settings given"; a value that is not an object is returned as an empty section
    so `parse_settings` can complain about it.
    """
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        return {"": raw}
    data = _unflatten(raw)
    if SECTION in data:
        inner = data[SECTION]
        return inner if isinstance(inner, dict) else {"": inner}
    # Dotted top-level keys such as "atlas.bundle" were unflattened into data["atlas"] above.
    return data


def parse_settings(raw: Any, base: Settings | None = None) -> ParsedSettings:
    """Validate a settings object on top of `base` (defaults when None)."""
    settings = base or Settings()
    section = section_of(raw)
    if section is None:
        return ParsedSettings(settings)
    problems: list[str] = []
    if "" in section:
        problems.append(f"settings for '{SECTION}' must be an object, got {_show(section[''])}")
        return ParsedSettings(settings, tuple(problems))

    if "bundle" in section:
        value = section["bundle"]
        if value is None or value == "" or value == []:
            settings = replace(settings, bundle=())
        elif isinstance(value, str):
            settings = replace(settings, bundle=(value,))
        elif isinstance(value, list) and all(isinstance(v, str) and v for v in value):
            settings = replace(settings, bundle=tuple(value))
        else:
            problems.append(
                f"atlas.bundle must be a directory path or a list of paths, got {_show(value)}"
            )

    symbols = section.get("workspaceSymbols")
    if symbols is not None:
        if not isinstance(symbols, dict):
            problems.append(f"atlas.workspaceSymbols must be an object, got {_show(symbols)}")
        elif "project" in symbols and not isinstance(symbols["project"], bool):
            problems.append(
                f"atlas.workspaceSymbols.project must be true or false, got "
                f"{_show(symbols['project'])}"
            )
        elif "project" in symbols:
            settings = replace(settings, project_symbols=symbols["project"])
        if isinstance(symbols, dict) and "maxResults" in symbols:
            value = symbols["maxResults"]
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 1 <= value <= MAX_SYMBOL_RESULTS  # also refuses NaN, before int() can fail
                or int(value) != value
            ):
                problems.append(
                    "atlas.workspaceSymbols.maxResults must be a whole number from 1 to "
                    f"{MAX_SYMBOL_RESULTS}, got {_show(value)}"
                )
            else:
                settings = replace(settings, max_symbol_results=int(value))

    recognizers = section.get("recognizers")
    if recognizers is not None:
        if not isinstance(recognizers, dict):
            problems.append(f"atlas.recognizers must be an object, got {_show(recognizers)}")
        elif "enabled" in recognizers:
            value = recognizers["enabled"]
            if value is None:
                settings = replace(settings, recognizers_enabled=None)
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                settings = replace(settings, recognizers_enabled=frozenset(value))
            else:
                problems.append(
                    "atlas.recognizers.enabled must be a list of recogniser names (or null for "
                    f"all), got {_show(value)}"
                )

    diagnostics = section.get("diagnostics")
    if diagnostics is not None:
        if not isinstance(diagnostics, dict):
            problems.append(f"atlas.diagnostics must be an object, got {_show(diagnostics)}")
        else:
            if "enabled" in diagnostics:
                value = diagnostics["enabled"]
                if isinstance(value, bool):
                    settings = replace(settings, diagnostics_enabled=value)
                else:
                    problems.append(
                        f"atlas.diagnostics.enabled must be true or false, got {_show(value)}"
                    )
            if "api" in diagnostics:
                value = diagnostics["api"]
                if isinstance(value, bool):
                    settings = replace(settings, api_checks_enabled=value)
                else:
                    problems.append(
                        f"atlas.diagnostics.api must be true or false, got {_show(value)}"
                    )
            if "severity" in diagnostics:
                value = diagnostics["severity"]
                severities, wrong = _severities(value)
                if wrong:
                    problems.append(wrong)
                else:
                    settings = replace(settings, check_severity=severities)
            if "debounceMs" in diagnostics:
                value = diagnostics["debounceMs"]
                if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000:
                    settings = replace(settings, diagnostics_debounce_ms=value)
                else:
                    problems.append(
                        "atlas.diagnostics.debounceMs must be a whole number of milliseconds "
                        f"from 0 to 10000, got {_show(value)}"
                    )
    return ParsedSettings(settings, tuple(problems))


# Checks a severity can be set for: the API checks and the deprecated-term scan.
CHECK_NAMES = (
    "unknown-endpoint",
    "method-not-allowed",
    "unknown-param",
    "missing-required",
    "bad-value",
    "deprecated",
)
SEVERITY_NAMES = ("error", "warning", "information", "hint", "off")


def _severities(value: Any) -> tuple[tuple[tuple[str, str], ...], str]:
    """atlas.diagnostics.severity as (check, severity) pairs, or the problem with it."""
    if not isinstance(value, dict):
        return (), f"atlas.diagnostics.severity must be an object, got {_show(value)}"
    pairs = []
    for check, level in value.items():
        if check not in CHECK_NAMES:
            return (), (
                f"atlas.diagnostics.severity has no check {_show(check)}; checks: "
                + ", ".join(CHECK_NAMES)
            )
        if level not in SEVERITY_NAMES:
            return (), (
                f"atlas.diagnostics.severity.{check} must be one of "
                f"{', '.join(SEVERITY_NAMES)}, got {_show(level)}"
            )
        pairs.append((check, level))
    return tuple(sorted(pairs)), ""


_SHOW = reprlib.Repr()
_SHOW.maxlevel = 2  # a value nested 10,000 deep is shown in a few characters, without recursing
_SHOW.maxstring = 60


def _show(value: Any) -> str:
    text = _SHOW.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --- in the server --------------------------------------------------------------------------


def register(server: AtlasLanguageServer) -> None:
    @handlers.notification(server, types.WORKSPACE_DID_CHANGE_CONFIGURATION, "settings")
    async def on_config(
        ls: AtlasLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and settings.get(SECTION) is not None:
            apply(ls, {SECTION: settings[SECTION]})
        else:  # a client that sends no settings here wants to be asked (the LSP's pull model)
            await pull(ls)


def initialize(ls: AtlasLanguageServer, options: Any) -> None:
    """Take the settings in initializationOptions; they are the base of every later change, and
    their problems are shown once the client can show them."""
    parsed = parse_settings(options)
    ls.init_settings = parsed.settings
    ls.init_problems = parsed.message()
    ls.settings = Settings()
    install(ls, parsed.settings)


def apply(ls: AtlasLanguageServer, raw: Any) -> None:
    """Settings from the client, on top of those from initializationOptions."""
    parsed = parse_settings(raw, ls.init_settings)
    if parsed.problems:
        ls.messages.show(types.MessageType.Warning, parsed.message())
    install(ls, parsed.settings)


def install(ls: AtlasLanguageServer, settings: Settings) -> None:
    """Serve with `settings`: the recognisers they enable, the bundle they name, diagnostics on
    or off."""
    old, ls.settings = ls.settings, settings
    enabled = settings.recognizers_enabled
    if enabled is not None:
        unknown = sorted(enabled - set(ls.recognizers.names))
        if unknown:
            ls.messages.show(
                types.MessageType.Warning,
                f"Atlas: unknown recognisers in atlas.recognizers.enabled: {', '.join(unknown)}"
                f"; known: {', '.join(ls.recognizers.names)}",
            )
    ls.recognizers.enabled = enabled
    if old.bundle != settings.bundle:
        ls.bundles.request()
    if (
        old.diagnostics_enabled,
        old.api_checks_enabled,
        old.check_severity,
    ) != (settings.diagnostics_enabled, settings.api_checks_enabled, settings.check_severity):
        ls.diagnostics.refresh_all()


async def pull(ls: AtlasLanguageServer) -> None:
    """Ask the client for the ``atlas`` section (workspace/configuration), when it can answer."""
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return
    try:
        result = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            ),
            CONFIGURATION_TIMEOUT_S,
        )
    except (TimeoutError, JsonRpcException) as exc:  # no answer, or an error for one
        logger.info("workspace/configuration failed: %s", exc)
        return
    value = result[0] if isinstance(result, list | tuple) and result else None
    if value is not None:
        apply(ls, {SECTION: value})
