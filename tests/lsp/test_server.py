"""The language server end to end: pytest-lsp drives ``python -m atlas_ls`` as a subprocess, once
with Neovim's captured client capabilities and once with VS Code's, over two fixture bundles."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp_support import (
    CLIENTS,
    ONE_CLIENT,
    first_file_link,
    hover_text,
    mirror_line,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def bundles(hash_bundle: Path, lsp_bundle: Path) -> tuple[Path, Path]:
    return hash_bundle, lsp_bundle


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CLIENTS)
async def client(
    request: pytest.FixtureRequest, bundles: tuple[Path, Path], workdir: Path
) -> AsyncIterator[LanguageClient]:
    args = ["--bundle", str(bundles[0]), "--bundle", str(bundles[1])]
    lsp = await start_client(request.param, args, server_env(workdir / "home"), root=workdir)
    yield lsp
    await stop_client(lsp)


def _uri(workdir: Path, name: str) -> str:
    return (workdir / name).as_uri()


# Each case: language id, file name, text, the text to hover (cursor one character in), and what
# the hover must say.
SPELLINGS = [
    ("python", "fstring.py", 'r = requests.get(f"{base}/rest/2.0/assets/{asset_id}")\n', "assets/{asset_id}", "**GET** `/assets/{assetId}`"),
    ("python", "camel.py", "page = api.findAssets(name='x')\n", "findAssets", "`findAssets`"),
    ("python", "snake.py", "page = assets_api.find_assets(limit=5)\n", "find_assets", "findAssets"),
    ("python", "dict.py", 'cmd = {"resourceType": "Asset", "continueOnError": True}\n', "resourceType", "`resourceType` — *Import API JSON key*"),
    ("java", "Bean.java", 'Asset a = assetApi.addAsset(AddAssetRequest.builder().name("x").build());\n', "assetApi", "`AssetApi`"),
    ("java", "Call.java", 'Asset a = assetApi.addAsset(AddAssetRequest.builder().name("x").build());\n', "addAsset(", "`addAsset`"),
    ("java", "Type.java", 'Asset a = assetApi.addAsset(AddAssetRequest.builder().name("x").build());\n', "AddAssetRequest", "`AddAssetRequest`"),
    ("groovy", "script.groovy", "def asset = assetApi.getAsset(item.id)\n", "getAsset", "getAsset"),
    ("kotlin", "Client.kt", 'val r = http.get("$base/rest/2.0/assets/$assetId")\n', "assets/$assetId", "**GET** `/assets/{assetId}`"),
    ("kotlin", "Build.kt", "val req = AddAssetRequest.builder()\n", "AddAssetRequest", "`AddAssetRequest`"),
    ("javascript", "app.js", "const r = await fetch(`${base}/assets/${id}`, { method: 'PATCH' });\n", "assets/${id}", "**PATCH** `/assets/{assetId}`"),
    ("typescript", "bulk.ts", 'const url: string = "/assets/bulk";\n', "assets/bulk", "`/assets/bulk`"),
    ("typescript", "call.ts", "const page = await api.findAssets({ limit: 5 });\n", "findAssets", "`findAssets`"),
    ("json", "import.json", '[{"resourceType": "Asset", "continueOnError": true}]\n', "continueOnError", "`continueOnError` — *Import API JSON key*"),
    ("json", "value.json", '[{"resourceType": "Asset"}]\n', '"Asset"', "`Asset`"),
    ("yaml", "import.yaml", "- resourceType: Asset\n  continueOnError: true\n", "resourceType", "`resourceType`"),
    ("shellscript", "sync.sh", "#!/bin/sh\nlineage-harvester full-sync --config h.yaml\n", "full-sync", "`lineage-harvester full-sync` — *CLI command*"),
    ("shellscript", "patch.sh", 'curl -X PATCH "$BASE/rest/2.0/assets/$ASSET_ID" -d @body.json\n', "assets/$ASSET", "**PATCH** `/assets/{assetId}`"),
    ("markdown", "notes.md", "Call `GET /rest/2.0/assets/{assetId}` first.\n", "assets/{assetId}", "**GET** `/assets/{assetId}`"),
    ("markdown", "beans.md", "Workflow scripts get the `AssetApi` bean.\n", "AssetApi", "`AssetApi`"),
    ("graphql", "query.graphql", "query {\n  assetsOfDomain(domainId: $d) {\n    fullName\n  }\n}\n", "assetsOfDomain", "`assetsOfDomain` — *GraphQL*"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("language", "name", "text", "target", "expected"),
    SPELLINGS,
    ids=[f"{c[0]}-{c[3]}" for c in SPELLINGS],
)
async def test_hover_recognises_every_spelling(
    client: LanguageClient,
    workdir: Path,
    language: str,
    name: str,
    text: str,
    target: str,
    expected: str,
) -> None:
    uri = _uri(workdir, name)
    open_document(client, uri, text, language)
    position = position_of(text, target)
    value = await hover_text(client, uri, position)
    assert value is not None, f"no hover on {target!r} in {language}"
    assert expected in value, value
    # The line under the title links the local mirror file at its line, and the file is there.
    under_title = value.split("\n\n")[1]
    link, line = first_file_link(under_title)
    path = Path(unquote(urlparse(link).path))
    assert path.is_file()
    assert line <= len(path.read_text(encoding="utf-8").splitlines())


async def test_hover_shows_parameters_summary_and_range(
    client: LanguageClient, workdir: Path
) -> None:
    text = "page = api.findAssets(name='x')\n"
    uri = _uri(workdir, "params.py")
    open_document(client, uri, text, "python")
    result = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), position_of(text, "findAssets", delta=4)
        )
    )
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    value = result.contents.value
    assert "Find assets matching the given criteria." in value
    assert "| Parameter | In | Type | Required | Description |" in value
    assert "| `nameMatchMode` | query |" in value
    start = text.index("findAssets")
    assert result.range == types.Range(
        types.Position(0, start), types.Position(0, start + len("findAssets"))
    )


async def test_hover_on_deprecated_operation_names_replacement(
    client: LanguageClient, workdir: Path
) -> None:
    text = "legacy = api.getVocabulary(domain_id)\n"
    uri = _uri(workdir, "legacy_hover.py")
    open_document(client, uri, text, "python")
    value = await hover_text(client, uri, position_of(text, "getVocabulary"))
    assert value is not None
    assert "**Deprecated**" in value and "`getDomain`" in value


@pytest.mark.parametrize(
    ("language", "text", "target"),
    [
        ("python", 'print("hello world")\n', "hello"),
        ("python", "total = count + 1\n", "count"),
        ("java", "int name = 3;\n", "name"),
        ("python", 'path = "/tmp/scratch"\n', "tmp"),
    ],
)
async def test_hover_is_none_when_nothing_is_recognised(
    client: LanguageClient, workdir: Path, language: str, text: str, target: str
) -> None:
    uri = _uri(workdir, f"nothing-{abs(hash(text))}.txt")
    open_document(client, uri, text, language)
    assert await hover_text(client, uri, position_of(text, target)) is None


async def test_definition_points_at_the_documenting_line(
    client: LanguageClient, workdir: Path, bundles: tuple[Path, Path]
) -> None:
    text = "page = api.findAssets(name='x')\nsubprocess.run(['lineage-harvester', 'full-sync'])\n"
    shell = "lineage-harvester full-sync --config h.yaml\n"
    uri = _uri(workdir, "definition.py")
    shell_uri = _uri(workdir, "definition.sh")
    open_document(client, uri, text, "python")
    open_document(client, shell_uri, shell, "shellscript")

    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), position_of(text, "findAssets"))
    )
    assert isinstance(location, types.Location), location
    assert location.uri.startswith((bundles[0] / "mirror").resolve().as_uri())
    assert "findAssets" in mirror_line(location.uri, location.range.start.line, 4)

    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(shell_uri), position_of(shell, "full"))
    )
    assert isinstance(location, types.Location), location
    assert location.uri.startswith((bundles[1] / "mirror").resolve().as_uri())
    assert "full-sync" in mirror_line(location.uri, location.range.start.line, 4)

    nothing = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), types.Position(0, 1))
    )
    assert nothing is None


async def test_workspace_symbols_fuzzy_kinds_and_locations(client: LanguageClient) -> None:
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="findass"))
    assert symbols
    by_name = {s.name: s for s in symbols}
    assert by_name["findAssets"].kind == types.SymbolKind.Function
    assert by_name["Find assets"].kind == types.SymbolKind.String
    for symbol in symbols:
        assert isinstance(symbol, types.SymbolInformation)
        mirror_line(symbol.location.uri, symbol.location.range.start.line)

    cli = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="harvester full"))
    assert cli and cli[0].name == "lineage-harvester full-sync"
    assert cli[0].kind == types.SymbolKind.Module

    endpoints = await client.workspace_symbol_async(
        types.WorkspaceSymbolParams(query="GET /assets")
    )
    kinds = {s.name: s.kind for s in endpoints}
    assert kinds.get("GET /assets/{assetId}") == types.SymbolKind.Method

    everything = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert 0 < len(everything) <= 50  # atlas.workspaceSymbols.maxResults defaults to 50


async def _code_actions(
    client: LanguageClient, uri: str, position: types.Position, diagnostics: list[Any] | None = None
) -> list[dict[str, Any]]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(position, position),
            context=types.CodeActionContext(diagnostics=diagnostics or []),
        )
    )
    return list(result or [])


async def test_code_action_opens_local_docs_at_the_section(
    client: LanguageClient, workdir: Path
) -> None:
    text = "page = api.findAssets(name='x')\n"
    uri = _uri(workdir, "action.py")
    open_document(client, uri, text, "python")
    actions = await _code_actions(client, uri, position_of(text, "findAssets"))
    titles = [a["title"] for a in actions]
    assert "Open Collibra docs for findAssets" in titles, titles
    action = next(a for a in actions if a["title"] == "Open Collibra docs for findAssets")
    command = action["command"]
    assert command["command"] == "atlas.openDocs"
    doc_uri, line = command["arguments"]
    assert "findAssets" in mirror_line(doc_uri, line - 1, 4)

    before = len(client.shown_documents)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
    )
    assert result["success"] is True
    shown = client.shown_documents[before:]
    assert len(shown) == 1
    assert shown[0].uri == doc_uri and not shown[0].external
    assert shown[0].selection is not None and shown[0].selection.start.line == line - 1


async def test_code_action_opens_the_web_page(client: LanguageClient, workdir: Path) -> None:
    text = '{"continueOnError": true}\n'
    uri = _uri(workdir, "web.json")
    open_document(client, uri, text, "json")
    actions = await _code_actions(client, uri, position_of(text, "continueOnError"))
    web = [a for a in actions if a["title"] == "Open continueOnError on the web"]
    assert web, [a["title"] for a in actions]
    command = web[0]["command"]
    assert command["command"] == "atlas.openWeb"
    url = command["arguments"][0]
    assert url.startswith("https://fixture-docs.example.invalid/import-api/json-import")

    before = len(client.shown_documents)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
    )
    shown = client.shown_documents[before:]
    assert [(s.uri, s.external) for s in shown] == [(url, True)]


async def test_deprecation_diagnostics_and_quick_fix(client: LanguageClient, workdir: Path) -> None:
    # The Term in the comment is English, not code, and the one in the code's own string is its
    # own business: only the one sent in a request body is flagged.
    text = (
        "legacy = api.getVocabulary(x)\nr = requests.post(URL, json={'kind': 'Term'})\n"
        "label = 'Term'\nfine = api.findAssets()  # a Term\n"
    )
    uri = _uri(workdir, "deprecated.py")
    client.diagnostics.pop(uri, None)
    open_document(client, uri, text, "python")
    diags = await wait_until(lambda: client.diagnostics.get(uri))
    by_text = {
        text.splitlines()[d.range.start.line][d.range.start.character : d.range.end.character]: d
        for d in diags
    }
    assert set(by_text) == {"getVocabulary", "Term"} and len(diags) == 2
    term = by_text["Term"]
    # Deprecated but still working (the docs do not say it is removed): information, struck
    # through, not a warning.
    assert term.severity == types.DiagnosticSeverity.Information
    assert term.source == "atlas" and term.code == "deprecated"
    assert "use 'Asset' instead" in term.message
    assert types.DiagnosticTag.Deprecated in (term.tags or [])
    # getVocabulary is a generated client's call of a deprecated operation: the call check says
    # which endpoint it calls, and offers the replacement operation.
    legacy = by_text["getVocabulary"]
    assert "getVocabulary calls GET /domains/{domainId}/vocabulary" in legacy.message
    assert "use getDomain instead" in legacy.message
    renames = await _code_actions(client, uri, legacy.range.start, [legacy])
    assert [a["title"] for a in renames if a.get("kind") == "quickfix"] == [
        "Atlas: change to 'getDomain'"
    ]

    actions = await _code_actions(client, uri, term.range.start, [term])
    fixes = [a for a in actions if a.get("kind") == "quickfix"]
    assert [f["title"] for f in fixes] == ["Replace 'Term' with 'Asset'"]
    edits = fixes[0]["edit"]["changes"][uri]
    assert edits == [
        {
            "range": {
                "start": {"line": 1, "character": 38},
                "end": {"line": 1, "character": 42},
            },
            "newText": "Asset",
        }
    ]

    # Apply the fix as an editor would; the warning goes away after the debounce.
    fixed = text.replace("'kind': 'Term'", "'kind': 'Asset'")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await wait_until(lambda: len(client.diagnostics.get(uri, ())) == 1)
    assert "getVocabulary" in client.diagnostics[uri][0].message


async def test_endpoint_deprecation_matches_concatenated_path(
    client: LanguageClient, workdir: Path
) -> None:
    text = 'r = get(base + "/rest/1.0/vocabulary/" + vocabulary_id)\n'
    uri = _uri(workdir, "old_endpoint.py")
    open_document(client, uri, text, "python")
    diags = await wait_until(lambda: client.diagnostics.get(uri))
    assert any("/rest/1.0/vocabulary/" in d.message for d in diags), diags


async def test_completion_offers_endpoint_templates(client: LanguageClient, workdir: Path) -> None:
    text = 'url = "/rest/2.0/as\nother = f"{base}/assets/b\nplain = "hello\n'
    uri = _uri(workdir, "complete.py")
    open_document(client, uri, text, "python")
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(0, 19))
    )
    assert isinstance(result, types.CompletionList)
    labels = {item.label: item for item in result.items}
    assert {"/rest/2.0/assets", "/rest/2.0/assets/{assetId}", "/rest/2.0/assets/bulk"} <= set(
        labels
    )
    item = labels["/rest/2.0/assets"]
    assert item.detail == "GET, POST"
    assert isinstance(item.documentation, types.MarkupContent)
    assert "Find assets matching the given criteria." in item.documentation.value
    assert isinstance(item.text_edit, types.TextEdit)
    assert item.text_edit.range.start == types.Position(0, 7)
    assert item.text_edit.range.end == types.Position(0, 19)

    after_base = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(1, 25))
    )
    assert after_base is not None
    assert [i.label for i in after_base.items] == ["/assets/bulk"]

    not_a_path = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(2, 14))
    )
    assert not_a_path is None or not not_a_path.items


async def test_unknown_file_types_and_unopened_files(client: LanguageClient, workdir: Path) -> None:
    text = "CALL findAssets USING WS-FILTER.\n"
    uri = _uri(workdir, "legacy.cbl")
    open_document(client, uri, text, "cobol")
    value = await hover_text(client, uri, position_of(text, "findAssets"))
    assert value is not None and "`findAssets`" in value

    on_disk = workdir / "never_opened.xyz"
    on_disk.write_text("see GET /rest/2.0/assets/{assetId}\n", encoding="utf-8")
    value = await hover_text(client, on_disk.as_uri(), types.Position(0, 16))
    assert value is not None and "`/assets/{assetId}`" in value

    missing = (workdir / "does-not-exist.py").as_uri()
    assert await hover_text(client, missing, types.Position(0, 0)) is None


async def test_positions_past_the_end(client: LanguageClient, workdir: Path) -> None:
    text = "api.findAssets()\n"
    uri = _uri(workdir, "short.py")
    open_document(client, uri, text, "python")
    doc = types.TextDocumentIdentifier(uri)
    assert await hover_text(client, uri, types.Position(0, 400)) is None
    assert await hover_text(client, uri, types.Position(99, 0)) is None
    definition = await client.text_document_definition_async(
        types.DefinitionParams(doc, types.Position(0, 400))
    )
    assert definition is None
    completion = await client.text_document_completion_async(
        types.CompletionParams(doc, types.Position(42, 3))
    )
    assert completion is None
    assert await _code_actions(client, uri, types.Position(7, 7)) == []
    # The cursor right after the last character still hovers the word it ends.
    assert await hover_text(client, uri, types.Position(0, len("api.findAssets"))) is not None


async def test_five_megabyte_files(client: LanguageClient, workdir: Path) -> None:
    # A deprecated endpoint on each line: a diagnostic per line, were they not bounded.
    line = "value = api.findAssets(name='customer'); get(base + '/rest/1.0/vocabulary/' + v)\n"
    text = line * (5 * 1024 * 1024 // len(line) + 1)
    assert len(text) > 5 * 1024 * 1024
    uri = _uri(workdir, "huge.py")
    client.diagnostics.pop(uri, None)
    open_document(client, uri, text, "python")
    last = text.count("\n") - 1
    value = await hover_text(client, uri, types.Position(last, 12))
    assert value is not None and "`findAssets`" in value
    diags = await wait_until(lambda: client.diagnostics.get(uri), timeout=60)
    assert 0 < len(diags) <= 500  # bounded: one warning per line would be 100,000

    # One 5 MB line, as minified JSON is.
    record = '{"resourceType":"Asset","continueOnError":true},'
    one_line = "[" + record * (5 * 1024 * 1024 // len(record)) + "{}]"
    json_uri = _uri(workdir, "huge.json")
    open_document(client, json_uri, one_line, "json")
    middle = (len(one_line) // 2 // len(record)) * len(record) + 1 + 2
    assert one_line[middle : middle + 12] == "resourceType"
    value = await hover_text(client, json_uri, types.Position(0, middle + 3))
    assert value is not None and "`resourceType`" in value


async def test_features_never_load_the_embedding_model(client: LanguageClient) -> None:
    # Run every feature once more so the check covers them all.
    await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="asset"))
    info = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="atlas.debugInfo")
    )
    assert info["modules"]["onnxruntime"] is False, json.dumps(info)
    assert info["modules"]["tokenizers"] is False
    assert info["last_error"] is None and info["generation"] >= 1
    maps = Path(f"/proc/{info['pid']}/maps")
    if maps.exists():
        assert "onnxruntime" not in maps.read_text()


async def test_close_clears_diagnostics(client: LanguageClient, workdir: Path) -> None:
    text = "requests.post(URL, json={'kind': 'Glossary'})\n"
    uri = _uri(workdir, "closing.py")
    client.diagnostics.pop(uri, None)
    open_document(client, uri, text, "python")
    await wait_until(lambda: client.diagnostics.get(uri))
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri))
    )
    await wait_until(lambda: client.diagnostics.get(uri) == [] or client.diagnostics.get(uri) == ())
    await asyncio.sleep(0)


# -- one operation documented twice: a written guide section and the OpenAPI reference --------
# The guide's section is about the endpoint (headed by it) but lists no parameters; the reference
# page generated from the spec lists them. Both texts are invented here.

ROTOR_GUIDE = """\
# Rotor guide

