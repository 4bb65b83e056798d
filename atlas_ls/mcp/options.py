"""What the command line chose, kept free of heavy imports so bad flags fail fast."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

TOOL_SETS = ("all", "fs", "rag")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """What the command line chose; fixed for the life of the process."""

    bundles: tuple[str, ...] = ()  # explicit --bundle paths; empty: the default resolution
    mirror: Path | None = None
    tools: str = "all"  # all | fs | rag
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8765
    allow_remote: bool = False
    search_timeout_s: float = 10.0
