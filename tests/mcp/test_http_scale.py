"""Stateless streamable HTTP, several workers on one port, health endpoints and early 413s."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from atlas_core.distribution.install import flip_current
from atlas_core.distribution.local import install_path
from atlas_ls.mcp.context import AppContext, AppSlot
from atlas_ls.mcp.options import ServerOptions
from atlas_ls.mcp.transport.health import Health
from tests.mcp_client import BIN, HttpServer, http_client_for, server_env, structured, wait_for
from tests.reload_support import build_release

HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}
TOKEN = "test-token-0123456789abcdef"
AUTHORIZED = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
SEARCH = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "search_docs", "arguments": {"query": "find assets", "mode": "keyword"}},
}


def base(url: str) -> str:
    return url.rsplit("/", 1)[0]


def ready(url: str) -> httpx2.Response:
    # A new connection each time: the kernel may hand it to any worker.
    return httpx2.get(base(url) + "/readyz", headers={"Connection": "close"}, timeout=30)


def ready_answer(url: str) -> dict[str, Any]:
    """What /readyz answers once ready; {} (falsy) before."""
    response = ready(url)
    return response.json() if response.status_code == 200 else {}


def ready_pid(url: str) -> int | None:
    try:
        response = ready(url)
    except httpx2.TransportError:
        return None
    return response.json()["pid"] if response.status_code == 200 else None


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """An install root serving release v1, and release v2 built elsewhere: (root, v1, v2)."""
    base_dir = tmp_path_factory.mktemp("scale")
    root = base_dir / "install"
    v1, v2 = build_release(root, "v1"), build_release(base_dir / "build", "v2")
    flip_current(root, v1)
    return root, v1, v2


@pytest.fixture(scope="module")
def workers(releases: tuple[Path, Path, Path]) -> Iterator[HttpServer]:
    """Two stateless workers on one port serving release v1, behind a bearer token. Later tests
    swap the bundle and kill a worker."""
    args = ["--bundle", str(releases[0] / "current"), "--stateless", "--workers", "2"]
    with HttpServer(args, env={"ATLAS_MCP_TOKEN": TOKEN}) as running:
        yield running


def test_stateless_answers_with_json_and_no_session(workers: HttpServer) -> None:
    assert "(stateless) with 2 workers" in "".join(workers.stderr)
    wait_for(lambda: ready_pid(workers.url))
    response = httpx2.post(workers.url, json=SEARCH, headers=AUTHORIZED, timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert "mcp-session-id" not in response.headers
    answer = response.json()
    assert answer["id"] == 7 and answer["result"]["structuredContent"]["hits"]
    bad = {**SEARCH, "params": {"name": "search_docs", "arguments": {"query": 5}}}
    refused = httpx2.post(workers.url, json=bad, headers=AUTHORIZED, timeout=30).json()
    assert refused["error"]["code"] == -32602 and "query" in refused["error"]["message"]
    notice = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx2.post(workers.url, json=notice, headers=AUTHORIZED, timeout=30).status_code == 202
    # The SDK's own client: initialize, list and call, each request standing alone.
    with http_client_for(workers.url, {"Authorization": f"Bearer {TOKEN}"}) as client:
        assert client.init.server_info.name == "atlas"
        assert "search_docs" in {t.name for t in client.run(lambda s: s.list_tools()).tools}
        hits = structured(client.call("search_docs", {"query": "find assets", "mode": "keyword"}))
        assert hits["hits"][0]["file"] == answer["result"]["structuredContent"]["hits"][0]["file"]


def test_readiness_names_the_bundle_and_probes_need_no_token(
    workers: HttpServer, releases: tuple[Path, Path, Path]
) -> None:
    served = wait_for(lambda: ready_answer(workers.url))
    (bundle,) = served["bundles"]
    assert Path(bundle["path"]).resolve() == releases[1].resolve()
    assert bundle["name"] and bundle["built_at"]
    assert bundle["demo"] is False
    health = httpx2.get(base(workers.url) + "/healthz", timeout=30)
    assert health.status_code == 200 and health.json()["status"] == "ok"
    # The MCP endpoint itself still wants the token.
    assert httpx2.post(workers.url, json=SEARCH, headers=HEADERS, timeout=30).status_code == 401


def test_oversized_body_is_refused_before_it_is_read(workers: HttpServer) -> None:
    host, port = base(workers.url).removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
            "Content-Type: application/json\r\nAccept: application/json\r\n"
            "Content-Length: 100000000\r\n\r\n".encode()  # and not one byte of the body
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += conn.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413")
    assert b"connection: close" in answer.lower()


def test_not_ready_without_a_valid_bundle(tmp_path: Path) -> None:
    """The readiness a worker's /readyz answers, driven in-process: a failed load is 503."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json", encoding="utf-8")
    slot = AppSlot()
    assert slot.readiness() == (False, {"reason": "starting"})
    slot.app = AppContext(options=ServerOptions(bundles=(str(broken),), transport="http"))
    assert slot.readiness() == (False, {"reason": "loading the bundle"})
    slot.app.load()
    slot.app.ready.set()
    sent: list[dict[str, Any]] = []

    async def probe() -> None:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Any) -> None:
            sent.append(message)

        async def app(scope: Any, receive: Any, send: Any) -> None:
            raise AssertionError("a probe never reaches the MCP app")

        scope = {"type": "http", "method": "GET", "path": "/readyz", "headers": []}
        await Health(app, slot.readiness)(scope, receive, send)

    asyncio.run(probe())
    assert sent[0]["status"] == 503
    answer = json.loads(sent[1]["body"])
    assert answer["status"] == "not ready" and "no valid docs bundle" in answer["reason"]
    assert str(broken) in answer["reason"] or "manifest" in answer["reason"]
    slot.app.close()


