"""Hostile clients against the real language server (issue 10: items 5, 6 and 8 on the LSP side,
and the rest of the LSP surface).

Every case starts ``python -m atlas_ls`` as a subprocess. Well-formed hostile requests go through
pytest-lsp's client; malformed ones through `RawServer`, which writes the bytes itself, since
pytest-lsp checks params against the LSP types before sending them. A case passes when every
request with an id gets an answer without a traceback, within a bound, and the server goes on
answering a plain hover afterwards (or, where the byte stream is beyond repair, exits with code 1
and says why on stderr).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

from tests.lsp_support import (
    hover_text,
    make_client,
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


class RawServer:
    """``python -m atlas_ls`` spoken to in raw bytes, its stderr in a file.

    A reader task keeps every response (by id, ``None`` for those without one) with its raw body,
    and answers the server's own requests (configuration, progress tokens) with null.
    """

    def __init__(self, proc: asyncio.subprocess.Process, stderr_path: Path) -> None:
        self.proc = proc
        self.stderr_path = stderr_path
        self.replies: dict[Any, list[tuple[dict[str, Any], str]]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.closed = False
        self._next_id = 100
        self._reader = asyncio.create_task(self._pump())

    @classmethod
    async def start(cls, bundle: Path, home: Path) -> RawServer:
        home.mkdir(parents=True, exist_ok=True)
        stderr_path = home / "server-stderr.log"
        with stderr_path.open("wb") as stderr:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "atlas_ls", "--bundle", str(bundle),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr,
                env=server_env(home), limit=1024 * 1024,
            )  # fmt: skip
        return cls(proc, stderr_path)

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def _read(self) -> bytes | None:
        assert self.proc.stdout is not None
        length = None
        while True:
            line = await self.proc.stdout.readline()
            if not line:
                return None
            if not line.strip():
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        assert length is not None, "the server sent a message without Content-Length"
        return await self.proc.stdout.readexactly(length)

    async def _pump(self) -> None:
        try:
            while (body := await self._read()) is not None:
                message = json.loads(body)
                if "method" in message and "id" in message:
                    await self.write(frame(encode({"jsonrpc": "2.0", "id": message["id"], "result": None})))  # fmt: skip
                elif "method" in message:
                    self.notifications.append(message)
                else:
                    self.replies.setdefault(message.get("id"), []).append((message, body.decode()))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed = True

    async def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    async def send(self, message: Any) -> None:
        await self.write(frame(encode(message)))

    async def reply(self, msg_id: Any) -> dict[str, Any]:
        """The next response to `msg_id`, checked to carry no traceback."""
        await wait_until(lambda: self.replies.get(msg_id) or self.closed, REPLY_TIMEOUT_S)
        assert self.replies.get(msg_id), f"the server exited without answering {msg_id!r}"
        message, raw = self.replies[msg_id].pop(0)
        assert_no_traceback(raw)
        return message

    async def call(self, method: str, params: Any) -> dict[str, Any]:
        msg_id = self.next_id()
        await self.send(request(msg_id, method, params))
        return await self.reply(msg_id)

    async def initialize(self, root: Path) -> None:
        params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        result = await self.call("initialize", params)
        assert "capabilities" in result["result"]
        await self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    async def open(self, uri: str, text: str, language: str = "python") -> None:
        item = {"uri": uri, "languageId": language, "version": 1, "text": text}
        await self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}})  # fmt: skip

    async def assert_serves(self, uri: str) -> None:
        """A plain hover on the open SAMPLE document is answered with its docs."""
        answer = await self.call("textDocument/hover", at(uri))
        assert "`findAssets`" in answer["result"]["contents"]["value"], answer

    async def exit_code(self) -> int:
        return await asyncio.wait_for(self.proc.wait(), EXIT_TIMEOUT_S)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    async def close(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()


@pytest_asyncio.fixture(loop_scope="module")
async def raw(hash_bundle: Path, tmp_path: Path) -> AsyncIterator[tuple[RawServer, str]]:
    """A fresh raw server, initialised, with SAMPLE open; (server, SAMPLE's URI)."""
    server = await RawServer.start(hash_bundle, tmp_path / "home")
    try:
        await server.initialize(tmp_path)
        uri = (tmp_path / "sample.py").as_uri()
        await server.open(uri, SAMPLE)
        await server.assert_serves(uri)
        yield server, uri
    finally:
        await server.close()


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


# --- item 6: requests that got no reply -----------------------------------------------------

DOC = "file:///nowhere/sample.py"
HOVER = "textDocument/hover"
# name -> (message, the error code it must get). Each is sent with a fresh id.
MALFORMED: dict[str, tuple[Callable[[int], Any], int]] = {
    "line -1": (lambda i: request(i, HOVER, at(DOC, line=-1)), INVALID_PARAMS),
    "line 2**31": (lambda i: request(i, HOVER, at(DOC, line=2**31)), INVALID_PARAMS),
    "character -5": (lambda i: request(i, HOVER, at(DOC, character=-5)), INVALID_PARAMS),
    "position null": (
        lambda i: request(i, HOVER, {"textDocument": {"uri": DOC}, "position": None}),
        INVALID_PARAMS,
    ),
    "params null": (lambda i: request(i, HOVER, None), INVALID_PARAMS),
    "params [1, 2]": (lambda i: request(i, HOVER, [1, 2]), INVALID_PARAMS),
    "no textDocument": (
        lambda i: request(i, HOVER, {"position": {"line": 0, "character": 0}}),
        INVALID_PARAMS,
    ),
    "uri not a string": (
        lambda i: request(i, HOVER, {"textDocument": {"uri": 5}, "position": None}),
        INVALID_PARAMS,
    ),
    "definition line -1": (
        lambda i: request(i, "textDocument/definition", at(DOC, line=-1)),
        INVALID_PARAMS,
    ),
    "completion position null": (
        lambda i: request(
            i, "textDocument/completion", {"textDocument": {"uri": DOC}, "position": None}
        ),
        INVALID_PARAMS,
    ),
    "code action range null": (
        lambda i: request(
            i,
            "textDocument/codeAction",
            {"textDocument": {"uri": DOC}, "range": None, "context": {"diagnostics": []}},
        ),
        INVALID_PARAMS,
    ),
    "jsonrpc 1.0": (lambda i: {**request(i, HOVER, at(DOC)), "jsonrpc": "1.0"}, INVALID_REQUEST),
    "no jsonrpc": (lambda i: {"id": i, "method": HOVER, "params": at(DOC)}, INVALID_REQUEST),
    "method not a string": (
        lambda i: {"jsonrpc": "2.0", "id": i, "method": 5, "params": {}},
        INVALID_REQUEST,
    ),
    "no method": (lambda i: {"jsonrpc": "2.0", "id": i}, INVALID_REQUEST),
    "a notification sent with an id": (
        lambda i: request(i, "textDocument/didClose", {"textDocument": {"uri": DOC}}),
        INVALID_REQUEST,
    ),
}

# name -> (body, the error code of the answer with "id": null)
UNREADABLE_MESSAGES: dict[str, tuple[bytes, int]] = {
    "not JSON": (b"{not json", PARSE_ERROR),
    "empty body": (b"", PARSE_ERROR),
    "not UTF-8": (b'{"jsonrpc": "2.0", "id": 1, "method": "\xff\xfe"}', PARSE_ERROR),
    "nested 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, PARSE_ERROR),
    "a batch": (encode([request(1, HOVER, at(DOC))]), INVALID_REQUEST),
    "a number": (b"5", INVALID_REQUEST),
    "id an object": (encode(request({"a": 1}, HOVER, at(DOC))), INVALID_REQUEST),
    "id a float": (encode(request(1.5, HOVER, at(DOC))), INVALID_REQUEST),
}


@pytest.mark.parametrize("case", list(MALFORMED))
async def test_a_malformed_request_gets_an_error_answer(
    case: str, raw: tuple[RawServer, str]
) -> None:
    # Before the fix pygls logged "Unable to deserialize message" and dropped the request.
    server, sample = raw
    build, code = MALFORMED[case]
    msg_id = server.next_id()
    await server.send(build(msg_id))
    answer = await server.reply(msg_id)
    assert answer["error"]["code"] == code, answer
    assert answer["error"]["message"]
    await server.assert_serves(sample)


@pytest.mark.parametrize("case", list(UNREADABLE_MESSAGES))
async def test_an_unreadable_message_gets_an_error_with_a_null_id(
    case: str, raw: tuple[RawServer, str]
) -> None:
    server, sample = raw
    body, code = UNREADABLE_MESSAGES[case]
    await server.write(frame(body))
    answer = await server.reply(None)
    assert answer["error"]["code"] == code, answer
    await server.assert_serves(sample)


async def test_out_of_range_positions_answer_none(raw: tuple[RawServer, str]) -> None:
    """Positions that fit the LSP types but not the document: no result, never an error."""
    server, sample = raw
    emoji = (Path(sample.removeprefix("file://")).parent / "emoji.py").as_uri()
    await server.open(emoji, 'x = "\U0001f600"; api.findAssets()\n')
    cases = [
        (sample, 10**6, 0),  # far past the last line
        (sample, 0, 10**6),  # far past the end of the line
        (sample, 2, 0),  # the empty line after the last newline
        (sample, 2**31 - 1, 2**31 - 1),  # the largest position LSP allows
        (emoji, 0, 6),  # between the two UTF-16 halves of the emoji
    ]
    for method in (HOVER, "textDocument/definition", "textDocument/completion"):
        for uri, line, character in cases:
            answer = await server.call(method, at(uri, line, character))
            assert "error" not in answer, (method, line, character, answer)
            assert answer["result"] is None or (method == HOVER and uri == emoji), answer
    await server.assert_serves(sample)


async def test_a_lone_surrogate_in_a_uri_is_answered_without_a_traceback(
    raw: tuple[RawServer, str],
) -> None:
    # Before the fix the answer was an InternalError with the traceback in error.data.
    server, sample = raw
    for method in (HOVER, "textDocument/definition", "textDocument/completion"):
        answer = await server.call(method, at("file:///tmp/\ud800\udfff\ud800.py"))
        assert answer.get("result") is None and "error" not in answer, answer
    await server.assert_serves(sample)


async def test_a_50_mb_message_is_read_and_the_next_one_answered(
    raw: tuple[RawServer, str],
) -> None:
    server, sample = raw
    huge_uri = "file:///" + "a" * (50 * 1024 * 1024)
    answer = await server.call(HOVER, at(huge_uri))
    assert answer["result"] is None
    await server.write(frame(b"[" + b" " * (50 * 1024 * 1024)))
    assert (await server.reply(None))["error"]["code"] == PARSE_ERROR
    await server.assert_serves(sample)


def _lying_length(delta: int) -> Callable[[bytes], bytes]:
    def build(next_frame: bytes) -> bytes:
        body = encode(request(7, HOVER, at(DOC)))
        return b"Content-Length: %d\r\n\r\n" % (len(body) + delta) + body + next_frame

    return build


# Byte streams after which the next message cannot be found: the server must exit 1 and say why,
# not hang (before the fix it skipped the bad header and swallowed the next message with it).
BROKEN_FRAMING: dict[str, Callable[[bytes], bytes]] = {
    "Content-Length not a number": lambda nxt: b"Content-Length: ten\r\n\r\n{}" + nxt,
    "negative Content-Length": lambda nxt: b"Content-Length: -5\r\n\r\n{}" + nxt,
    "no Content-Length": lambda nxt: b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}" + nxt,
    "Content-Length of a terabyte": lambda nxt: b"Content-Length: 1099511627776\r\n\r\n{}" + nxt,
    "a 1 MB header line": lambda nxt: b"X" * (1024 * 1024) + b"\r\n" + nxt,
    "not a header": lambda nxt: b"hello\r\n\r\n" + nxt,
    "Content-Length 10 too big": _lying_length(10),
    "Content-Length 10 too small": _lying_length(-10),
}


