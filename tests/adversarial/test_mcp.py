"""Hostile input against the real MCP server (issue 10): files that are not docs, FIFOs and huge
files in a mirror, malformed JSON-RPC on stdio and HTTP, HTTP abuse, and a damaged bundle.

The servers are subprocesses, driven by the SDK client, by raw lines on stdin, or by raw HTTP
requests and sockets; only the tests that need the engine itself to raise run the real server
in-process. Hangs are bounded by client and pytest timeouts, never by timing.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from atlas_core import pages
from atlas_core.bundle.manifest import sha256_file
from atlas_core.engine import Engine
from atlas_core.errors import BundleError
from atlas_ls.mcp.options import ServerOptions
from atlas_ls.mcp.server import build_server
from atlas_ls.mcp.transport.wire import MAX_MESSAGE_BYTES
from tests.mcp_client import (
    BIN,
    HttpServer,
    McpClient,
    error_text,
    server_env,
    stdio_client_for,
    structured,
)

CALL_TIMEOUT_S = 30  # one answer; a hang fails the test instead of blocking it
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
ENGINES = [
    pytest.param({}, id="ripgrep"),
    pytest.param({pages.ENV_RIPGREP: "none"}, id="python"),
]


def call(client: McpClient, name: str, arguments: dict[str, Any] | None = None) -> Any:
    return client.run(lambda s: s.call_tool(name, arguments or {}), timeout=CALL_TIMEOUT_S)


def read_resource(client: McpClient, uri: str) -> Any:
    return client.run(lambda s: s.read_resource(uri), timeout=CALL_TIMEOUT_S)


def list_resources(client: McpClient) -> list[str]:
    listed = client.run(lambda s: s.list_resources(), timeout=CALL_TIMEOUT_S)
    return sorted(str(r.uri).removeprefix("atlas://docs/") for r in listed.resources)


def fs_server(mirror: Path, env: dict[str, str], *extra: str) -> McpClient:
    return stdio_client_for(["collibra-fs", "--mirror", str(mirror), *extra], env)


# --- item 4: only the files list_files lists can be read ----------------------------------------

DOCS = ["pub/a.md", "pub/b.md"]
# Files that exist in the mirror but are not docs pages: each holds a secret that must never leak.
NOT_DOCS = {
    ".env": "SECRET_ENV=env-secret-1",
    "pub/.secret.md": "# Hidden\nhidden-secret-2",
    ".git/config": "[remote]\nurl = git-secret-3",
    "pub/notes.txt": "txt-secret-4",
    ".hidden/page.md": "# Page\nhidden-dir-secret-5",
    "pub/.drafts/draft.md": "# Draft\nhidden-subdir-secret-6",
    "pub/node_modules/pkg/readme.md": "# Readme\nskipped-dir-secret-7",
    "pub/__pycache__/x.md": "pycache-secret-8",
}


def write_mirror(root: Path) -> Path:
    for rel in DOCS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n\nThe needle is in {rel}.\n", encoding="utf-8")
    for rel, text in NOT_DOCS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{text}\nneedle\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def hostile_mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_mirror(tmp_path_factory.mktemp("hostile") / "mirror")


@pytest.fixture(scope="module", params=ENGINES)
def fs_client(request: pytest.FixtureRequest, hostile_mirror: Path) -> Iterator[McpClient]:
    with fs_server(hostile_mirror, request.param) as client:
        yield client


def assert_no_secret(answer: Any) -> None:
    text = json.dumps(answer if isinstance(answer, dict | list) else str(answer))
    for secret in NOT_DOCS.values():
        assert secret.split("\n")[-1] not in text


def test_list_files_and_resources_show_only_docs(fs_client: McpClient) -> None:
    listing = structured(call(fs_client, "list_files", {"publication": "pub"}))
    assert [f["file"] for f in listing["files"]] == DOCS
    assert list_resources(fs_client) == DOCS
    found = structured(call(fs_client, "search_text", {"pattern": "needle", "max_results": 100}))
    assert sorted({m["file"] for m in found["matches"]}) == DOCS
    assert_no_secret(found)


@pytest.mark.parametrize("path", [*NOT_DOCS, "pub/missing.md", "./.env", "pub/%2esecret.md"])
def test_read_file_refuses_what_list_files_does_not_list(fs_client: McpClient, path: str) -> None:
    message = error_text(call(fs_client, "read_file", {"path": path}))
    assert "not a docs file" in message and "list_files" in message
    assert_no_secret(message)
    with pytest.raises(MCPError) as refused:
        read_resource(fs_client, "atlas://docs/" + path)
    assert "not a docs file" in refused.value.error.message
    assert_no_secret(refused.value.error.message)


def test_docs_files_stay_readable(fs_client: McpClient, hostile_mirror: Path) -> None:
    for rel in DOCS:
        read = structured(call(fs_client, "read_file", {"path": rel}))
        assert read["text"] == (hostile_mirror / rel).read_text(encoding="utf-8").rstrip("\n")
        resource = read_resource(fs_client, "atlas://docs/" + rel)
        assert resource.contents[0].text == (hostile_mirror / rel).read_text(encoding="utf-8")


# --- item 5: FIFOs and huge files never hang a tool ----------------------------------------------


@needs_fifo
@pytest.mark.timeout(240)
@pytest.mark.parametrize("engine", ENGINES)
def test_fifos_in_the_mirror_never_hang(tmp_path: Path, engine: dict[str, str]) -> None:
    root = write_mirror(tmp_path / "mirror")
    os.mkfifo(root / "pub" / "fifo.md")  # there from the start: never listed
    late = root / "pub" / "late.md"
    late.write_text("# Late\n\nneedle late\n", encoding="utf-8")
    with fs_server(root, engine, "--search-timeout", "5") as client:
        # Listed as a regular file at start-up, then swapped for a FIFO under the running server.
        late.unlink()
        os.mkfifo(late)
        listing = structured(call(client, "list_files", {"publication": "pub"}))
        assert [f["file"] for f in listing["files"]] == [*DOCS, "pub/late.md"]
        assert list_resources(client) == [*DOCS, "pub/late.md"]
        assert "not a docs file" in error_text(call(client, "read_file", {"path": "pub/fifo.md"}))
        assert "not a regular file" in error_text(
            call(client, "read_file", {"path": "pub/late.md"})
        )
        with pytest.raises(MCPError, match="not a regular file"):
            read_resource(client, "atlas://docs/pub/late.md")
        for arguments in (
            {"pattern": "needle"},
            {"pattern": "needle", "publication": "pub"},
            {"pattern": "need.e", "regex": True},
        ):
            found = structured(call(client, "search_text", arguments))
            assert sorted({m["file"] for m in found["matches"]}) == DOCS, arguments
        assert structured(call(client, "read_file", {"path": "pub/a.md"}))["line_end"] == 3


@pytest.mark.timeout(240)
def test_python_search_stops_at_the_time_limit_inside_a_huge_file(tmp_path: Path) -> None:
    root = write_mirror(tmp_path / "mirror")
    # Sparse: 64 GiB that takes no disk, far more than any search can read before its deadline.
    with (root / "pub" / "huge.md").open("wb") as huge:
        huge.truncate(64 * 2**30)
    env = {pages.ENV_RIPGREP: "none"}
    with fs_server(root, env, "--search-timeout", "1") as client:
        for regex in (False, True):
            arguments = {"pattern": "never-there", "regex": regex, "publication": "pub"}
            message = error_text(call(client, "search_text", arguments))
            assert "time limit (1 s)" in message, regex
        # The search was stopped, not left running: the server answers at once.
        assert structured(call(client, "read_file", {"path": "pub/a.md"}))["line_end"] == 3


# --- item 8: a damaged bundle, and any failure, is reported with its reason ---------------------

GENERIC = "Error executing tool search_docs"


def resealed_copy(bundle: Path, target: Path, rel: str) -> Path:
    """A copy of ``bundle`` with an invalid UTF-8 byte in ``rel`` and a manifest re-hashed to
    match, so the damage passes the hash check and shows only when the file is used."""
    shutil.copytree(bundle, target)
    path = target / rel
    data = bytearray(path.read_bytes())
    data[len(data) // 2] = 0xFF
    path.write_bytes(bytes(data))
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"][rel].update(sha256=sha256_file(path), size=path.stat().st_size)
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target


def test_a_damaged_bundle_is_reported_with_its_reason(hash_bundle: Path, tmp_path: Path) -> None:
    damaged = resealed_copy(hash_bundle, tmp_path / "damaged", "keyword/vocab.txt")
    with stdio_client_for(["atlas-mcp", "--bundle", str(damaged)]) as client:
        result = call(client, "search_docs", {"query": "find assets", "mode": "keyword"})
        message = error_text(result)
        # The reason, not the SDK's bare "Error executing tool search_docs".
        assert message.strip() != GENERIC and len(message) > len(GENERIC) + 20, message
        assert "Traceback" not in message
        # The server keeps serving what does not need the damaged file.
        assert structured(call(client, "list_publications"))["count"] >= 1


@pytest.fixture
def in_process(hash_bundle: Path) -> Any:
    """The real server object, connected in-process through the SDK client: the only way to make
    the engine itself raise on demand (monkeypatched below) while the host handles it."""
    server = build_server(ServerOptions(bundles=(str(hash_bundle),)))
    return lambda: Client(server, mode="legacy")


async def test_bundle_errors_reach_the_client_as_message_and_hint(
    in_process: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def damaged(*args: object, **kwargs: object) -> None:
        raise BundleError(
            "keyword/vocab.txt: line 7 is not UTF-8", hint="run `atlas verify` on the bundle"
        )

    for method in ("search", "lookup"):
        monkeypatch.setattr(Engine, method, damaged)
    async with in_process() as client:
        for name, arguments in (
            ("search_docs", {"query": "assets"}),
            ("search_code", {"query": "assets"}),
            ("lookup_identifier", {"identifier": "findAssets"}),
        ):
            result = await client.call_tool(name, arguments)
            assert result.is_error, name
            text = result.content[0].text
            assert "keyword/vocab.txt: line 7 is not UTF-8" in text, text
            assert "atlas verify" in text, text


async def test_unexpected_errors_are_logged_and_named(
    in_process: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise IndexError("index 99 is out of bounds for axis 0 with size 10")

    monkeypatch.setattr(Engine, "search", broken)
    async with in_process() as client:
        result = await client.call_tool("search_docs", {"query": "assets"})
        assert result.is_error
        text = result.content[0].text
        assert "search_docs failed" in text and "IndexError" in text, text
        assert "Traceback" not in text and 'File "' not in text
        # The server keeps serving.
        assert not (await client.call_tool("get_bundle_info", {})).is_error
    failures = [r for r in caplog.records if r.levelname == "ERROR" and r.exc_info]
    assert failures and "search_docs" in failures[0].getMessage()
    assert failures[0].exc_info[0] is IndexError


# --- item 6: every request gets an answer, stdio and HTTP ----------------------------------------

PING = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}'
DEEP = b"[" * 100_000 + b"]" * 100_000
# (name, raw message, the id the error must carry, its code); None as code: no answer at all.
MALFORMED: list[tuple[str, bytes, Any, int | None]] = [
    (
        "lone surrogate in a string",
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
        b'"params":{"name":"read_file","arguments":{"path":"\\ud800"}}}',
        1,
        -32700,
    ),
    ("lone surrogate as the id", b'{"jsonrpc":"2.0","id":"\\udfff","method":"ping"}', None, -32700),
    (
        "invalid UTF-8 in a string",
        b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\xff\xfe"}}',
        2,
        -32700,
    ),
    (
        "invalid UTF-8 outside strings",
        b'{"jsonrpc":"2.0","id":3,"method":"ping"\xc0}',
        None,
        -32700,
    ),
    ("a batch", b"[" + PING % 4 + b"," + PING % 5 + b"]", None, -32600),
    ("an empty batch", b"[]", None, -32600),
    ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":6,"method":"ping"}', 6, -32600),
    ("no jsonrpc", b'{"id":7,"method":"ping"}', 7, -32600),
    (
        "100,000 nested arrays",
        b'{"jsonrpc":"2.0","id":8,"method":"ping","params":{"a":' + DEEP + b"}}",
        None,
        -32700,
    ),
    (
        "300 nested arrays",
        b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":' + b"[" * 300 + b"]" * 300 + b"}}",
        9,
        -32700,
    ),
    ("a number", b"42", None, -32600),
    ("a string", b'"ping"', None, -32600),
    ("null", b"null", None, -32600),
    ("not JSON", b"ping me", None, -32700),
    ("cut short", b'{"jsonrpc":"2.0","id":10,"method":"pi', None, -32700),
    (
        "params an array",
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":[1,2]}',
        11,
        -32602,
    ),
    ("params a string", b'{"jsonrpc":"2.0","id":12,"method":"ping","params":"x"}', 12, -32602),
    ("id an object", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', None, -32600),
    ("id null", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', None, -32600),
    ("id a float", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', None, -32600),
    ("method a number", b'{"jsonrpc":"2.0","id":13,"method":5}', 13, -32600),
    ("no method", b'{"jsonrpc":"2.0","id":14}', 14, -32600),
    ("an empty object", b"{}", None, -32600),
    ("bad notification", b'{"jsonrpc":"1.0","method":"notifications/initialized"}', None, None),
    ("notification with params []", b'{"jsonrpc":"2.0","method":"x","params":[1]}', None, None),
    ("bad response", b'{"jsonrpc":"2.0","id":15,"result":5}', None, None),
]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "adversary", "version": "0"},
    },
}


def assert_clean_error(answer: dict[str, Any], expected_id: Any, code: int) -> None:
    assert answer["jsonrpc"] == "2.0" and "result" not in answer, answer
    assert answer["id"] == expected_id, answer
    assert answer["error"]["code"] == code, answer
    text = json.dumps(answer)
    assert "Traceback" not in text and 'File "' not in text and len(text) < 600, text


class RawStdio:
    """The server as a subprocess, spoken to in raw bytes: what a broken client would send."""

    def __init__(self, mirror: Path) -> None:
        self.proc = subprocess.Popen(
            [str(BIN / "collibra-fs"), "--mirror", str(mirror)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(),
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        return json.loads(self.lines.get(timeout=CALL_TIMEOUT_S))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except Exception:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def raw_stdio(hostile_mirror: Path) -> Iterator[RawStdio]:
    server = RawStdio(hostile_mirror)
    server.send(json.dumps(INITIALIZE).encode())
    assert server.answer()["id"] == 0
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield server
    server.close()
    assert server.proc.returncode == 0


@pytest.mark.parametrize(
    ("raw", "expected_id", "code"), [pytest.param(*case[1:], id=case[0]) for case in MALFORMED]
)
def test_stdio_answers_every_malformed_request(
    raw_stdio: RawStdio, raw: bytes, expected_id: Any, code: int | None
) -> None:
    raw_stdio.send(raw)
    raw_stdio.send(PING % 1000)  # answered after the error, or first when none is due
    if code is not None:
        assert_clean_error(raw_stdio.answer(), expected_id, code)
    assert raw_stdio.answer() == {"jsonrpc": "2.0", "id": 1000, "result": {}}


def test_stdio_refuses_a_message_over_the_size_limit(raw_stdio: RawStdio) -> None:
    huge = b'{"jsonrpc":"2.0","id":20,"method":"ping","params":{"x":"' + b"a" * MAX_MESSAGE_BYTES
    raw_stdio.send(huge + b'"}}')
    raw_stdio.send(PING % 1001)
    assert_clean_error(raw_stdio.answer(), None, -32600)
    assert raw_stdio.answer()["id"] == 1001


HTTP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def fs_http_server(mirror: Path, *extra: str) -> HttpServer:
    return HttpServer(["--tools", "fs", "--mirror", str(mirror), *extra])


def post(url: str, body: bytes | dict[str, Any], **headers: str) -> httpx2.Response:
    content = json.dumps(body).encode() if isinstance(body, dict) else body
    return httpx2.post(
        url, content=content, headers={**HTTP_HEADERS, **headers}, timeout=CALL_TIMEOUT_S
    )


def open_session(url: str, **headers: str) -> str:
    response = post(url, INITIALIZE, **headers)
    assert response.status_code == 200, response.text
    session = response.headers["mcp-session-id"]
    done = post(
        url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **in_session(session)
    )
    assert done.status_code == 202
    return session


def in_session(session: str) -> dict[str, str]:
    return {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}


def ping(url: str, session: str, request_id: int = 1000) -> httpx2.Response:
    return post(
        url, b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % request_id, **in_session(session)
    )


@pytest.fixture(scope="module")
def http_server(hostile_mirror: Path) -> Iterator[HttpServer]:
    with fs_http_server(hostile_mirror) as running:
        yield running


@pytest.mark.parametrize(
    ("raw", "expected_id", "code"), [pytest.param(*case[1:], id=case[0]) for case in MALFORMED]
)
def test_http_answers_every_malformed_request(
    http_server: HttpServer, raw: bytes, expected_id: Any, code: int | None
) -> None:
    session = open_session(http_server.url)
    for headers in (in_session(session), {}, {"mcp-protocol-version": "2026-07-28"}):
        response = post(http_server.url, raw, **headers)
        assert response.status_code == 400, (headers, response.text)
        # An HTTP request always gets an answer; for a notification or a response it has no id.
        assert_clean_error(response.json(), expected_id, code or response.json()["error"]["code"])
    assert ping(http_server.url, session).status_code == 200


def test_http_refuses_a_body_over_the_size_limit(http_server: HttpServer) -> None:
    session = open_session(http_server.url)
    huge = b'{"jsonrpc":"2.0","id":20,"method":"ping","params":{"x":"' + b"a" * MAX_MESSAGE_BYTES
    response = post(http_server.url, huge + b'"}}', **in_session(session))
    assert response.status_code == 413
    assert ping(http_server.url, session).status_code == 200


# --- item 10: HTTP limits: who may call, how many sessions, how slow ----------------------------


def can_bind(host: str) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, 0))
        except OSError:
            return False
    return True


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2"])
def test_every_loopback_bind_checks_host_and_origin(hostile_mirror: Path, host: str) -> None:
    if not can_bind(host):
        pytest.skip(f"{host} is not usable here (only Linux routes all of 127/8 to loopback)")
    with fs_http_server(hostile_mirror, "--host", host) as server:
        port = server.url.split(":")[2].split("/")[0]
        assert server.url.startswith(f"http://{host}:")
        for headers in (
            {"Host": "evil.example"},
            {"Host": f"evil.example:{port}"},
            {"Host": f"{host}.evil.example:{port}"},
            {"Origin": "http://evil.example"},
            {"Origin": f"http://evil.example:{port}"},
            {"Origin": "null"},
            {"Host": "evil.example", "Origin": "http://evil.example"},
        ):
            response = post(server.url, INITIALIZE, **headers)
            assert response.status_code in (403, 421), (headers, response.status_code)
            assert "mcp-session-id" not in response.headers
        for headers in (
            {},
            {"Host": f"localhost:{port}"},
            {"Host": f"127.0.0.1:{port}"},
            {"Origin": f"http://localhost:{port}"},
            {"Origin": "http://127.0.0.1:6274"},
            {"Origin": "http://localhost"},
        ):
            assert post(server.url, INITIALIZE, **headers).status_code == 200, headers


def test_sessions_are_capped_least_recently_used_first(hostile_mirror: Path) -> None:
    with fs_http_server(hostile_mirror, "--max-sessions", "4") as server:
        sessions = [open_session(server.url) for _ in range(4)]
        # Used again: now the most recently used, so it outlives the three after it.
        assert ping(server.url, sessions[0]).status_code == 200
        sessions += [open_session(server.url) for _ in range(3)]
        alive = {s for s in sessions if ping(server.url, s).status_code == 200}
        assert alive == {sessions[0], *sessions[-3:]}
        # Ended: the spec's answer is 404, and the client initializes again.
        assert ping(server.url, sessions[1]).status_code == 404
        # A flood of initialize calls never grows the live set past the cap.
        flood = [open_session(server.url) for _ in range(40)]
        assert {s for s in flood if ping(server.url, s).status_code == 200} == set(flood[-4:])
        assert all(ping(server.url, s).status_code == 404 for s in sessions)


def test_idle_sessions_expire(hostile_mirror: Path) -> None:
    with fs_http_server(hostile_mirror, "--session-idle-timeout", "1") as server:
        session = open_session(server.url)
        # Each check is itself a request; the growing pauses outlast the timeout in the end.
        for pause in (1.5, 3, 6, 12):
            time.sleep(pause)
            status = ping(server.url, session).status_code
            if status == 404:
                break
        assert status == 404
        assert ping(server.url, open_session(server.url)).status_code == 200


def connect(url: str) -> socket.socket:
    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=CALL_TIMEOUT_S)


def closed_by_server(sock: socket.socket, trickle: bytes = b"") -> bytes:
    """Everything the server sent until it closed the connection; a hang fails the test. With
    ``trickle``, one more byte of it is sent every 0.2 s meanwhile (a slowloris)."""
    received = b""
    sock.settimeout(0.2 if trickle else CALL_TIMEOUT_S)
    deadline = time.monotonic() + CALL_TIMEOUT_S
    position = 0
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            if position < len(trickle):
                try:
                    sock.sendall(trickle[position : position + 1])
                except OSError:
                    return received
                position += 1
            continue
        except (ConnectionResetError, BrokenPipeError):
            return received
        if not chunk:
            return received
        received += chunk
    pytest.fail(f"the server kept the connection open for {CALL_TIMEOUT_S} s")


def test_slow_requests_are_cut_off_and_others_are_served(hostile_mirror: Path) -> None:
    with fs_http_server(hostile_mirror, "--header-timeout", "2", "--body-timeout", "2") as server:
        host = server.url.split("//")[1].split("/")[0]
        half_headers = f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Ty".encode()
        body_head = json.dumps(INITIALIZE).encode()
        half_body = (
            f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n"
            f"Content-Length: {len(body_head) + 100}\r\n\r\n"
        ).encode() + body_head
        silent, headers, body = connect(server.url), connect(server.url), connect(server.url)
        headers.sendall(half_headers)
        body.sendall(half_body)
        # While those hang on, other clients are served.
        session = open_session(server.url)
        assert ping(server.url, session).status_code == 200
        assert closed_by_server(silent) == b""
        assert closed_by_server(headers).startswith(b"HTTP/1.1 408")
        assert b"200 OK" not in closed_by_server(body)
        # Bytes that keep trickling in do not extend the deadline.
        slowloris = connect(server.url)
        slowloris.sendall(b"POST /mcp HTTP/1.1\r\n")
        closed_by_server(slowloris, trickle=b"X-Padding: " + b"a" * 10_000)
        assert ping(server.url, session).status_code == 200
