"""Class `mcp_wire`: malformed JSON-RPC to one `atlas-mcp` stdio process, and to one
`atlas-mcp --transport http` process for a share of the cases (raw POSTs in a live session).

Each case is one to three messages built from a real request (ping, tools/list, tools/call of
every tool, resources, prompts, initialize again, logging, cancellation, an unknown method, a
notification, a response) edited at the JSON level (jsonrpc version, id of every type and size,
method and params of the wrong type, nesting thousands deep, strings of megabytes, tool arguments
of the wrong type) and then maybe at the byte level (invalid UTF-8, lone surrogate escapes, cut
short, garbage, a batch, a bare scalar, a byte-order mark).

Clean: every message with a readable id gets exactly one answer with that id, every other
request at most one with id null, no answer carries a traceback, and a ping after the case is
answered. Over HTTP: no 5xx, no hang, and the same rule for the ids in the answer. Failure:
anything else, a server that stops answering (it is restarted), or a line that is not JSON.
"""

from __future__ import annotations

import http.client
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.fuzzing.core import StartError, Tally, Verdict, case_rng, drive
from benchmarks.fuzzing.mcp_messages import INITIALIZE, message
from benchmarks.fuzzing.peer import Expect, RawPeer, Reply, expect, judge, settled
from benchmarks.fuzzing.workspace import Workspace

CLASS = "mcp_wire"
DEFAULT_CASES = 300
TIMEOUT_S = 20.0
HTTP_SHARE = 0.25
BIN = Path(sys.executable).parent


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    messages, parts = [], []
    for k in range(rng.choice([1, 1, 1, 2, 3])):
        msg_id: Any = rng.choice([1000 * (index + 1) + k, f"c{index}-{k}"])
        raw, done = message(rng, msg_id)
        messages.append(raw)
        parts.append("+".join(done))
    transport = "http" if rng.random() < HTTP_SHARE else "stdio"
    return {
        "label": f"{transport}: {'; '.join(parts)}",
        "transport": transport,
        "messages": messages,
    }


# --- running ------------------------------------------------------------------------------------