@pytest.mark.parametrize("case", list(BROKEN_FRAMING))
async def test_broken_framing_exits_with_code_1_and_a_reason(
    case: str, raw: tuple[RawServer, str]
) -> None:
    server, sample = raw
    hover = frame(encode(request(8, HOVER, at(sample))))
    with contextlib.suppress(ConnectionError):  # it may stop before it has read them all
        await server.write(BROKEN_FRAMING[case](hover))
    assert await server.exit_code() == 1
    assert "stopping: the client's messages are not LSP framing" in server.stderr()
    for answers in server.replies.values():  # a lying length may first get a parse error
        for answer, raw_body in answers:
            assert answer["error"]["code"] == PARSE_ERROR and answer["id"] is None
            assert_no_traceback(raw_body)


@pytest.mark.parametrize(("shutdown", "code"), [(False, 1), (True, 0)])
async def test_exit_code_follows_shutdown(
    shutdown: bool, code: int, raw: tuple[RawServer, str]
) -> None:
    # The LSP spec: exit code 0 after a shutdown request, 1 without one. Before the fix it was
    # always 0 (pygls's sys.exit(1) was swallowed by its own transport loop).
    server, _ = raw
    if shutdown:
        assert (await server.call("shutdown", None))["result"] is None
        late = await server.call(HOVER, at(DOC))  # after shutdown: refused, but answered
        assert late["error"]["code"] == INVALID_REQUEST
    await server.send({"jsonrpc": "2.0", "method": "exit"})
    assert await server.exit_code() == code  # stdin is still open


