"""Completion and signature help from the API inside calls in client code, through the real server
(pytest-lsp, VS Code's capabilities: see lsp_support.ONE_CLIENT) over the calls fixture spec
(tests/fixtures/calls/calls-api.yaml) and a jobs spec with a deprecated and a required query
parameter (tests/fixtures/completion/jobs-api.yaml).

The code is half-typed as it is while typing: unclosed strings, dicts and calls."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.calls_bundle import CALLS_DOCS, CALLS_SPEC, ROOT
from tests.fixture_builds import build_fixture_bundle
from tests.lsp_support import ONE_CLIENT, open_document, server_env, start_client, stop_client

pytestmark = pytest.mark.asyncio(loop_scope="module")

JOBS_SPEC = ROOT / "tests" / "fixtures" / "completion" / "jobs-api.yaml"
BASE = "https://catalog.example.invalid/rest/2.0"
CURSOR = "‸"  # where the cursor is in the texts below; taken out before the text is opened


@functools.cache
def _bundle(base: Path) -> Path:
    return build_fixture_bundle(
        [f"openapi={CALLS_SPEC}", f"openapi={JOBS_SPEC}", f"local={CALLS_DOCS}"],
        name="completion",
    )


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(
    tmp_path_factory: pytest.TempPathFactory, workdir: Path
) -> AsyncIterator[LanguageClient]:
    bundle = _bundle(tmp_path_factory.getbasetemp())
    env = server_env(workdir / "home")
    lsp = await start_client(ONE_CLIENT, ["--bundle", str(bundle)], env, root=workdir)
    yield lsp
    await stop_client(lsp)


_count = 0


def _open(
    client: LanguageClient, workdir: Path, marked: str, language: str
) -> tuple[str, types.Position]:
    """Open `marked` (without its cursor mark) in a new document; its URI and the cursor."""
    global _count
    _count += 1
    index = marked.index(CURSOR)
    text = marked.replace(CURSOR, "", 1)
    line = text.count("\n", 0, index)
    column = index - (text.rfind("\n", 0, index) + 1)
    suffix = {"python": "py", "javascript": "js", "typescript": "ts"}[language]
    uri = (workdir / f"doc{_count}.{suffix}").as_uri()
    open_document(client, uri, text, language)
    return uri, types.Position(line, column)


async def _complete(
    client: LanguageClient, workdir: Path, marked: str, language: str = "python"
) -> list[types.CompletionItem]:
    uri, position = _open(client, workdir, marked, language)
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position)
    )
    if result is None:
        return []
    assert isinstance(result, types.CompletionList)
    return sorted(result.items, key=lambda item: item.sort_text or "")


async def _signature(
    client: LanguageClient, workdir: Path, marked: str, language: str = "python"
) -> types.SignatureHelp | None:
    uri, position = _open(client, workdir, marked, language)
    return await client.text_document_signature_help_async(
        types.SignatureHelpParams(types.TextDocumentIdentifier(uri), position)
    )


def _labels(items: list[types.CompletionItem]) -> list[str]:
    return [item.label for item in items]


def _edit(item: types.CompletionItem) -> types.TextEdit:
    assert isinstance(item.text_edit, types.TextEdit), item
    return item.text_edit


def _docs(item: types.CompletionItem) -> str:
    assert isinstance(item.documentation, types.MarkupContent), item
    return item.documentation.value


async def test_a_half_typed_params_key_completes_the_query_parameters(
    client: LanguageClient, workdir: Path
) -> None:
    # The string and the dict are still open, and the call: the line ends at the cursor.
    code = f'import requests\n\nrequests.get("{BASE}/assets", params={{"na{CURSOR}\n\nx = 1\n'
    items = await _complete(client, workdir, code)
    assert _labels(items) == ["name", "nameMatchMode", "domainId", "limit"]
    mode = items[1]
    assert mode.kind == types.CompletionItemKind.Field
    assert mode.detail == "string"
    docs = _docs(mode)
    assert "The match mode used to compare `name`." in docs
    assert "Values: `START`, `END`, `ANYWHERE`, `EXACT`" in docs
    assert "Default: `ANYWHERE`" in docs
    # The edit replaces the typed "na" and closes the string.
    edit = _edit(mode)
    line = code.splitlines()[2]
    start = line.index('{"na') + 2
    assert edit.range == types.Range(types.Position(2, start), types.Position(2, start + 2))
    assert edit.new_text == 'nameMatchMode"'


async def test_an_empty_dict_offers_every_key_and_written_keys_are_left_out(
    client: LanguageClient, workdir: Path
) -> None:
    empty = await _complete(
        client, workdir, f'requests.get("{BASE}/assets", params={{{CURSOR}}})\n'
    )
    assert _labels(empty) == ["name", "nameMatchMode", "domainId", "limit"]
    # Outside any quote the key is inserted with its quotes.
    assert _edit(empty[0]).new_text == '"name"'
    written = await _complete(
        client, workdir, f'requests.get("{BASE}/assets", params={{"name": "x", {CURSOR}}})\n'
    )
    assert _labels(written) == ["nameMatchMode", "domainId", "limit"]


async def test_body_keys_on_a_new_line_are_the_request_schemas_properties(
    client: LanguageClient, workdir: Path
) -> None:
    code = (
        "import requests\n"
        f'BASE = "{BASE}"\n'
        "session = requests.Session()\n\n"
        "def start(definition_id):\n"
        '    return session.post(BASE + "/workflowInstances", json={\n'
        f"        {CURSOR}\n"
    )
    items = await _complete(client, workdir, code)
    # The required property first, then the others in the spec's order.
    assert _labels(items) == ["workflowDefinitionId", "businessItemIds", "businessItemType"]
    assert items[0].kind == types.CompletionItemKind.Property
    assert items[0].detail == "string (uuid) (required)"
    assert items[1].detail == "array[string (uuid)]"
    assert "The resource type of the business items." in _docs(items[2])


async def test_the_method_picks_the_operation_whose_keys_are_offered(
    client: LanguageClient, workdir: Path
) -> None:
    # The same path: GET /assets takes query parameters, POST /assets a body.
    added = await _complete(
        client, workdir, f'requests.post("{BASE}/assets", json={{"domainId": d, "{CURSOR}"}})\n'
    )
    assert _labels(added) == ["name", "typeId"]
    assert [item.detail for item in added] == ["string (required)", "string (uuid) (required)"]


async def test_required_first_and_a_deprecated_parameter_is_tagged(
    client: LanguageClient, workdir: Path
) -> None:
    items = await _complete(client, workdir, f'httpx.get("{BASE}/jobs", params={{"{CURSOR}"}})\n')
    assert _labels(items) == ["limit", "state", "legacyFilter"]
    assert items[0].detail == "integer (required)"
    legacy = items[2]
    assert list(legacy.tags or ()) == [types.CompletionItemTag.Deprecated]
    assert "**Deprecated.**" in _docs(legacy)
    assert items[0].tags is None


async def test_enum_values_at_a_value_of_an_enum_parameter(
    client: LanguageClient, workdir: Path
) -> None:
    code = f'requests.get("{BASE}/assets", params={{"nameMatchMode": "{CURSOR}\n'
    items = await _complete(client, workdir, code)
    assert _labels(items) == ["START", "END", "ANYWHERE", "EXACT"]
    assert items[2].detail == "nameMatchMode (default)"
    assert _edit(items[3]).new_text == 'EXACT"'  # the unclosed value gets its quote
    closed = await _complete(
        client, workdir, f'requests.get("{BASE}/assets", params={{"nameMatchMode": "E{CURSOR}"}})\n'
    )
    edit = _edit(closed[3])
    assert edit.new_text == 'EXACT"'
    assert edit.range.end.character - edit.range.start.character == 2  # "E" and its quote
    # A parameter without an enum has no values to offer.
    assert (
        await _complete(
            client, workdir, f'requests.get("{BASE}/assets", params={{"name": "{CURSOR}"}})\n'
        )
        == []
    )


async def test_axios_params_and_a_fetch_body_in_javascript_and_typescript(
    client: LanguageClient, workdir: Path
) -> None:
    axios = await _complete(
        client,
        workdir,
        f'axios.get("{BASE}/assets", {{ params: {{ name: "x", {CURSOR} }} }});\n',
        "javascript",
    )
    assert _labels(axios) == ["nameMatchMode", "domainId", "limit"]
    assert _edit(axios[0]).new_text == "nameMatchMode"  # a bare key in JavaScript
    code = (
        "export async function start(base, id) {\n"
        "  return fetch(`${base}/rest/2.0/workflowInstances`, {\n"
        '    method: "POST",\n'
        f"    body: JSON.stringify({{ workflowDefinitionId: id, busi{CURSOR}\n"
    )
    fetch = await _complete(client, workdir, code, "typescript")
    assert _labels(fetch) == ["businessItemIds", "businessItemType"]
    value = (
        f'fetch("{BASE}/workflowInstances", {{ method: "POST", '
        f'body: JSON.stringify({{ businessItemType: "{CURSOR}" }}) }});\n'
    )
    values = await _complete(client, workdir, value, "javascript")
    assert _labels(values) == ["ASSET", "DOMAIN", "COMMUNITY"]


async def test_no_items_where_no_operation_can_be_seen(
    client: LanguageClient, workdir: Path
) -> None:
    nothing = [
        # the URL is a parameter of the function: no operation
        f"def find(url):\n    return requests.get(url, params={{{CURSOR}}})\n",
        # a dict no call takes
        f'settings = {{"{CURSOR}"}}\n',
        # a nested object of the body: its keys are not the body's
        f'requests.post("{BASE}/assets", json={{"attributes": {{"{CURSOR}"}}}})\n',
        # a path the spec does not have
        f'requests.get("{BASE}/nothing", params={{"{CURSOR}"}})\n',
        # an argument, not a key
        f'requests.get("{BASE}/assets", "{CURSOR}")\n',
    ]
    for code in nothing:
        assert await _complete(client, workdir, code) == [], code


async def test_endpoint_paths_are_filtered_by_the_calls_method(
    client: LanguageClient, workdir: Path
) -> None:
    posted = _labels(await _complete(client, workdir, f'requests.post("/rest/2.0/{CURSOR}\n'))
    assert set(posted) == {
        "/rest/2.0/assets",
        "/rest/2.0/workflowInstances",
        "/rest/2.0/domains/bulk",
        "/rest/2.0/relations",
    }
    got = _labels(await _complete(client, workdir, f'requests.get("/rest/2.0/do{CURSOR}")\n'))
    assert got == ["/rest/2.0/domains/{domainId}"]
    # No call, or a fetch with no method yet: every path, as before.
    loose = _labels(await _complete(client, workdir, f'path = "/rest/2.0/do{CURSOR}\n'))
    assert set(loose) == {"/rest/2.0/domains/bulk", "/rest/2.0/domains/{domainId}"}
    fetched = await _complete(client, workdir, f'fetch("/rest/2.0/do{CURSOR}', "javascript")
    assert set(_labels(fetched)) == set(loose)
    deleted = await _complete(
        client, workdir, f'fetch("/rest/2.0/do{CURSOR}", {{ method: "DELETE" }});', "javascript"
    )
    assert _labels(deleted) == ["/rest/2.0/domains/bulk"]


async def test_signature_help_in_the_params_the_body_and_the_arguments(
    client: LanguageClient, workdir: Path
) -> None:
    help_ = await _signature(
        client, workdir, f'requests.get("{BASE}/assets", params={{"name": "x", "nameM{CURSOR}"}})\n'
    )
    assert help_ is not None
    sig = help_.signatures[0]
    assert sig.label == "GET /assets(name?, nameMatchMode?, domainId?, limit?)"
    assert help_.active_parameter == 1
    assert sig.parameters is not None
    start = sig.label.index("nameMatchMode?")  # not the "name" in front of it
    assert sig.parameters[1].label == (start, start + len("nameMatchMode?"))
    assert isinstance(sig.documentation, types.MarkupContent)
    assert "Find assets matching the given criteria." in sig.documentation.value
    assert "[Documentation](" in sig.documentation.value

    body = await _signature(
        client, workdir, f'requests.post("{BASE}/assets", json={{\n    "name": "x",\n    {CURSOR}\n'
    )
    assert body is not None
    assert body.signatures[0].label == "POST /assets(name, domainId, typeId)"
    assert body.active_parameter is None

    value = await _signature(
        client, workdir, f'requests.get("{BASE}/jobs", params={{"state": "{CURSOR}"}})\n'
    )
    assert value is not None
    assert value.signatures[0].label == "GET /jobs(limit, state?, legacyFilter?)"
    assert value.active_parameter == 1

    arguments = await _signature(client, workdir, f'requests.get("{BASE}/jobs", {CURSOR}\n')
    assert arguments is not None
    assert arguments.signatures[0].label == "GET /jobs(limit, state?, legacyFilter?)"

    js = await _signature(
        client, workdir, f'axios.get("{BASE}/assets", {{ params: {{ {CURSOR} }} }});', "javascript"
    )
    assert js is not None and js.signatures[0].label.startswith("GET /assets(")

    assert await _signature(client, workdir, f"print({CURSOR})\n") is None
