"""API checks as diagnostics through the real server (pytest-lsp, Neovim's capabilities) over the
bundle of tests/apicheck_bundle.py: severities as the docs give them, the doc link and the rule's
source, quick fixes, the ignore comment, and the settings that turn checks off or change them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.apicheck_bundle import build_apicheck_bundle
from tests.lsp_support import (
    open_document,
    server_env,
    start_client,
    stop_client,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CLIENT = """\
import requests

BASE = "https://acme.collibra.com/rest/2.0"


def find(name):
    \"\"\"Not DELETE /communities/{id}: use POST /communities/removalJobs instead.\"\"\"
    return requests.get(BASE + "/asset", params={"name": name})


def search(name):
    return requests.get(BASE + "/assets", params={"nameMatchMode": "EXACTLY", "limt": 5})


def remove(cid):
    requests.delete(f"{BASE}/communities/{cid}")
    return requests.post(f"{BASE}/assignments")


def roles():
    return requests.get(BASE + "/roles", params={"global": True})


def quiet():
    return requests.get(BASE + "/assets", params={"limt": 5})  # atlas: ignore[unknown-param]
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(
    tmp_path_factory: pytest.TempPathFactory, workdir: Path
) -> AsyncIterator[LanguageClient]:
    bundle = build_apicheck_bundle(tmp_path_factory.getbasetemp())
    lsp = await start_client(
        "neovim",
        ["--bundle", str(bundle)],
        server_env(workdir / "home"),
        root=workdir,
        init_options={"diagnostics": {"debounceMs": 50}},
    )
    yield lsp
    await stop_client(lsp)


def _covered(text: str, diag: types.Diagnostic) -> str:
    line = text.splitlines()[diag.range.start.line]
    return line[diag.range.start.character : diag.range.end.character]


async def _diagnose(
    client: LanguageClient, workdir: Path, name: str, text: str, language: str = "python"
) -> tuple[str, dict[str, types.Diagnostic]]:
    uri = (workdir / name).as_uri()
    client.diagnostics.pop(uri, None)
    open_document(client, uri, text, language)
    diags = await wait_until(lambda: client.diagnostics.get(uri))
    return uri, {f"{d.code}:{_covered(text, d)}": d for d in diags}


async def test_api_diagnostics_carry_severity_link_rule_and_tag(
    client: LanguageClient, workdir: Path
) -> None:
    _, found = await _diagnose(client, workdir, "client.py", CLIENT)
    assert sorted(found) == [
        "bad-value:EXACTLY",
        "deprecated:global",
        "deprecated:{BASE}/assignments",
        "deprecated:{BASE}/communities/{cid}",
        "unknown-endpoint:/asset",
        "unknown-param:limt",
    ], sorted(found)
    unknown = found["unknown-endpoint:/asset"]
    assert unknown.severity == types.DiagnosticSeverity.Error
    assert unknown.source == "atlas"
    assert (
        "did you mean /assets?" in unknown.message and "(Checked API (api.yaml))" in unknown.message
    )
    assert unknown.code_description is not None
    assert unknown.code_description.href.startswith("file://")
    assert found["unknown-param:limt"].severity == types.DiagnosticSeverity.Warning
    removed = found["deprecated:{BASE}/communities/{cid}"]
    assert removed.severity == types.DiagnosticSeverity.Warning  # the docs say it will be removed
    assert types.DiagnosticTag.Deprecated in (removed.tags or [])
    working = found["deprecated:{BASE}/assignments"]
    assert working.severity == types.DiagnosticSeverity.Information  # deprecated, still works
    assert types.DiagnosticTag.Deprecated in (working.tags or [])
    # A deprecated parameter that still works is struck through, a hint, not a listed problem.
    struck = found["deprecated:global"]
    assert struck.severity == types.DiagnosticSeverity.Hint
    assert types.DiagnosticTag.Deprecated in (struck.tags or [])