async def test_a_request_before_initialize_is_refused(hash_bundle: Path, tmp_path: Path) -> None:
    server = await RawServer.start(hash_bundle, tmp_path / "home")
    try:
        answer = await server.call(HOVER, at(DOC))
        assert answer["error"]["code"] == -32002  # ServerNotInitialized
        await server.initialize(tmp_path)
        uri = (tmp_path / "sample.py").as_uri()
        await server.open(uri, SAMPLE)
        await server.assert_serves(uri)
    finally:
        await server.close()


async def test_a_second_initialize_is_refused_and_keeps_the_open_documents(
    raw: tuple[RawServer, str],
) -> None:
    # Found by benchmarks/fuzz.py (lsp_wire): a second initialize reset the workspace and the
    # open (unsaved) documents were forgotten. LSP allows initialize once.
    server, sample = raw
    unsaved = sample.replace("sample.py", "unsaved-only.py")
    await server.open(unsaved, SAMPLE)
    answer = await server.call(
        "initialize", {"processId": None, "rootUri": None, "capabilities": {}}
    )
    assert answer["error"]["code"] == INVALID_REQUEST, answer
    await server.assert_serves(unsaved)


@pytest.mark.parametrize(
    "arguments",
    [["file:///x.md", "not a line"], [], [1, 2, 3, 4], ["file:///x.md", 10**30], None],
)
async def test_a_command_with_bad_arguments_is_refused_without_a_traceback(
    arguments: Any, raw: tuple[RawServer, str]
) -> None:
    server, sample = raw
    params: dict[str, Any] = {"command": "atlas.openDocs"}
    if arguments is not None:
        params["arguments"] = arguments
    answer = await server.call("workspace/executeCommand", params)
    assert answer["error"]["code"] in (INVALID_PARAMS, INTERNAL_ERROR), answer
    await server.assert_serves(sample)


