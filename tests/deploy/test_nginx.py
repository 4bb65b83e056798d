"""deploy/nginx.conf in front of two real Atlas MCP servers (stateless, like pods): a burst of
concurrent calls all answered and spread over both, probes passed through, an oversized body
refused before it is read, and a server killed mid-burst failing only what it had in flight.

Skips when nginx is not installed (Debian: apt-get install -y nginx; .ci/run installs it)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from atlas_ls.mcp.auth import ENV_TOKEN
from tests.deploy.conftest import TOKEN
from tests.deploy.proxy import (
    NGINX_CONF,
    POD_ADDRESSES,
    Nginx,
    Pods,
    free_pod_port,
    nginx_binary,
    start_pods,
)
from tests.mcp_client import http_client_for, structured, wait_for

HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
    "Authorization": f"Bearer {TOKEN}",
}
WORKER = "x-atlas-worker"  # the pid of the Atlas process that answered
QUERIES = ("find assets", "change a domain", "import a community", "add an attribute")


@pytest.fixture(scope="module")
def nginx() -> str:
    binary = nginx_binary()
    if binary is None:
        pytest.skip("nginx is not installed (Debian: apt-get install -y nginx)")
    return binary


@pytest.fixture(scope="module")
def proxy(nginx: str, pod_pool: Pods, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Nginx]:
    with Nginx(nginx, pod_pool, tmp_path_factory.mktemp("nginx")) as running:
        yield running


def call(i: int) -> dict[str, Any]:
    arguments = {"query": QUERIES[i % len(QUERIES)], "mode": "keyword", "top_k": 3}
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": arguments},
    }


@dataclass(frozen=True, slots=True)
class Answer:
    status: int  # the HTTP status, 0 when the response broke off
    pid: str | None  # the Atlas process that answered
    sent: float  # time.monotonic() before the request went out
    done: float  # and once its answer was read (or failed)


async def burst(url: str, ids: range, concurrency: int) -> list[Answer]:
    """POST `search_docs` keyword calls, `concurrency` at a time."""
    limit = asyncio.Semaphore(concurrency)
    async with httpx2.AsyncClient(timeout=60) as client:

        async def one(i: int) -> Answer:
            async with limit:
                sent = time.monotonic()
                try:
                    response = await client.post(url, json=call(i), headers=HEADERS)
                except httpx2.HTTPError:
                    return Answer(0, None, sent, time.monotonic())
            done = time.monotonic()
            if response.status_code != 200:
                return Answer(response.status_code, None, sent, done)
            result = response.json()["result"]
            assert not result["isError"] and result["structuredContent"]["hits"], result
            return Answer(200, response.headers.get(WORKER), sent, done)

        return list(await asyncio.gather(*(one(i) for i in ids)))


def test_a_burst_through_the_proxy_is_all_answered_by_both_servers(
    proxy: Nginx, pods: Pods
) -> None:
    answers = asyncio.run(burst(proxy.url(), range(48), concurrency=16))
    assert [a.status for a in answers] == [200] * 48
    assert {a.pid for a in answers} == {str(pods.pid(0)), str(pods.pid(1))}
    upstreams = {row[1] for row in proxy.access_log() if row[3] == "POST"}
    assert upstreams == {f"{address}:{pods.port}" for address in pods.addresses}


def test_an_mcp_client_works_through_the_proxy(proxy: Nginx) -> None:
    with http_client_for(proxy.url(), {"Authorization": f"Bearer {TOKEN}"}) as client:
        names = {tool.name for tool in client.run(lambda s: s.list_tools()).tools}
        assert "search_docs" in names
        hits = structured(client.call("search_docs", {"query": "find assets", "top_k": 2}))
        assert hits["hits"]


def test_probes_pass_through_the_proxy(proxy: Nginx, hash_bundle: Path) -> None:
    assert httpx2.get(proxy.url("/healthz"), timeout=10).status_code == 200
    ready = httpx2.get(proxy.url("/readyz"), timeout=10)
    assert ready.status_code == 200, ready.text
    assert str(hash_bundle) in json.dumps(ready.json())


def test_an_oversized_body_is_refused_by_the_proxy_before_it_is_read(proxy: Nginx) -> None:
    # Headers only: a 5 MiB body is announced and never sent, so an answer proves nothing waited
    # for it, and no upstream is contacted.
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{proxy.port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {5 * 1024 * 1024}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(head.encode("ascii"))
        answer = sock.recv(4096).decode("latin-1")
    assert answer.startswith("HTTP/1.1 413"), answer[:200]
    # nginx logs a request when it frees it, which can be just after the answer is sent (it
    # lingers to drain the unsent body until the client closes): wait for the row.
    refused = wait_for(lambda: [row for row in proxy.access_log() if row[0] == "413"], timeout=15)
    assert refused[-1][1] == "-"


def test_a_server_killed_mid_burst_fails_only_its_requests_in_flight(
    nginx: str, pods: Pods, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A proxy of its own, whose log holds this burst only. The killed server is started again
    # for any test that needs it afterwards (the `pods` fixture).
    with Nginx(nginx, pods, tmp_path_factory.mktemp("nginx-kill")) as proxy:
        asyncio.run(kill_mid_burst(proxy, pods))


async def kill_mid_burst(proxy: Nginx, pods: Pods) -> None:
    doomed = pods.servers[1].proc
    assert doomed is not None
    killed_upstream = f"{pods.addresses[1]}:{pods.port}"
    first = asyncio.create_task(burst(proxy.url(), range(80), concurrency=16))
    # Once answers flow from the doomed server, kill it while the burst goes on.
    while not any(row[1] == killed_upstream for row in proxy.access_log()):
        assert not first.done(), "the burst never reached the second server"
        await asyncio.sleep(0.01)
    killed = time.monotonic()
    doomed.send_signal(signal.SIGKILL)
    await asyncio.to_thread(doomed.wait)
    dead = time.monotonic()
    answers = await first
    # Only requests in flight while the server died can fail: a POST already sent is never
    # replayed, and one sent afterwards goes to the other server.
    failed = [a for a in answers if a.status != 200]
    assert all(a.sent < dead and a.done > killed for a in failed), failed
    assert len(failed) <= 16 and all(a.status in (0, 502) for a in failed), failed
    # nginx's log agrees: every 502 came from the killed server, none from the one left.
    bad_gateway = [row for row in proxy.access_log() if row[0] == "502"]
    assert all(row[1].split(", ")[-1] == killed_upstream for row in bad_gateway), bad_gateway
    assert len(bad_gateway) == sum(a.status == 502 for a in failed)
    # From now on every request goes to the server that is left, the first one included.
    after = await burst(proxy.url(), range(1000, 1032), concurrency=16)
    assert [a.status for a in after] == [200] * 32
    assert {a.pid for a in after} == {str(pods.pid(0))}


# --- safe defaults: loopback, the token and the client's Host reach Atlas, bounded buffers --------


def directives(name: str) -> list[str]:
    """The arguments of every `name ...;` directive in the shipped config, comments left out."""
    text = "\n".join(line.split("#", 1)[0] for line in NGINX_CONF.read_text().splitlines())
    return [m.strip() for m in re.findall(rf"(?m)^\s*{name}\s+([^;]*);", text)]


def size(value: str) -> int:
    units = {"k": 1024, "m": 1024 * 1024}
    return int(value[:-1]) * units[value[-1].lower()] if value[-1].isalpha() else int(value)


def test_the_shipped_config_listens_on_loopback_and_keeps_host_and_token() -> None:
    listens = directives("listen")
    assert listens and all(v.startswith("127.0.0.1:") or " ssl" in v for v in listens), listens
    hosts = [v for v in directives("proxy_set_header") if v.split()[0].lower() == "host"]
    assert hosts == ["Host $host"] * len(directives("proxy_pass")), hosts
    assert "Authorization $http_authorization" in directives("proxy_set_header")


def test_the_shipped_config_bounds_what_it_holds_in_memory() -> None:
    (connections,) = directives("worker_connections")
    (body_buffer,) = directives("client_body_buffer_size")
    (max_body,) = directives("client_max_body_size")
    (buffers,) = directives("proxy_buffers")
    count, each = buffers.split()
    assert size(max_body) <= 4 * 1024 * 1024  # Atlas's own limit
    assert size(body_buffer) <= 64 * 1024 < size(max_body)  # larger bodies spill to a file
    # Per nginx worker process: request bodies, then answers, held in memory at worst.
    assert int(connections) * size(body_buffer) <= 64 * 1024 * 1024
    assert int(connections) * int(count) * size(each) <= 256 * 1024 * 1024


def test_a_request_without_the_token_is_refused_by_atlas_through_the_proxy(proxy: Nginx) -> None:
    anonymous = {k: v for k, v in HEADERS.items() if k != "Authorization"}
    response = httpx2.post(proxy.url(), json=call(1), headers=anonymous, timeout=30)
    assert response.status_code == 401, response.text
    assert response.json()["error"] == "invalid_token"
    wrong = {**HEADERS, "Authorization": "Bearer not-the-token-at-all"}
    assert httpx2.post(proxy.url(), json=call(2), headers=wrong, timeout=30).status_code == 401


def test_a_foreign_host_is_refused_by_atlas_through_the_proxy(proxy: Nginx) -> None:
    # A DNS-rebinding page reaches the proxy under its own name: Atlas sees that name and refuses.
    foreign = {**HEADERS, "Host": f"rebound.example:{proxy.port}"}
    response = httpx2.post(proxy.url(), json=call(3), headers=foreign, timeout=30)
    assert response.status_code == 421, response.text
    # Atlas's answer, passed on (nginx may log the row just after the answer goes out).
    refused = wait_for(lambda: [row for row in proxy.access_log() if row[0] == "421"], timeout=15)
    # The upstream that answered (the last nginx tried: a worker an earlier test killed may come
    # first in the list, as "502, 421") is Atlas refusing the host.
    assert refused[-1][2].split(", ")[-1] == "421"
    assert httpx2.post(proxy.url(), json=call(4), headers=HEADERS, timeout=30).status_code == 200


# --- a worker killed mid-request --------------------------------------------------------------------

SLOW_PATTERN = "(a+)+$"  # backtracks for as long as --search-timeout lets it, on the line below


def child_pids(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while we looked
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_worker_killed_mid_request_gets_a_json_rpc_502_from_the_proxy(
    nginx: str, hash_bundle: Path, tmp_path: Path
) -> None:
    """Workers accept their connections themselves, so nothing in Atlas can answer for one that is
    killed; the proxy does. The request is known to be in flight, not merely sent: the worker has
    started the text search child that is answering it."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "slow.md").write_text("# Slow\n\n" + "a" * 40 + "!\n", encoding="utf-8")
    address = POD_ADDRESSES[2:3]
    extra = ("--workers", "2", "--mirror", str(mirror), "--search-timeout", "120")
    env = {ENV_TOKEN: TOKEN, "ATLAS_RIPGREP": "none"}
    pods = start_pods(hash_bundle, address, free_pod_port(address), extra, env)
    try:
        with Nginx(nginx, pods, tmp_path / "nginx") as proxy:
            slow = {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tools/call",
                "params": {
                    "name": "search_text",
                    "arguments": {"pattern": SLOW_PATTERN, "regex": True},
                },
            }
            with ThreadPoolExecutor(1) as pool:
                pending = pool.submit(
                    httpx2.post, proxy.url(), json=slow, headers=HEADERS, timeout=120
                )
                workers = child_pids(pods.pid(0))
                busy = wait_for(lambda: [(w, c) for w in workers for c in child_pids(w)], 60)
                ((worker, search),) = busy
                os.kill(worker, signal.SIGKILL)
                os.kill(search, signal.SIGKILL)  # its orphaned search would spin to the deadline
                response = pending.result()
        assert response.status_code == 502, response.text
        assert response.headers["content-type"] == "application/json"
        answer = response.json()
        assert answer["jsonrpc"] == "2.0" and answer["id"] is None
        assert answer["error"]["code"] == -32603 and "not retried" in answer["error"]["message"]
        # The supervisor replaced the worker and the next call is answered.
        again = wait_for(
            lambda: httpx2.post(pods.url(0), json=call(5), headers=HEADERS).status_code == 200
        )
        assert again
    finally:
        pods.stop()
