"""Hostile clients against the real language server (issue 10: items 5, 6 and 8 on the LSP side,
and the rest of the LSP surface).

Every case starts ``python -m atlas_ls`` as a subprocess and drives it through pytest-lsp's client.
A case passes when every request gets an answer without a traceback, within a bound, and the server
goes on answering a plain hover afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp_support import (
    hover_text,
    open_document,
    position_of,
    server_env,
    start_client,
    stop_client,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

REPLY_TIMEOUT_S = 20.0  # generous for a loaded machine; a hung server never answers at all
EXIT_TIMEOUT_S = 20.0
SAMPLE = 'page = api.findAssets(limit=5)\nurl = "/rest/2.0/assets/{assetId}"\n'
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: Any) -> bytes:
    return json.dumps(message).encode()


def request(msg_id: Any, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


def at(uri: str, line: int = 0, character: int = 12) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text and "traceback" not in text and 'File "' not in text, text


# --- item 5: documents the client never opened -------------------------------------------------


def _fifo(tmp: Path) -> str:
    path = tmp / "pipe.py"
    os.mkfifo(path)
    return path.as_uri()


def _big_file(tmp: Path) -> str:
    path = tmp / "big.py"
    with path.open("wb") as fh:
        fh.write(SAMPLE.encode())
        fh.truncate(50 * 1024 * 1024)  # sparse: 50 MB without writing them
    return path.as_uri()


def _directory(tmp: Path) -> str:
    path = tmp / "folder.py"
    path.mkdir()
    return path.as_uri()


UNREADABLE: dict[str, Callable[[Path], str]] = {
    "fifo": _fifo,
    "own stdin": lambda tmp: "file:///proc/self/fd/0",
    "dev-zero": lambda tmp: "file:///dev/zero",
    "dev-urandom": lambda tmp: "file:///dev/urandom",
    "directory": _directory,
    "50 MB file": _big_file,
    "lone surrogate": lambda tmp: "file:///tmp/\ud800.py",
    "not a file URI": lambda tmp: "untitled:Untitled-1",
}


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /proc are POSIX")
@pytest.mark.parametrize("target", list(UNREADABLE))
async def test_requests_on_an_unreadable_unopened_file_answer_at_once(
    target: str, hash_bundle: Path, tmp_path: Path
) -> None:
    # Before the fix a FIFO or the server's own stdin was read on the event loop: that request
    # and every later one, shutdown included, never got an answer.
    uri = UNREADABLE[target](tmp_path)
    client = await start_client(
        "neovim", ["--bundle", str(hash_bundle)], server_env(tmp_path / "home"), root=tmp_path
    )
    try:
        document = types.TextDocumentIdentifier(uri=uri)
        where = types.Position(line=0, character=12)
        hover = client.text_document_hover_async(types.HoverParams(document, where))
        assert await asyncio.wait_for(hover, REPLY_TIMEOUT_S) is None
        definition = client.text_document_definition_async(types.DefinitionParams(document, where))
        assert await asyncio.wait_for(definition, REPLY_TIMEOUT_S) is None
        completion = client.text_document_completion_async(types.CompletionParams(document, where))
        assert await asyncio.wait_for(completion, REPLY_TIMEOUT_S) is None
        actions = client.text_document_code_action_async(
            types.CodeActionParams(
                document, types.Range(where, where), types.CodeActionContext(diagnostics=[])
            )
        )
        assert await asyncio.wait_for(actions, REPLY_TIMEOUT_S) is None
        # The server is still whole: an open document hovers as usual.
        sample = (tmp_path / "sample.py").as_uri()
        open_document(client, sample, SAMPLE, "python")
        text = await hover_text(client, sample, position_of(SAMPLE, "findAssets"))
        assert text is not None and "`findAssets`" in text
    finally:
        await stop_client(client)  # shutdown must be answered too


async def test_an_unopened_regular_file_still_hovers(hash_bundle: Path, tmp_path: Path) -> None:
    path = tmp_path / "on_disk.py"
    path.write_text(SAMPLE)
    client = await start_client(
        "neovim", ["--bundle", str(hash_bundle)], server_env(tmp_path / "home"), root=tmp_path
    )
    try:
        text = await hover_text(client, path.as_uri(), position_of(SAMPLE, "findAssets"))
        assert text is not None and "`findAssets`" in text
    finally:
        await stop_client(client)


# --- item 4: documents that are too big, too long or edited out of range ---------------------


@pytest_asyncio.fixture(loop_scope="module")
async def client(hash_bundle: Path, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    lsp = await start_client(
        "neovim", ["--bundle", str(hash_bundle)], server_env(tmp_path / "home"), root=tmp_path
    )
    yield lsp
    await stop_client(lsp)


async def _still_serves(client: LanguageClient, tmp_path: Path) -> None:
    """A small document opened now gets its hover and its diagnostics."""
    uri = (tmp_path / "after.py").as_uri()
    open_document(client, uri, SAMPLE, "python")
    text = await asyncio.wait_for(
        hover_text(client, uri, position_of(SAMPLE, "findAssets")), REPLY_TIMEOUT_S
    )
    assert text is not None and "`findAssets`" in text
    await wait_until(lambda: uri in client.diagnostics, REPLY_TIMEOUT_S)


def _open_huge(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "huge.json").as_uri()
    open_document(client, uri, "[" + '"findAssets", ' * (7 * 1024 * 1024) + "0]", "json")


def _change_far_outside(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "edited.py").as_uri()
    open_document(client, uri, SAMPLE, "python")
    far = types.Position(line=10**6, character=10**6)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=types.Range(far, far), text="x")
            ],
        )
    )


def _minified(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "minified.json").as_uri()
    text = "[" + '{"resourceType": "Asset", "x": "é"}, ' * 130_000 + "0]"  # 5 MB, one line
    open_document(client, uri, text, "json")


def _long_lines(client: LanguageClient, tmp_path: Path) -> None:
    uri = (tmp_path / "long.py").as_uri()
    line = "x = " + "api.findAssets() + " * 600 + "0\n"  # 11,000 characters
    open_document(client, uri, line * 200, "python")


ABUSE: dict[str, Callable[[LanguageClient, Path], None]] = {
    "didOpen of a 100 MB document": _open_huge,
    "didChange far outside the document": _change_far_outside,
    "a 5 MB minified JSON line": _minified,
    "10,000-character lines": _long_lines,
}


@pytest.mark.parametrize("case", list(ABUSE))
async def test_abusive_documents_do_not_stop_the_server(
    case: str, client: LanguageClient, tmp_path: Path
) -> None:
    ABUSE[case](client, tmp_path)
    await _still_serves(client, tmp_path)


async def test_requests_on_a_huge_document_answer(client: LanguageClient, tmp_path: Path) -> None:
    huge = (tmp_path / "huge.json").as_uri()
    _open_huge(client, tmp_path)
    minified = (tmp_path / "minified.json").as_uri()
    _minified(client, tmp_path)
    for uri, line in ((huge, 0), (minified, 0)):
        for character in (3, 2_500_000, 5_000_000):
            where = types.Position(line=line, character=character)
            document = types.TextDocumentIdentifier(uri=uri)
            hover = client.text_document_hover_async(types.HoverParams(document, where))
            await asyncio.wait_for(hover, REPLY_TIMEOUT_S)
            done = client.text_document_completion_async(types.CompletionParams(document, where))
            await asyncio.wait_for(done, REPLY_TIMEOUT_S)
    # The 5 MB document is diagnosed; the 100 MB one is over the limit and left alone.
    await wait_until(lambda: minified in client.diagnostics, REPLY_TIMEOUT_S)
    await _still_serves(client, tmp_path)
    assert not client.diagnostics.get(huge)