# --- item 8: failures found at query time ---------------------------------------------------


def _record_row(bundle: Path, name: str) -> int:
    names = (bundle / "identifiers" / "names.txt").read_text(encoding="utf-8").splitlines()
    return names.index(name)


def _damage_record(bundle: Path, name: str) -> None:
    """Make the record of identifier `name` unreadable JSON without changing any file's size, as
    a bit flip on disk or a bad download would: the bundle opens and only a lookup of `name`
    notices."""
    import numpy as np

    offsets = np.load(bundle / "identifiers" / "record_offsets.npy")
    row = _record_row(bundle, name)
    path = bundle / "identifiers" / "records.jsonl"
    data = bytearray(path.read_bytes())
    start = int(offsets[row])
    data[start] = ord("#")  # the record's opening brace
    path.write_bytes(bytes(data))


async def test_a_bundle_damaged_at_query_time_is_reported_once(
    hash_bundle: Path, tmp_path: Path
) -> None:
    # Before the fix the lookup's exception was swallowed at DEBUG level: the hover said
    # "nothing documented here" and the user never learnt that the bundle was broken.
    bundle = tmp_path / "damaged"
    shutil.copytree(hash_bundle, bundle)
    _damage_record(bundle, "findAssets")
    client = await start_client(
        "visual-studio-code", ["--bundle", str(bundle)], server_env(tmp_path / "home"),
        root=tmp_path,
    )  # fmt: skip
    try:
        uri = (tmp_path / "damaged.py").as_uri()
        open_document(client, uri, SAMPLE, "python")
        where = position_of(SAMPLE, "findAssets")
        for _ in range(3):
            try:
                answer = await asyncio.wait_for(hover_text(client, uri, where), REPLY_TIMEOUT_S)
            except JsonRpcException as exc:  # an unexpected exception: one line, no traceback
                assert exc.code == INTERNAL_ERROR and exc.data is None, exc
                assert_no_traceback(exc.message)
            else:  # a BundleError: reported, and no result
                assert answer is None
        errors = await wait_until(
            lambda: [m for m in client.messages if m.type == types.MessageType.Error]
        )
        await asyncio.sleep(0.5)  # let a (wrong) second message arrive before counting
        errors = [m for m in client.messages if m.type == types.MessageType.Error]
        assert len(errors) == 1, errors
        assert errors[0].message.startswith("Atlas: hover"), errors[0].message
        assert_no_traceback(errors[0].message)
        # The rest of the bundle still serves.
        path_hover = await hover_text(client, uri, position_of(SAMPLE, "assets/{assetId}"))
        assert path_hover is not None and "`/assets/{assetId}`" in path_hover
    finally:
        await stop_client(client)