Rotors turn at a speed you choose; this guide shows the calls a maintenance script makes.

## POST /rotors/{rotorId}/spin

Start a rotor with `POST /rotors/{rotorId}/spin`. A rotor that already turns keeps its speed, so
scripts may repeat `POST /rotors/{rotorId}/spin` safely after a timeout.

## Stopping

Rotors stop on their own after an hour without a new spin.
"""

ROTOR_SPEC = """\
openapi: 3.0.3
info: {title: Rotor Service API, version: "2.0"}
servers: [{url: "https://rotors.example.invalid/rest/2.0"}]
tags: [{name: Rotors, description: Start and read rotors.}]
paths:
  /rotors/{rotorId}/spin:
    post:
      tags: [Rotors]
      operationId: spinRotor
      summary: Spin a rotor.
      parameters:
        - {name: rotorId, in: path, required: true, description: The rotor to start., schema: {type: string}}
        - {name: dryRun, in: query, description: Check without starting anything., schema: {type: boolean}}
      requestBody:
        content: {application/json: {schema: {$ref: "#/components/schemas/SpinRequest"}}}
      responses:
        "200":
          description: The rotor, now turning.
          content: {application/json: {schema: {$ref: "#/components/schemas/Rotor"}}}
components:
  schemas:
    SpinRequest: {type: object, properties: {speed: {type: integer}}}
    Rotor: {type: object, properties: {id: {type: string}, speed: {type: integer}}}
