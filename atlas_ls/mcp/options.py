"""What the command line chose, kept free of heavy imports so bad flags fail fast."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from atlas_core.config import Settings

TOOL_SETS = ("all", "fs", "rag")
# HTTP only: live sessions kept (least recently used ended first), how long an idle one lives,
# and how long a request's headers and body may take to arrive.
MAX_SESSIONS = 256
SESSION_IDLE_S = 30 * 60.0
HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """What the command line chose; fixed for the life of the process."""

    bundles: tuple[str, ...] = ()  # explicit --bundle paths; empty: the default resolution
    projects: tuple[str, ...] = ()  # project bundles (`atlas index`) served beside the docs
    mirror: Path | None = None
    tools: str = "all"  # all | fs | rag
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8765
    allow_remote: bool = False
    # Host names a proxy in front passes on (`--allowed-host`): accepted by the Host check.
    allowed_hosts: tuple[str, ...] = ()
    search_timeout_s: float = 10.0
    max_sessions: int = MAX_SESSIONS
    session_idle_s: float = SESSION_IDLE_S
    header_timeout_s: float = HEADER_TIMEOUT_S
    body_timeout_s: float = BODY_TIMEOUT_S
    stateless: bool = False  # HTTP: no sessions, JSON answers; any process can answer any request
    workers: int = 1  # HTTP: processes serving the one port
    # Read once at start (`atlas_core.config.load_settings`); forked workers inherit it.
    settings: Settings = field(default_factory=Settings)