# A stand-in, because no damage to a real bundle is sure to surface as a BundleError at query time
# on every version of the engine: the server runs with Engine.lookup patched to raise a
# BundleError for one name and a KeyError (a bug) for another. Everything else is the real server.
RAISING_SERVER = """
import sys
from atlas_core.engine import Engine
from atlas_core.errors import BundleError

real_lookup = Engine.lookup

def lookup(self, identifier, limit=10):
    if identifier == "brokenThing":
        raise BundleError("identifier table: records.jsonl row 7 is not JSON",
                          hint="run `atlas verify`; rebuild or re-download the bundle")
    if identifier == "buggyThing":
        raise KeyError("kind")
    return real_lookup(self, identifier, limit)

Engine.lookup = lookup
from atlas_ls.lsp.__main__ import main
sys.exit(main())
"""


@pytest_asyncio.fixture(loop_scope="module")
async def raising_client(hash_bundle: Path, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    script = tmp_path / "raising_server.py"
    script.write_text(RAISING_SERVER)
    client = make_client()
    await client.start_io(
        sys.executable, str(script), "--bundle", str(hash_bundle),
        env=server_env(tmp_path / "home"),
    )  # fmt: skip
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"), root_uri=tmp_path.as_uri()
        )
    )
    yield client
    await stop_client(client)


async def test_a_bundle_error_is_shown_once_and_answers_none(
    raising_client: LanguageClient, tmp_path: Path
) -> None:
    text = "x = api.brokenThing()\n"
    uri = (tmp_path / "broken.py").as_uri()
    open_document(raising_client, uri, text, "python")
    for _ in range(3):
        assert await hover_text(raising_client, uri, position_of(text, "brokenThing")) is None
    await asyncio.sleep(0.5)
    errors = [m.message for m in raising_client.messages if m.type == types.MessageType.Error]
    assert errors == [
        "Atlas: hover: identifier table: records.jsonl row 7 is not JSON (hint: run `atlas "
        "verify`; rebuild or re-download the bundle)"
    ]


async def test_an_unexpected_error_is_an_error_answer_shown_once(
    raising_client: LanguageClient, tmp_path: Path
) -> None:
    text = "x = api.buggyThing()\n"
    uri = (tmp_path / "buggy.py").as_uri()
    open_document(raising_client, uri, text, "python")
    for _ in range(3):
        with pytest.raises(JsonRpcException) as failure:
            await hover_text(raising_client, uri, position_of(text, "buggyThing"))
        assert failure.value.code == INTERNAL_ERROR and failure.value.data is None
        assert failure.value.message == "hover failed: KeyError: 'kind'"
    await asyncio.sleep(0.5)
    errors = [m.message for m in raising_client.messages if "KeyError" in m.message]
    assert len(errors) == 1, errors
    assert errors[0].startswith("Atlas: hover failed: KeyError: 'kind'")


# A stand-in for a bug in a notification handler (there is no response to carry it): reading the
# recogniser names, which only a settings change naming recognisers does, raises a KeyError. The
# server's stderr goes to the file named first on its command line.
BUGGY_SETTINGS_SERVER = """
import sys
from atlas_core.recognize.registry import RecognizerSet

def names(self):
    raise KeyError("kind")

RecognizerSet.names = property(names)
sys.stderr = open(sys.argv.pop(1), "w", buffering=1)
from atlas_ls.lsp.__main__ import main
sys.exit(main())
"""