async def test_a_missing_key_is_shown_from_the_literals_opening_to_its_first_key(
    client: LanguageClient, workdir: Path
) -> None:
    text = (
        "import requests\n"
        "body = {\n"
        '    "name": "Orders",\n'
        "}\n"
        'requests.post("https://acme.collibra.com/rest/2.0/assets", json=body)\n'
    )
    uri = (workdir / "missing.py").as_uri()
    client.diagnostics.pop(uri, None)
    open_document(client, uri, text, "python")
    diags = await wait_until(lambda: client.diagnostics.get(uri))
    [missing] = [d for d in diags if d.code == "missing-required"]
    start, end = missing.range.start, missing.range.end
    assert (start.line, start.character) == (1, text.splitlines()[1].index("{"))
    assert (end.line, end.character) == (2, text.splitlines()[2].index("name") + len("name"))


async def _actions(
    client: LanguageClient, uri: str, diag: types.Diagnostic
) -> list[dict[str, Any]]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    return [a for a in result or [] if a.get("kind") == "quickfix"]


async def test_quick_fixes_write_the_documented_name_path_and_value(
    client: LanguageClient, workdir: Path
) -> None:
    uri, found = await _diagnose(client, workdir, "fixes.py", CLIENT)
    param = await _actions(client, uri, found["unknown-param:limt"])
    assert [a["title"] for a in param] == ["Atlas: change to 'limit'"]
    assert param[0]["edit"]["changes"][uri][0]["newText"] == "limit"
    value = await _actions(client, uri, found["bad-value:EXACTLY"])
    assert value[0]["title"] == "Atlas: change to 'EXACT'" and value[0]["isPreferred"] is True
    path = await _actions(client, uri, found["unknown-endpoint:/asset"])
    assert path[0]["edit"]["changes"][uri][0]["newText"] == "/assets"


async def test_settings_turn_checks_off_and_change_their_severity(
    client: LanguageClient, workdir: Path
) -> None:
    uri = (workdir / "settings.py").as_uri()
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"atlas": {"diagnostics": {"severity": {"unknown-endpoint": "hint"}}}}
        )
    )
    client.diagnostics.pop(uri, None)
    open_document(client, uri, CLIENT, "python")
    diags = await wait_until(
        lambda: [d for d in client.diagnostics.get(uri, []) if d.code == "unknown-endpoint"]
    )
    assert diags[0].severity == types.DiagnosticSeverity.Hint
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"atlas": {"diagnostics": {"api": False}}})
    )
    # Only the text-based deprecation scan is left, and CLIENT names no deprecated term.
    await wait_until(lambda: len(client.diagnostics.get(uri, [None])) == 0)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"atlas": {"diagnostics": {"api": True, "severity": {}}}}
        )
    )
    await wait_until(lambda: len(client.diagnostics.get(uri, [])) == 6)
    # A deprecated parameter is a hint unless the setting lists deprecations as problems.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"atlas": {"diagnostics": {"severity": {"deprecated": "information"}}}}
        )
    )
    information = types.DiagnosticSeverity.Information
    await wait_until(
        lambda: [
            d
            for d in client.diagnostics.get(uri, [])
            if d.code == "deprecated" and d.severity == information and "'global'" in d.message
        ]
    )
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"atlas": {"diagnostics": {"api": True, "severity": {}}}}
        )
    )
    hint = types.DiagnosticSeverity.Hint
    await wait_until(lambda: [d for d in client.diagnostics.get(uri, []) if d.severity == hint])


async def test_generated_client_calls_of_deprecated_operations_are_flagged_once(
    client: LanguageClient, workdir: Path
) -> None:
    # The operation ids are also deprecated terms of the docs: one diagnostic each, from the call
    # check, linking the bundle's copy of the spec page (it has no web URL).
    text = "old = api.removeCommunity(cid)\nlegacy = assignmentsApi.addAssignment(a)\n"
    uri = (workdir / "terms.js").as_uri()
    client.diagnostics.pop(uri, None)
    open_document(client, uri, text, "javascript")
    diags = await wait_until(lambda: client.diagnostics.get(uri))
    assert [(d.code, _covered(text, d)) for d in diags] == [
        ("deprecated", "removeCommunity"),
        ("deprecated", "addAssignment"),
    ]
    removed, working = diags
    assert removed.severity == types.DiagnosticSeverity.Warning  # "will be removed"
    assert removed.code_description is not None
    assert removed.code_description.href.startswith("file://")
    assert "DELETE /communities/{communityId}, which is deprecated" in removed.message
    assert working.severity == types.DiagnosticSeverity.Information