"""


@pytest.fixture(scope="module")
def rotor_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("rotors")
    (base / "docs" / "guides").mkdir(parents=True)
    (base / "docs" / "guides" / "rotors.md").write_text(ROTOR_GUIDE, encoding="utf-8")
    (base / "rotors.yaml").write_text(ROTOR_SPEC, encoding="utf-8")
    out = base / "bundle"
    command = [sys.executable, "-m", "atlas_ls.cli", "build", "--model", "hash", "--quiet"]
    command += ["--source", f"local={base / 'docs'}", "--source", f"openapi={base / 'rotors.yaml'}"]
    subprocess.run(
        [*command, "--output", str(out)], env=server_env(base / "home"), check=True, timeout=120
    )
    return out


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def rotor_client(rotor_bundle: Path, workdir: Path) -> AsyncIterator[LanguageClient]:
    # Hover text and definitions only: one capability set (lsp_support.ONE_CLIENT) says it all.
    env = server_env(workdir / "rotor-home")
    lsp = await start_client(ONE_CLIENT, ["--bundle", str(rotor_bundle)], env, root=workdir)
    yield lsp
    await stop_client(lsp)


ROTOR_CODE = 'r = session.post(f"{base}/rest/2.0/rotors/{rotor_id}/spin", json=body)\n'


def _link_target(markdown_link: str) -> tuple[str, int]:
    """(mirror-relative file, 1-based line) of the first `[...](file://...#Ln)` link."""
    target = markdown_link.split("](", 1)[1].split(")", 1)[0]
    path, line = target.rsplit("#L", 1)
    return unquote(urlparse(path).path), int(line)


async def test_hover_lends_reference_parameters_to_the_written_section(
    rotor_client: LanguageClient, workdir: Path, rotor_bundle: Path
) -> None:
    uri = _uri(workdir, "rotor_hover.py")
    open_document(rotor_client, uri, ROTOR_CODE, "python")
    value = await hover_text(rotor_client, uri, position_of(ROTOR_CODE, "rotors/"))
    assert value is not None
    assert "**POST** `/rotors/{rotorId}/spin`" in value
    # Parameters, schemas and where they come from: the generated reference page.
    assert "| `rotorId` | path |" in value and "| `dryRun` | query |" in value
    assert "Request body: `SpinRequest`" in value and "Response: `Rotor`" in value
    lent = next(line for line in value.splitlines() if line.startswith("*Parameters and schemas"))
    also = next(line for line in value.splitlines() if line.startswith("Also documented in: "))
    mirror = (rotor_bundle / "mirror").resolve()
    reference, ref_line = _link_target(lent)
    assert _link_target(also) == (reference, ref_line)
    assert Path(reference).parent.parent == mirror and Path(reference).name == "rotors.md"
    assert "Spin a rotor." in mirror_line(Path(reference).as_uri(), ref_line - 1)
    # The hover links the written guide's section first, which is what go-to-doc opens too.
    written, line = _link_target(value)
    assert written == str(mirror / "guides" / "rotors.md")
    assert mirror_line(Path(written).as_uri(), line - 1) == "## POST /rotors/{rotorId}/spin"
    location = await rotor_client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(uri), position_of(ROTOR_CODE, "rotors/")
        )
    )
    assert isinstance(location, types.Location), location
    assert _link_target(f"[x]({location.uri}#L{location.range.start.line + 1})") == (written, line)


async def test_hover_on_the_reference_name_keeps_its_own_details(
    rotor_client: LanguageClient, workdir: Path
) -> None:
    text = "client.spinRotor(rotor_id, dry_run=True)\n"
    uri = _uri(workdir, "rotor_name.py")
    open_document(rotor_client, uri, text, "python")
    value = await hover_text(rotor_client, uri, position_of(text, "spinRotor"))
    assert value is not None and "| `dryRun` | query |" in value
    # Nothing lent: the exact name is the reference page's own, which has the parameters, and
    # the guide never names the operation.
    assert "*Parameters and schemas" not in value and "Also documented in" not in value
    assert value.split("\n\n")[1].startswith("[rotors/rotors.md:")
