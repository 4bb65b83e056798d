"""Streamable HTTP on 127.0.0.1: the SDK client, concurrency, and bearer-token auth."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from atlas_core.errors import ConfigError
from atlas_ls.mcp.auth import ENV_TOKEN, is_loopback, required_token
from tests.mcp_client import BIN, HttpServer, error_text, http_client_for, server_env, structured

TOKEN = "test-token-0123456789abcdef"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server(hash_bundle: Path) -> Iterator[HttpServer]:
    with HttpServer(["--bundle", str(hash_bundle)]) as running:
        yield running


def test_tools_over_http(server: HttpServer, hash_bundle: Path) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    with http_client_for(server.url) as client:
        names = {t.name for t in client.run(lambda s: s.list_tools()).tools}
        assert {"search_docs", "read_file", "search_text"} <= names
        hits = structured(client.call("search_docs", {"query": "find assets", "top_k": 2}))["hits"]
        assert hits and hits[0]["file"] and hits[0]["line_start"] >= 1
        read = structured(client.call("read_file", {"path": hits[0]["file"], "max_lines": 3}))
        assert read["line_end"] == 3
        assert "'..'" in error_text(client.call("read_file", {"path": "../../etc/passwd"}))
        resources = client.run(lambda s: s.list_resources()).resources
        assert len(resources) == 10


def test_fifty_concurrent_calls_over_http(server: HttpServer) -> None:
    calls = [
        ("search_docs", {"query": f"{word} assets", "top_k": 2})
        for word in ("find", "change", "add", "domain", "import")
    ] + [("search_text", {"pattern": "domain", "max_results": 3}), ("list_publications", {})]
    with http_client_for(server.url) as client:
        expected = [client.call(name, args).structured_content for name, args in calls]

        async def burst(session: Any) -> list[Any]:
            n = len(calls)
            return await asyncio.gather(*(session.call_tool(*calls[i % n]) for i in range(50)))

        answers = client.run(burst, timeout=180)
    assert [a.structured_content for a in answers] == [expected[i % len(calls)] for i in range(50)]


def test_plain_http_without_a_token_is_allowed_on_loopback(server: HttpServer) -> None:
    response = httpx2.post(server.url, json=INITIALIZE, headers=HEADERS, timeout=30)
    assert response.status_code == 200


def test_token_is_enforced_when_set(hash_bundle: Path) -> None:
    with HttpServer(["--bundle", str(hash_bundle)], env={ENV_TOKEN: TOKEN}) as secured:
        assert "bearer token required" in "".join(secured.stderr)
        for headers in (
            {},
            {"Authorization": "Bearer wrong-token-0123456789"},
            {"Authorization": TOKEN},
        ):
            response = httpx2.post(
                secured.url, json=INITIALIZE, headers={**HEADERS, **headers}, timeout=30
            )
            assert response.status_code == 401, headers
            assert response.headers["www-authenticate"].startswith("Bearer")
            assert ENV_TOKEN in response.json()["error_description"]
        ok = httpx2.post(
            secured.url,
            json=INITIALIZE,
            headers={**HEADERS, "Authorization": f"Bearer {TOKEN}"},
            timeout=30,
        )
        assert ok.status_code == 200
        with http_client_for(secured.url, {"Authorization": f"Bearer {TOKEN}"}) as client:
            assert structured(client.call("list_publications"))["count"] >= 4


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--host", "0.0.0.0"], {}, "--allow-remote"),
        (["--host", "0.0.0.0", "--allow-remote"], {}, f"{ENV_TOKEN} is not set"),
        (["--host", "0.0.0.0", "--allow-remote"], {ENV_TOKEN: "short"}, "16 or more"),
        (["--port", "70000"], {}, "not a port number"),
        (["--allowed-host", "https://atlas.example.com/"], {}, "is not a host name"),
    ],
)
def test_unsafe_or_bad_binds_refuse_to_start(args: list[str], env: dict, message: str) -> None:
    environment = server_env(env)
    if ENV_TOKEN not in env:
        environment.pop(ENV_TOKEN, None)
    done = subprocess.run(
        [str(BIN / "atlas-mcp"), "--transport", "http", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
    )
    assert done.returncode == 2
    assert message in done.stderr and done.stdout == ""
    assert done.stderr.startswith("atlas-mcp: error:")


def test_an_allowed_host_joins_the_host_check_and_others_stay_refused(hash_bundle: Path) -> None:
    """What a proxy in front passes on: its public name is accepted, any other name is not."""
    args = ["--bundle", str(hash_bundle), "--allowed-host", "docs.example.test"]
    with HttpServer(args) as proxied:
        for host, status in (("docs.example.test", 200), ("docs.example.test:8443", 200)):
            response = httpx2.post(
                proxied.url, json=INITIALIZE, headers={**HEADERS, "Host": host}, timeout=30
            )
            assert response.status_code == status, host
        foreign = httpx2.post(
            proxied.url, json=INITIALIZE, headers={**HEADERS, "Host": "evil.test"}, timeout=30
        )
        assert foreign.status_code == 421


def test_port_in_use_is_a_clear_error(server: HttpServer) -> None:
    port = server.url.rsplit(":", 1)[1].split("/")[0]
    done = subprocess.run(
        [str(BIN / "atlas-mcp"), "--transport", "http", "--port", port],
        capture_output=True,
        text=True,
        timeout=60,
        env=server_env(),
    )
    assert done.returncode == 2 and "cannot listen" in done.stderr


def test_token_rules() -> None:
    assert required_token("127.0.0.1", False, None) is None
    assert required_token("::1", False, TOKEN) == TOKEN
    assert required_token("10.1.2.3", True, TOKEN) == TOKEN
    with pytest.raises(ConfigError):
        required_token("10.1.2.3", False, TOKEN)
    assert is_loopback("localhost") and is_loopback("127.0.0.2") and not is_loopback("0.0.0.0")
