"""Class `http`: who may open a session on `atlas-mcp --transport http`, how slow a request may
be, and how many sessions a client may hold.

One server per loopback address (127.0.0.1, and 127.0.0.2 where the system routes it), each with
short `--header-timeout`/`--body-timeout` and a small `--max-sessions`. Cases:

- headers: `initialize` with a composed Host and Origin: foreign names (`evil.example`, a loopback
  address as a subdomain of another name, `null`, other schemes), the server's own names, and the
  ambiguous middle (`[::1]`, `127.1`, no port, no Host);
- in-session: a live session used with a foreign Host or Origin;
- slow: connections that send nothing, half the headers, half the body, or trickle bytes;
- flood: more `initialize` calls than `--max-sessions`, never ended with DELETE.

Failure: a session (or an answer in one) granted to a foreign Host or Origin, the server's own
names refused, a 5xx, a connection still open well past its deadline (trickling included), more
live sessions than the cap, or the server not serving a legitimate client afterwards.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import socket
import time
from typing import Any

from benchmarks.fuzzing.core import Tally, Verdict, case_rng, clip
from benchmarks.fuzzing.workspace import Workspace

CLASS = "http"
DEFAULT_CASES = 150
TIMEOUT_S = 20.0
DEADLINE_S = 2  # --header-timeout and --body-timeout of the servers under test
SLACK_S = 8.0  # how much later than its deadline a connection may close on a loaded machine
MAX_SESSIONS = 6
SLOW_WORKERS = 8
HOSTS = ["127.0.0.1", "127.0.0.2"]
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "atlas-fuzz", "version": "0"},
        },
    }
).encode()

# (template, kind): kind is "foreign" (must be refused), "local" (must be served) or "either".
HOST_HEADERS = [
    ("evil.example", "foreign"),
    ("evil.example:{port}", "foreign"),
    ("{bind}.evil.example:{port}", "foreign"),
    ("localhost.evil.example:{port}", "foreign"),
    ("{bind}:{port}.evil.example", "foreign"),
    ("EVIL.EXAMPLE:{port}", "foreign"),
    ("evil.example.:{port}", "foreign"),
    ("127.0.0.1.nip.io:{port}", "foreign"),
    ("{bind}:{port}", "local"),
    ("localhost:{port}", "local"),
    ("127.0.0.1:{port}", "local"),
    ("[::1]:{port}", "either"),
    ("LOCALHOST:{port}", "either"),
    ("127.1:{port}", "either"),
    ("2130706433:{port}", "either"),
    ("localhost", "either"),
    ("{bind}", "either"),
    (None, "either"),
]
ORIGINS = [
    ("http://evil.example", "foreign"),
    ("http://evil.example:{port}", "foreign"),
    ("null", "foreign"),
    ("http://{bind}.evil.example:{port}", "foreign"),
    ("https://evil.example", "foreign"),
    ("http://localhost.evil.example", "foreign"),
    ("chrome-extension://abcdef", "foreign"),
    (None, "local"),
    ("http://localhost:{port}", "local"),
    ("http://127.0.0.1:{port}", "local"),
    ("http://{bind}:{port}", "local"),
    ("http://localhost", "local"),
    ("http://127.0.0.1:6274", "local"),
    ("http://[::1]:{port}", "either"),
    ("HTTP://LOCALHOST:{port}", "either"),
    ("http://localhost:{port}/", "either"),
]
SLOW = ["silent", "half-headers", "half-body", "slowloris", "slow-body"]


def recipe(seed: int, index: int) -> dict[str, Any]:
    rng = case_rng(seed, CLASS, index)
    kind = rng.choices(["headers", "in-session", "slow", "flood"], weights=[60, 8, 24, 8])[0]
    spec: dict[str, Any] = {"kind": kind, "server": rng.randrange(len(HOSTS))}
    if kind in ("headers", "in-session"):
        spec["host"], spec["host_kind"] = rng.choice(HOST_HEADERS)
        spec["origin"], spec["origin_kind"] = rng.choice(ORIGINS)
        if kind == "in-session" and "foreign" not in (spec["host_kind"], spec["origin_kind"]):
            spec["host"], spec["host_kind"] = "evil.example:{port}", "foreign"
        spec["label"] = (
            f"{kind} on {HOSTS[spec['server']]}: Host {spec['host']!r}, Origin {spec['origin']!r}"
        )
    elif kind == "slow":
        spec["how"] = rng.choice(SLOW)
        spec["cut"] = rng.random()
        spec["label"] = f"slow on {HOSTS[spec['server']]}: {spec['how']}"
    else:
        spec["count"] = rng.randrange(MAX_SESSIONS + 1, MAX_SESSIONS * 6)
        spec["label"] = f"flood on {HOSTS[spec['server']]}: {spec['count']} initialize calls"
    return spec


def _can_bind(host: str) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, 0))
        except OSError:
            return False
    return True


class Endpoint:
    """One running server and a raw HTTP client for it."""

    def __init__(self, server: Any) -> None:
        self.server = server
        host_port = server.url.split("//")[1].split("/")[0]
        self.bind, port = host_port.rsplit(":", 1)
        self.port = int(port)

    def fill(self, template: str | None) -> str | None:
        return None if template is None else template.format(port=self.port, bind=self.bind)

    def post(
        self, body: bytes, headers: dict[str, str | None], timeout: float = TIMEOUT_S
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(self.bind, self.port, timeout=timeout)
        try:
            conn.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
            sent = {
                "Host": f"{self.bind}:{self.port}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **headers,
            }
            for name, value in sent.items():
                if value is not None:
                    conn.putheader(name, value)
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            response = conn.getresponse()
            return (
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            conn.close()

    def open_session(self, headers: dict[str, str | None] | None = None) -> tuple[int, str | None]:
        status, answer, _ = self.post(INITIALIZE, headers or {})
        session = answer.get("mcp-session-id")
        if status == 200 and session:
            self.post(
                b'{"jsonrpc":"2.0","method":"notifications/initialized"}', self.in_session(session)
            )
        return status, session

    def in_session(self, session: str) -> dict[str, str | None]:
        return {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}

    def ping(self, session: str, headers: dict[str, str | None] | None = None) -> int:
        body = b'{"jsonrpc":"2.0","id":"ping","method":"ping"}'
        return self.post(body, {**self.in_session(session), **(headers or {})})[0]

    def end(self, session: str) -> None:
        conn = http.client.HTTPConnection(self.bind, self.port, timeout=TIMEOUT_S)
        try:
            conn.request("DELETE", "/mcp", headers=self.in_session(session))  # type: ignore[arg-type]
            conn.getresponse().read()
        finally:
            conn.close()


class Limits:
    def __init__(self, workspace: Workspace) -> None:
        from tests.mcp_client import HttpServer

        mirror = workspace.folder(CLASS) / "mirror"
        (mirror / "pub").mkdir(parents=True, exist_ok=True)
        (mirror / "pub" / "page.md").write_text("# Page\n\nA page.\n")
        self.usable = [h for h in HOSTS if _can_bind(h)]
        self.endpoints: dict[str, Endpoint] = {}
        for host in self.usable:
            args = ["--tools", "fs", "--mirror", str(mirror), "--host", host]
            args += ["--header-timeout", str(DEADLINE_S), "--body-timeout", str(DEADLINE_S)]
            args += ["--max-sessions", str(MAX_SESSIONS)]
            self.endpoints[host] = Endpoint(HttpServer(args).__enter__())

    def endpoint(self, spec: dict[str, Any]) -> Endpoint:
        host = HOSTS[spec["server"]]
        return self.endpoints.get(host) or self.endpoints[self.usable[0]]

    def run(self, spec: dict[str, Any]) -> Verdict:
        where = self.endpoint(spec)
        try:
            if spec["kind"] == "headers":
                return self.headers(where, spec)
            if spec["kind"] == "in-session":
                return self.in_session(where, spec)
            if spec["kind"] == "slow":
                return slow(where, spec)
            return self.flood(where, spec)
        except (OSError, http.client.HTTPException) as exc:
            return Verdict.failure(f"{type(exc).__name__}: {clip(str(exc), 160)}")

    def headers(self, where: Endpoint, spec: dict[str, Any]) -> Verdict:
        headers = {"Host": where.fill(spec["host"]), "Origin": where.fill(spec["origin"])}
        status, session = where.open_session(headers)
        kinds = (spec["host_kind"], spec["origin_kind"])
        if session:
            where.end(session)
        if status >= 500:
            return Verdict.failure(f"HTTP {status}")
        if "foreign" in kinds:
            if session or status == 200:
                return Verdict.failure(f"a foreign Host/Origin got a session (HTTP {status})")
            return Verdict.refused(f"HTTP {status}")
        if kinds == ("local", "local") and not session:
            return Verdict.failure(f"the server's own Host/Origin was refused (HTTP {status})")
        return Verdict.accepted(f"HTTP {status}") if session else Verdict.refused(f"HTTP {status}")

    def in_session(self, where: Endpoint, spec: dict[str, Any]) -> Verdict:
        status, session = where.open_session()
        if not session:
            return Verdict.failure(f"a plain initialize got HTTP {status}")
        foreign = {"Host": where.fill(spec["host"]), "Origin": where.fill(spec["origin"])}
        if spec["host"] is None:
            foreign.pop("Host")
        answer = where.ping(session, foreign)
        own = where.ping(session)
        where.end(session)
        if answer == 200:
            return Verdict.failure(
                "a request with a foreign Host/Origin was served in a live session"
            )
        if own != 200:
            return Verdict.failure(f"the session stopped serving its own client (HTTP {own})")
        return Verdict.refused(f"HTTP {answer}")

    def flood(self, where: Endpoint, spec: dict[str, Any]) -> Verdict:
        sessions = [s for _, s in (where.open_session() for _ in range(spec["count"])) if s]
        live = [s for s in sessions if where.ping(s) == 200]
        for session in live:
            where.end(session)
        if len(live) > MAX_SESSIONS:
            return Verdict.failure(
                f"{len(live)} live sessions after a flood, over --max-sessions {MAX_SESSIONS}"
            )
        if sessions and sessions[-1] not in live:
            return Verdict.failure(
                "the newest session was ended instead of the least recently used"
            )
        return Verdict.accepted(f"{len(live)} of {len(sessions)} sessions live")

    def serves(self) -> str | None:
        """Why a legitimate client is not served on every server, or None."""
        for host, where in self.endpoints.items():
            status, session = where.open_session()
            if not session:
                return f"{host}: a plain initialize got HTTP {status}"
            code = where.ping(session)
            where.end(session)
            if code != 200:
                return f"{host}: a ping in a fresh session got HTTP {code}"
        return None

    def close(self) -> None:
        for where in self.endpoints.values():
            where.server.__exit__()


def _request_bytes(where: Endpoint, extra_body: int = 0) -> tuple[bytes, bytes]:
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {where.bind}:{where.port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n"
        f"Content-Length: {len(INITIALIZE) + extra_body}\r\n\r\n"
    ).encode()
    return head, INITIALIZE


def slow(where: Endpoint, spec: dict[str, Any]) -> Verdict:
    """Send a request slowly or not at all; the server must close the connection in time."""
    head, body = _request_bytes(
        where, extra_body=100 if spec["how"] in ("half-body", "slow-body") else 0
    )
    how, cut = spec["how"], spec["cut"]
    sock = socket.create_connection((where.bind, where.port), timeout=TIMEOUT_S)
    started = time.monotonic()
    limit = DEADLINE_S * (2 if how in ("half-body", "slow-body") else 1) + SLACK_S
    trickle = b""
    try:
        if how == "half-headers":
            sock.sendall(head[: max(1, int(len(head) * cut * 0.9))])
        elif how == "half-body":
            sock.sendall(head + body[: int(len(body) * cut)])
        elif how == "slowloris":
            sock.sendall(b"POST /mcp HTTP/1.1\r\n")
            trickle = b"X-Padding: " + b"a" * 10_000
        elif how == "slow-body":
            sock.sendall(head)
            trickle = body
        received = _until_closed(sock, trickle, started + limit)
    finally:
        sock.close()
    held = time.monotonic() - started
    if received is None:
        return Verdict.failure(
            f"the connection was still open after {held:.1f} s (deadline {DEADLINE_S} s)"
        )
    if b" 200 " in received.split(b"\r\n", 1)[0]:
        return Verdict.failure("an incomplete request was answered 200")
    return Verdict.refused(
        f"closed after {held:.1f} s: {clip(received[:40].decode('latin-1'), 40)}"
    )


def _until_closed(sock: socket.socket, trickle: bytes, deadline: float) -> bytes | None:
    """Everything the server sent until it closed; None if it was still open at `deadline`.
    With `trickle`, one more byte of it goes out every 0.2 s meanwhile."""
    received = b""
    sock.settimeout(0.2)
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
        except OSError:
            return received
        if not chunk:
            return received
        received += chunk
    return None


def run(workspace: Workspace, recipes: list[dict[str, Any]], tally: Tally) -> None:
    try:
        limits = Limits(workspace)
    except RuntimeError as exc:
        tally.add(0, "starting the servers", Verdict.failure(clip(str(exc), 300)))
        tally.note = "no case ran: the servers did not start"
        return
    verdicts: dict[int, Verdict] = {}
    try:
        # Slow connections only wait: they run side by side, as a slowloris would.
        slow_ones = [i for i, spec in enumerate(recipes) if spec["kind"] == "slow"]
        with concurrent.futures.ThreadPoolExecutor(SLOW_WORKERS) as pool:
            futures = {i: pool.submit(limits.run, recipes[i]) for i in slow_ones}
            for index, spec in enumerate(recipes):
                if spec["kind"] != "slow":
                    verdicts[index] = limits.run(spec)
            for index, future in futures.items():
                verdicts[index] = future.result()
        problem = limits.serves()
    finally:
        limits.close()
    for index, spec in enumerate(recipes):
        verdict = verdicts[index]
        tally.add(index, spec["label"], verdict)
        workspace.trace(CLASS, index, spec["label"], verdict)
    if problem:
        tally.add(len(recipes), "a legitimate client after the run", Verdict.failure(problem))
    if len(limits.usable) < len(HOSTS):
        missing = ", ".join(sorted(set(HOSTS) - set(limits.usable)))
        tally.note = f"{missing} is not usable here; its cases ran against {limits.usable[0]}"