async def test_a_bug_in_a_notification_is_logged_with_its_traceback_and_shown_once(
    hash_bundle: Path, tmp_path: Path
) -> None:
    script, log = tmp_path / "buggy_settings_server.py", tmp_path / "server-stderr.log"
    script.write_text(BUGGY_SETTINGS_SERVER)
    client = make_client()
    await client.start_io(
        sys.executable, str(script), str(log), "--bundle", str(hash_bundle),
        env=server_env(tmp_path / "home"),
    )  # fmt: skip
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("neovim"), root_uri=tmp_path.as_uri()
            )
        )
        settings = {"atlas": {"recognizers": {"enabled": ["rest_path"]}}}
        for _ in range(3):
            client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=settings)
            )
        await wait_until(lambda: [m for m in client.messages if "KeyError" in m.message])
        await asyncio.sleep(0.5)  # let a (wrong) second message arrive before counting
        stderr = log.read_text()
        assert "ERROR" in stderr and "Traceback" in stderr and "raise KeyError" in stderr, stderr
        shown = [m for m in client.messages if "KeyError" in m.message]
        assert len(shown) == 1, shown
        assert shown[0].type == types.MessageType.Error
        assert shown[0].message.startswith("Atlas: settings failed: KeyError: 'kind'")
        # The server goes on serving.
        uri = (tmp_path / "sample.py").as_uri()
        open_document(client, uri, SAMPLE, "python")
        hover = await hover_text(client, uri, position_of(SAMPLE, "findAssets"))
        assert hover is not None and "`findAssets`" in hover
    finally:
        await stop_client(client)


# --- item 4: queries and settings ---------------------------------------------------------


async def test_a_1_mb_workspace_symbol_query_is_answered(
    client: LanguageClient, tmp_path: Path
) -> None:
    query = client.workspace_symbol_async(
        types.WorkspaceSymbolParams(query="findAssets " * 100_000)
    )
    result = await asyncio.wait_for(query, REPLY_TIMEOUT_S)
    assert isinstance(result, list)
    await _still_serves(client, tmp_path)


def _nested(depth: int) -> bytes:
    return b'{"a": ' * depth + b"1" + b"}" * depth


MAX_RESULTS_WARNING = "atlas.workspaceSymbols.maxResults must be a whole number from 1 to 1000"

# Settings a client can send -> the warning the server shows about them ("" for none: nothing it
# reads is in there), or a parse error when no JSON parser should follow them down.
ABSURD_SETTINGS: dict[str, tuple[bytes, str | int]] = {
    "maxResults 1e308": (
        b'{"atlas": {"workspaceSymbols": {"maxResults": 1e308}}}',
        MAX_RESULTS_WARNING,
    ),
    "maxResults Infinity": (
        b'{"atlas": {"workspaceSymbols": {"maxResults": Infinity}}}',
        MAX_RESULTS_WARNING,
    ),
    "maxResults NaN": (
        b'{"atlas": {"workspaceSymbols": {"maxResults": NaN}}}',
        MAX_RESULTS_WARNING,
    ),
    "maxResults -1e308": (
        b'{"atlas": {"workspaceSymbols": {"maxResults": -1e308}}}',
        MAX_RESULTS_WARNING,
    ),
    "bundle nested 900 deep": (
        b'{"atlas": {"bundle": ' + _nested(900) + b"}}",
        "atlas.bundle must be a directory path or a list of paths",
    ),
    "atlas nested 900 deep": (b'{"atlas": ' + _nested(900) + b"}", ""),
    "settings nested 10,000 deep": (_nested(10_000), PARSE_ERROR),
    "debounceMs a 1 MB string": (
        b'{"atlas": {"diagnostics": {"debounceMs": "' + b"9" * 1024 * 1024 + b'"}}}',
        "atlas.diagnostics.debounceMs must be a whole number of milliseconds",
    ),
}


@pytest.mark.parametrize("case", list(ABSURD_SETTINGS))
async def test_absurd_settings_are_refused(case: str, raw: tuple[RawServer, str]) -> None:
    server, sample = raw
    settings, expected = ABSURD_SETTINGS[case]
    method = b'"method": "workspace/didChangeConfiguration"'
    await server.write(
        frame(b'{"jsonrpc": "2.0", %s, "params": {"settings": %s}}' % (method, settings))
    )
    if expected == PARSE_ERROR:
        assert (await server.reply(None))["error"]["code"] == PARSE_ERROR
    symbols = await server.call("workspace/symbol", {"query": "asset"})
    assert 0 < len(symbols["result"]) <= 50  # the default maxResults still holds
    await server.assert_serves(sample)
    shown = [m["params"] for m in server.notifications if m["method"] == "window/showMessage"]
    for message in shown:
        assert_no_traceback(message["message"])
    if isinstance(expected, str) and expected:
        assert [m for m in shown if expected in m["message"] and m["type"] == 2], shown
    else:
        assert not shown, shown