def test_a_new_bundle_reaches_every_worker(
    workers: HttpServer, releases: tuple[Path, Path, Path]
) -> None:
    root, _, v2 = releases
    install_path(v2, root)  # verify, snapshot v1, flip `current`
    swapped: set[int] = set()

    def both_swapped() -> bool:
        response = ready(workers.url)
        if response.status_code == 200 and response.json()["reloaded_at"]:
            swapped.add(response.json()["pid"])
        return len(swapped) == 2

    wait_for(both_swapped, 60, 0)
    answer = httpx2.post(workers.url, json=SEARCH, headers=AUTHORIZED, timeout=30).json()
    assert "Release v2" in answer["result"]["content"][0]["text"]


def test_a_killed_worker_is_replaced_while_the_other_serves(workers: HttpServer) -> None:
    assert workers.proc is not None
    seen: set[int] = set()
    wait_for(lambda: seen.add(ready_pid(workers.url) or 0) or len(seen - {0}) == 2, 60, 0)
    first, second = sorted(seen - {0})
    os.kill(first, signal.SIGKILL)
    # The other worker keeps answering while the supervisor starts a third.
    response = httpx2.post(workers.url, json=SEARCH, headers=AUTHORIZED, timeout=30)
    assert response.status_code == 200 and response.json()["result"]["structuredContent"]
    seen.clear()
    wait_for(lambda: seen.add(ready_pid(workers.url) or 0) or len(seen - {0, second}) == 1, 60, 0)
    assert first not in seen
    running = (seen - {0}) | {second}
    workers.proc.send_signal(signal.SIGTERM)
    assert workers.proc.wait(30) == 0
    for pid in running:
        wait_for(lambda pid=pid: not _alive(pid), 15)
    assert "was killed by SIGKILL" in "".join(workers.stderr)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_workers_need_stateless_http() -> None:
    done = subprocess.run(
        [str(BIN / "atlas-mcp"), "--transport", "http", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
        env=server_env(),
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(
        "atlas-mcp: error: --workers 2 needs --transport http --stateless"
    )
    assert "hint:" in done.stderr