class Stdio:
    def __init__(self, workspace: Workspace) -> None:
        self.args = [str(BIN / "atlas-mcp"), "--bundle", str(workspace.bundle())]
        self.log = workspace.root / "mcp_wire-stdio.log"
        self.peer: RawPeer | None = None
        self.restarts = 0

    def start(self) -> RawPeer:
        peer = RawPeer(self.args, lsp=False, log=self.log)
        peer.send(
            json.dumps(
                {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": INITIALIZE}
            ).encode()
        )
        if not peer.wait(lambda rs: any(r.id == "init" for r in rs), 60):
            peer.close()
            raise StartError(f"atlas-mcp did not initialize (see {self.log})")
        peer.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        return peer

    def run(self, index: int, messages: list[bytes], timeout: float) -> Verdict:
        if self.peer is None:
            self.peer = self.start()
        peer = self.peer
        start = peer.mark()
        expects = [expect(m) for m in messages]
        for raw in messages:
            peer.send(raw)
        ping = f"ping-{index}"
        peer.send(json.dumps({"jsonrpc": "2.0", "id": ping, "method": "ping"}).encode())
        due = [*expects, Expect("id", ping)]
        if not peer.wait(lambda replies: settled(due, replies[start:]), timeout):
            problem = judge(due, peer.since(start)) or "answers missing"
            self._restart()
            return Verdict.failure(f"after {timeout:g} s: {problem}")
        peer.wait(lambda rs: False, 0.05)  # a duplicate answer would come right after
        replies = peer.since(start)
        problem = judge(expects, replies, ignore=[ping])
        if problem:
            return Verdict.failure(problem)
        errors = any(isinstance(r.message, dict) and "error" in r.message for r in replies)
        return Verdict.refused() if errors else Verdict.accepted()

    def _restart(self) -> None:
        if self.peer is not None:
            self.peer.close()
        self.peer = None
        self.restarts += 1

    def close(self) -> None:
        if self.peer is not None:
            self.peer.close()


class Http:
    """One `atlas-mcp --transport http` and one live session, raw POSTs through http.client."""

    def __init__(self, workspace: Workspace) -> None:
        from tests.mcp_client import HttpServer

        try:
            self.server = HttpServer(["--bundle", str(workspace.bundle())]).__enter__()
        except RuntimeError as exc:
            raise StartError(str(exc)) from exc
        host_port = self.server.url.split("//")[1].split("/")[0]
        self.host, port = host_port.rsplit(":", 1)
        self.port = int(port)
        self.session = ""

    def post(
        self, body: bytes, timeout: float, **headers: str
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(
                "POST",
                "/mcp",
                body=body,
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                    **headers,
                },
            )
            response = conn.getresponse()
            return (
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            conn.close()

    def in_session(self) -> dict[str, str]:
        return {"mcp-session-id": self.session, "mcp-protocol-version": "2025-06-18"}

    def open_session(self, timeout: float) -> None:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": INITIALIZE}
        ).encode()
        status, headers, _ = self.post(body, timeout)
        if status != 200 or "mcp-session-id" not in headers:
            raise StartError(f"could not open an MCP session over HTTP ({status})")
        self.session = headers["mcp-session-id"]
        self.post(
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}', timeout, **self.in_session()
        )

    def run(self, index: int, messages: list[bytes], timeout: float) -> Verdict:
        if not self.session:
            self.open_session(timeout)
        outcome = Verdict.accepted()
        for raw in messages:
            try:
                status, headers, body = self.post(raw, timeout, **self.in_session())
            except (OSError, http.client.HTTPException) as exc:
                return Verdict.failure(f"POST got no answer: {type(exc).__name__}: {exc}")
            if status >= 500:
                return Verdict.failure(f"HTTP {status}: {body[:160]!r}")
            problem = (
                judge([expect(raw)], _http_replies(headers, body)) if status in (200, 400) else None
            )
            if problem:
                return Verdict.failure(f"HTTP {status}: {problem}")
            if status >= 400:
                outcome = Verdict.refused(f"HTTP {status}")
        ping = json.dumps({"jsonrpc": "2.0", "id": f"ping-{index}", "method": "ping"}).encode()
        try:
            status, _, body = self.post(ping, timeout, **self.in_session())
        except (OSError, http.client.HTTPException) as exc:
            return Verdict.failure(f"the ping after the case got no answer: {exc}")
        if status == 404:  # a hostile message ended the session (DELETE-like); open another
            self.session = ""
        elif status != 200:
            return Verdict.failure(f"the ping after the case got HTTP {status}: {body[:120]!r}")
        return outcome

    def close(self) -> None:
        self.server.__exit__()


def _http_replies(headers: dict[str, str], body: bytes) -> list[Reply]:
    """The JSON-RPC messages of an HTTP answer (a JSON body or server-sent events)."""
    if not body.strip():
        return []
    chunks = (
        [line[5:].strip() for line in body.split(b"\n") if line.startswith(b"data:")]
        if "text/event-stream" in headers.get("content-type", "")
        else [body]
    )
    replies = []
    for chunk in chunks:
        try:
            message = json.loads(chunk)
        except ValueError:
            message = None
        for item in message if isinstance(message, list) else [message]:
            replies.append(Reply(chunk, item, 0.0))
    return replies


def run(workspace: Workspace, recipes: list[dict[str, Any]], tally: Tally) -> None:
    timeout = workspace.case_timeout(TIMEOUT_S)
    stdio, web = Stdio(workspace), None

    def case(index: int, spec: dict[str, Any]) -> Verdict:
        nonlocal web
        if spec["transport"] == "http":
            web = web or Http(workspace)
            return web.run(index, spec["messages"], timeout)
        return stdio.run(index, spec["messages"], timeout)

    try:
        drive(workspace, CLASS, recipes, tally, case)
    finally:
        stdio.close()
        if web is not None:
            web.close()
    if stdio.restarts and not tally.note:
        tally.note = (
            f"the stdio server stopped answering and was restarted {stdio.restarts} time(s)"
        )
