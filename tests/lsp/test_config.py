"""The language server's configuration and lifecycle: settings from initializationOptions and
workspace/configuration, bad values, bad bundles and recovery with $/progress, reload, requests after
shutdown, TCP, the command line, and recogniser plugins from the ``atlas.recognizers`` entry point."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp_support import (
    build_lsp_bundle,
    hover_text,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
    wait_until,
)

SAMPLE = 'page = api.findAssets(limit=5)\nurl = "/rest/2.0/assets/{assetId}"\nold = api.getVocabulary(d)\n'


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _symbols_query(client: Any, query: str) -> Any:
    return client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))


async def test_bad_initialization_options_warn_and_fall_back(
    hash_bundle: Path, tmp_path: Path, home: Path
) -> None:
    options = {
        "atlas": {
            "workspaceSymbols": {"maxResults": "lots"},
            "diagnostics": {"enabled": "yes"},
            "recognizers": {"enabled": ["rest_path", "no_such_recogniser"]},
        }
    }
    client = await start_client(
        "neovim", ["--bundle", str(hash_bundle)], server_env(home), root=tmp_path,
        init_options=options,
    )  # fmt: skip
    try:
        await wait_until(lambda: len(client.messages) >= 2)
        warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        text = " ".join(warnings)
        assert "atlas.workspaceSymbols.maxResults must be a whole number" in text
        assert "'lots'" in text
        assert "atlas.diagnostics.enabled must be true or false" in text
        assert "unknown recognisers in atlas.recognizers.enabled: no_such_recogniser" in text

        # Defaults stand in for the bad values: 50 symbols at most, diagnostics on.
        symbols = await _symbols_query(client, "")
        assert 0 < len(symbols) <= 50
        uri = (tmp_path / "sample.py").as_uri()
        open_document(client, uri, SAMPLE, "python")
        assert await wait_until(lambda: client.diagnostics.get(uri))
        # The valid part was kept: only the REST path recogniser runs.
        assert await hover_text(client, uri, position_of(SAMPLE, "findAssets")) is None
        path_hover = await hover_text(client, uri, position_of(SAMPLE, "assets/{assetId}"))
        assert path_hover is not None and "`/assets/{assetId}`" in path_hover
    finally:
        await stop_client(client)


async def test_workspace_configuration_is_pulled_and_pushed(
    hash_bundle: Path, tmp_path: Path, home: Path
) -> None:
    configuration = {
        "": {"atlas": {"workspaceSymbols": {"maxResults": 3}, "diagnostics": {"enabled": False}}}
    }
    client = await start_client(
        "visual-studio-code", ["--bundle", str(hash_bundle)], server_env(home), root=tmp_path,
        configuration=configuration,
    )  # fmt: skip
    try:

        async def capped() -> bool:
            return len(await _symbols_query(client, "")) == 3

        for _ in range(100):
            if await capped():
                break
            await asyncio.sleep(0.05)
        assert await capped()

        uri = (tmp_path / "quiet.py").as_uri()
        open_document(client, uri, SAMPLE, "python")
        await wait_until(lambda: uri in client.diagnostics)
        assert list(client.diagnostics[uri]) == []

        # A pushed change turns diagnostics back on for the open document.
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"atlas": {"diagnostics": {"enabled": True}}}
            )
        )
        diags = await wait_until(lambda: client.diagnostics.get(uri))
        assert any("getVocabulary calls" in d.message for d in diags)
        assert not client.messages  # every value was valid
    finally:
        await stop_client(client)


async def test_bad_bundle_reports_then_recovers_with_progress(
    hash_bundle: Path, tmp_path: Path, home: Path
) -> None:
    missing = tmp_path / "no-bundle-here"
    client = await start_client(
        "neovim", ["--bundle", str(missing)], server_env(home), root=tmp_path
    )
    try:
        errors = await wait_until(
            lambda: [m for m in client.messages if m.type == types.MessageType.Error]
        )
        assert "cannot open the docs bundle" in errors[0].message
        assert str(missing) in errors[0].message
        uri = (tmp_path / "sample.py").as_uri()
        open_document(client, uri, SAMPLE, "python")
        assert await hover_text(client, uri, position_of(SAMPLE, "findAssets")) is None
        assert await _symbols_query(client, "asset") == []

        # The editor setting names a good bundle: the server loads it and says so with $/progress.
        client.set_configuration({"bundle": str(hash_bundle)}, section="atlas")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        value = await wait_until(lambda: _ended(client))
        assert value
        hover = await hover_text(client, uri, position_of(SAMPLE, "findAssets"))
        assert hover is not None and "`findAssets`" in hover

        # atlas.reload opens the bundle again, with progress, and bumps the generation.
        before = len(client.progress_reports)
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="atlas.reload")
        )
        assert result["reloading"] is True
        await wait_until(lambda: len(_ended(client)) > before)
        info = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="atlas.debugInfo")
        )
        assert info["generation"] >= 2 and info["last_error"] is None
        assert info["bundle_paths"] == [str(hash_bundle)]
        # A real bundle: never a word about the demo.
        assert not [m for m in client.messages if "demo" in m.message], client.messages
    finally:
        await stop_client(client)


def _ended(client: Any) -> list[str]:
    """Tokens whose progress began and ended."""
    done = []
    for token, reports in client.progress_reports.items():
        kinds = [type(r).__name__ for r in reports]
        if kinds[:1] == ["WorkDoneProgressBegin"] and kinds[-1:] == ["WorkDoneProgressEnd"]:
            done.append(str(token))
    return done


async def test_requests_after_shutdown_are_refused(
    hash_bundle: Path, tmp_path: Path, home: Path
) -> None:
    client = await start_client(
        "neovim", ["--bundle", str(hash_bundle)], server_env(home), root=tmp_path
    )
    try:
        uri = (tmp_path / "sample.py").as_uri()
        open_document(client, uri, SAMPLE, "python")
        assert await hover_text(client, uri, position_of(SAMPLE, "findAssets"))
        await client.shutdown_async(None)
        with pytest.raises(JsonRpcException) as excinfo:
            await asyncio.wait_for(hover_text(client, uri, position_of(SAMPLE, "findAssets")), 10)
        assert excinfo.value.code == -32600  # InvalidRequest
        client.exit(None)
        assert client._server is not None
        assert await asyncio.wait_for(client._server.wait(), 15) == 0
    finally:
        await client.stop()


# --- TCP and the command line -----------------------------------------------------------------


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


async def _read_message(reader: asyncio.StreamReader) -> dict[str, Any]:
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(await reader.readexactly(length))


async def _call(reader: Any, writer: Any, msg_id: int, method: str, params: Any) -> Any:
    writer.write(_frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))
    await writer.drain()
    while True:
        message = await asyncio.wait_for(_read_message(reader), 30)
        if message.get("id") == msg_id and "method" not in message:
            return message


async def test_tcp_transport(hash_bundle: Path, tmp_path: Path, home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atlas_ls", "--tcp", "--port", str(port), "--bundle", str(hash_bundle),
        env=server_env(home), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            pytest.fail("the TCP server never listened")
        init = await _call(
            reader,
            writer,
            1,
            "initialize",
            {"processId": None, "rootUri": None, "capabilities": {}},
        )
        assert init["result"]["capabilities"]["hoverProvider"] is True
        assert init["result"]["serverInfo"]["name"] == "atlas-ls"
        writer.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        uri = (tmp_path / "tcp.py").as_uri()
        writer.write(_frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SAMPLE}}}))  # fmt: skip
        hover = await _call(reader, writer, 2, "textDocument/hover", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": 12}})  # fmt: skip
        assert "`findAssets`" in hover["result"]["contents"]["value"]
        assert (await _call(reader, writer, 3, "shutdown", None))["result"] is None
        writer.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        await writer.drain()
        writer.close()
        await asyncio.wait_for(proc.wait(), 15)
        stdout = await proc.stdout.read() if proc.stdout else b""
        assert stdout == b""  # TCP mode writes nothing to stdout either
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def _run(args: list[str], home: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, timeout=60,
        env=server_env(home), **kwargs,
    )  # fmt: skip


def test_command_line(home: Path, hash_bundle: Path) -> None:
    out = _run(["atlas_ls", "--help"], home)
    assert out.returncode == 0 and "usage: atlas-ls" in out.stdout and "--bundle DIR" in out.stdout
    out = _run(["atlas_ls.lsp", "--version"], home)
    assert out.returncode == 0 and out.stdout.startswith("atlas-ls ")
    out = _run(["atlas_ls", "--tcp", "--port", "0"], home)
    assert out.returncode == 2 and "--port must be 1-65535, got 0" in out.stderr
    out = _run(["atlas_ls", "--port", "many"], home)
    assert out.returncode == 2 and "invalid int value" in out.stderr
    # stdio with the client gone at once: a clean exit, logs on stderr, nothing on stdout.
    out = _run(["atlas_ls", "--bundle", str(hash_bundle), "-v"], home, input="")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    assert "opened bundle" in out.stderr


# --- plugins -----------------------------------------------------------------------------------

PLUGIN = """
import re

