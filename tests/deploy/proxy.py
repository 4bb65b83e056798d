"""deploy/nginx.conf run for real: Atlas MCP servers laid out like pods (one loopback address
each, one shared port) and nginx in front of them on a free port, with everything it writes in a
temporary folder. The deployment tests and `benchmarks/mcp.py` (http_proxy) both use it."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.mcp_client import HttpServer, stop_process, wait_for

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
NGINX_CONF = DEPLOY / "nginx.conf"
# 127.0.0.0/8 is loopback on Linux: each upstream gets its own address, all on one port.
POD_ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
SHIPPED_PORT = "8765"  # the upstreams' port in the shipped config
SHIPPED_LISTEN = "listen 127.0.0.1:8080;"
PROXY_HOST = "127.0.0.1"  # where the test proxy listens: the name its clients send as Host
LOG_FORMAT = "$status|$upstream_addr|$upstream_status|$request_method|$request_uri"


def free_pod_port(addresses: tuple[str, ...]) -> int:
    """A port free on every one of `addresses` right now."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind((addresses[0], 0))
            port = probe.getsockname()[1]
        try:
            for address in addresses:
                with socket.socket() as other:
                    other.bind((address, port))
        except OSError:
            continue
        return port
    raise RuntimeError(f"no port free on all of {addresses}")


@dataclass(slots=True)
class Pods:
    """`atlas-mcp --stateless` servers on `addresses`, all listening on `port`."""

    port: int
    addresses: tuple[str, ...]
    servers: list[HttpServer]
    bundle: Path
    extra: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def url(self, index: int, path: str = "/mcp") -> str:
        return f"http://{self.addresses[index]}:{self.port}{path}"

    def pid(self, index: int) -> int:
        proc = self.servers[index].proc
        assert proc is not None
        return proc.pid

    def revive(self) -> None:
        """Start again, at the same address and port, each server that has died (or was killed)."""
        for index, server in enumerate(self.servers):
            if server.proc is None or server.proc.poll() is not None:
                self.servers[index] = start_pods(
                    self.bundle, self.addresses[index : index + 1], self.port, self.extra, self.env
                ).servers[0]

    def stop(self) -> None:
        for server in self.servers:
            server.__exit__()


def start_pods(
    bundle: Path,
    addresses: tuple[str, ...],
    port: int,
    extra: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
) -> Pods:
    """Servers that accept the proxy's name as Host (it passes the client's on): here 127.0.0.1,
    where the test proxy listens. `env` may carry ATLAS_MCP_TOKEN, as deployed servers must."""

    def start(address: str) -> HttpServer:
        args = ["--stateless", "--host", address, "--port", str(port), "--bundle", str(bundle)]
        args += ["--allowed-host", PROXY_HOST]
        return HttpServer([*args, *extra], env=env).__enter__()

    with ThreadPoolExecutor(len(addresses)) as pool:
        servers = list(pool.map(start, addresses))
    pods = Pods(port, addresses, servers, bundle, extra, dict(env or {}))
    for index in range(len(addresses)):
        # As a readiness probe would: traffic only once the bundle is loaded.
        wait_for(lambda i=index: _ready(pods.url(i, "/readyz")), timeout=60, step=0.1)
    return pods


def _ready(url: str) -> bool:
    import httpx2

    return httpx2.get(url, timeout=10).status_code == 200


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).is_file()), None
    )


def render_config(pods: Pods, listen_port: int, workdir: Path) -> str:
    """The shipped config with its upstreams and listen port swapped for these, and the
    files nginx writes (logs, temporary bodies) moved into `workdir`. Everything else, the
    timeouts, retries and limits under test, is the shipped text unchanged."""
    text = NGINX_CONF.read_text(encoding="utf-8")
    servers = re.findall(rf"^( *)server 127\.0\.0\.\d+:{SHIPPED_PORT}( [^;]*)?;$", text, re.M)
    assert servers, "deploy/nginx.conf lists no upstream server on port 8765"
    indent, parameters = servers[0]
    upstreams = "".join(
        f"{indent}server {address}:{pods.port}{parameters};\n" for address in pods.addresses
    )
    text = re.sub(
        rf"^ *server 127\.0\.0\.\d+:{SHIPPED_PORT}( [^;]*)?;\n", "", text, count=0, flags=re.M
    )
    text = text.replace("    upstream atlas {\n", "    upstream atlas {\n" + upstreams, 1)
    assert SHIPPED_LISTEN in text, f"deploy/nginx.conf no longer has `{SHIPPED_LISTEN}`"
    text = text.replace(SHIPPED_LISTEN, f"listen {PROXY_HOST}:{listen_port};")
    local = "".join(
        f"    {name}_temp_path {workdir / name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    local += f"    log_format upstreams '{LOG_FORMAT}';\n"
    local += f"    access_log {workdir / 'access.log'} upstreams;\n"
    return text.replace("http {\n", "http {\n" + local, 1)


class Nginx:
    """nginx with the rendered config in the foreground; `url` once it accepts connections."""

    def __init__(self, binary: str, pods: Pods, workdir: Path) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_pod_port((PROXY_HOST,))
        self.config = workdir / "nginx.conf"
        self.config.write_text(render_config(pods, self.port, workdir), encoding="utf-8")
        self.command = [
            binary,
            "-p",
            str(workdir),
            "-c",
            str(self.config),
            "-e",
            str(workdir / "error.log"),
            "-g",
            f"daemon off; pid {workdir / 'nginx.pid'}; error_log {workdir / 'error.log'};",
        ]
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, path: str = "/mcp") -> str:
        return f"http://{PROXY_HOST}:{self.port}{path}"

    def __enter__(self) -> Nginx:
        checked = subprocess.run([*self.command, "-t"], capture_output=True, text=True)
        if checked.returncode != 0:
            raise RuntimeError(f"nginx -t refused the config:\n{checked.stderr}")
        self.proc = subprocess.Popen(
            self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection((PROXY_HOST, self.port), timeout=1).close()
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise RuntimeError("nginx did not start:\n" + self.errors()) from None
                time.sleep(0.05)

    def errors(self) -> str:
        log = self.workdir / "error.log"
        return log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""

    def access_log(self) -> list[list[str]]:
        """One row per request: status, upstream address(es), upstream status(es), method, URI
        (a request passed on to a second upstream lists both, comma-separated)."""
        log = self.workdir / "access.log"
        return [line.split("|") for line in log.read_text(encoding="utf-8").splitlines()]

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            stop_process(self.proc)
