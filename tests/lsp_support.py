"""Helpers for the language-server tests: the second fixture bundle, server environments, clients.

The LSP tests serve two bundles together: the shared ``hash_bundle`` and one built here from
``tests/fixtures/lsp/`` (CLI commands, GraphQL fields, legacy terms, bulk endpoints). Clients are
pytest-lsp's, started on ``python -m atlas_ls`` as a subprocess, with the captured Neovim or VS Code
capabilities.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, LanguageClientProtocol, client_capabilities
from pytest_lsp.client import register_lsp_features

from tests.fixture_builds import build_fixture_bundle

ROOT = Path(__file__).resolve().parent.parent
LSP_FIXTURES = ROOT / "tests" / "fixtures" / "lsp"
CLIENTS = ("neovim", "visual-studio-code")
# The server reads a client's capabilities for the hover format, completion tags, showDocument,
# workspace/configuration, progress and the position encoding (Neovim's set agrees on UTF-8, VS
# Code's on UTF-16). Both sets offer markdown hovers, tags, showDocument, configuration and
# progress, and on ASCII text the encodings agree: tests/lsp/test_server.py's main client runs
# under both sets; modules that only read hover text or completion items run once, under this one.
ONE_CLIENT = "visual-studio-code"


@functools.cache
def build_lsp_bundle(base: Path) -> Path:
    """Build the LSP fixture bundle once per test session (several modules ask for it)."""
    sources = [f"local={LSP_FIXTURES / 'docs'}", f"openapi={LSP_FIXTURES / 'bulk-api.yaml'}"]
    return build_fixture_bundle(sources, name="lsp-fixture")


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """The server's environment: isolated config/data/cache dirs and no ATLAS_BUNDLE."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATLAS_")}
    env.update(
        ATLAS_CONFIG=str(home / "config" / "atlas.toml"),
        ATLAS_DATA_DIR=str(home / "data"),
        ATLAS_CACHE_DIR=str(home / "cache"),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class RawCodeActionProtocol(LanguageClientProtocol):
    """Returns textDocument/codeAction results as the JSON on the wire.

    lsprotocol 2025.0.0's converter turns a CodeAction that carries a command into a plain Command
    on the client side; the server sends the right thing, so the tests read the raw JSON.
    """

    def get_result_type(self, method: str) -> Any:
        if method == types.TEXT_DOCUMENT_CODE_ACTION:
            return None
        return super().get_result_type(method)


def make_client(configuration: dict[str, Any] | None = None) -> LanguageClient:
    client = LanguageClient(
        protocol_cls=RawCodeActionProtocol,
        converter_factory=default_converter,
        configuration=configuration,
    )
    register_lsp_features(client)
    return client


async def start_client(
    capabilities: str,
    args: Sequence[str],
    env: dict[str, str],
    *,
    root: Path,
    init_options: Any = None,
    configuration: dict[str, Any] | None = None,
) -> LanguageClient:
    client = make_client(configuration)
    await client.start_io(sys.executable, "-m", "atlas_ls", *args, env=env)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(capabilities),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=init_options,
        )
    )
    return client


async def stop_client(client: LanguageClient) -> None:
    try:
        await asyncio.wait_for(client.shutdown_session(), 15)
    finally:
        await client.stop()


def open_document(
    client: LanguageClient, uri: str, text: str, language_id: str, version: int = 1
) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language_id, version=version, text=text
            )
        )
    )


def position_of(text: str, needle: str, *, occurrence: int = 0, delta: int = 1) -> types.Position:
    """The position `delta` characters into the `occurrence`-th `needle` (ASCII texts)."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    index += delta
    line = text.count("\n", 0, index)
    column = index - (text.rfind("\n", 0, index) + 1)
    return types.Position(line=line, character=column)


async def hover_text(client: LanguageClient, uri: str, position: types.Position) -> str | None:
    result = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    if result is None:
        return None
    contents = result.contents
    assert isinstance(contents, types.MarkupContent), contents
    assert contents.kind == types.MarkupKind.Markdown
    return contents.value


def first_file_link(value: str) -> tuple[str, int]:
    """(file:// URI, 1-based line) of a hover's first link into a file: the page a reader meets
    first, its own, which go-to-definition opens."""
    assert "](file://" in value, value
    target = value.split("](file://", 1)[1].split(")", 1)[0]
    path, line = target.rsplit("#L", 1)
    return "file://" + path, int(line)


async def wait_until(predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
    """Poll `predicate` on the event loop until it returns something truthy."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")
        await asyncio.sleep(0.05)


def mirror_line(uri: str, line0: int, count: int = 1) -> str:
    """`count` lines from line `line0` (0-based) of a file:// URI the server pointed at: a section
    heading and the lines under it when `count` > 1."""
    from urllib.parse import unquote, urlparse

    path = Path(unquote(urlparse(uri).path))
    assert path.is_file(), f"{uri} does not exist"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert 0 <= line0 < len(lines), f"{uri} has no line {line0 + 1}"
    return "\n".join(lines[line0 : line0 + count])