from atlas_core.recognize.registry import Recognition

_TAG = re.compile(r"@doc\\(([A-Za-z_][A-Za-z0-9_]*)\\)")


def recognize(ctx):
    for m in _TAG.finditer(ctx.line):
        if m.start() <= ctx.character <= m.end():
            return Recognition(m.group(1), "operation", m.start(1) + ctx.offset,
                               m.end(1) + ctx.offset, "doc_tag")
    return None
"""


def _install_plugin(site: Path) -> None:
    site.mkdir(parents=True)
    (site / "atlas_doc_tag.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "atlas_doc_tag-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: atlas-doc-tag\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[atlas.recognizers]\ndoc_tag = atlas_doc_tag:recognize\nbroken = atlas_doc_tag:missing\n"
    )


async def test_recogniser_plugins_and_bundle_from_initialization_options(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, home: Path
) -> None:
    site = tmp_path / "site"
    _install_plugin(site)
    lsp_bundle = build_lsp_bundle(tmp_path_factory.getbasetemp())
    env = server_env(home, PYTHONPATH=str(site))
    # No --bundle: the bundle comes from initializationOptions, as a list, with only the plugin on.
    options = {"atlas": {"bundle": [str(lsp_bundle)], "recognizers": {"enabled": ["doc_tag"]}}}
    client = await start_client("visual-studio-code", [], env, root=tmp_path, init_options=options)
    try:
        text = "# see @doc(assetsOfDomain) before querying\nassetsOfDomain()\n"
        uri = (tmp_path / "tagged.py").as_uri()
        open_document(client, uri, text, "python")
        hover = await hover_text(client, uri, position_of(text, "assetsOfDomain"))
        assert hover is not None and "`assetsOfDomain` — *GraphQL*" in hover
        # The built-in recognisers are off, so the same name outside the tag is not hovered.
        assert (
            await hover_text(client, uri, position_of(text, "assetsOfDomain", occurrence=1)) is None
        )
        info = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="atlas.debugInfo")
        )
        plugins = {p["name"]: p for p in info["plugins"]}
        assert plugins["doc_tag"]["loaded"] is True
        assert plugins["broken"]["loaded"] is False and "missing" in plugins["broken"]["error"]
        assert info["recognizers"] == ["doc_tag"]
        assert info["bundle_paths"] == [str(lsp_bundle)]
        symbols = await _symbols_query(client, "assetsOfDomain")
        assert symbols and symbols[0].name == "assetsOfDomain"
        assert symbols[0].kind == types.SymbolKind.Property
        assert not [m for m in client.messages if m.type == types.MessageType.Error]
    finally:
        await stop_client(client)
