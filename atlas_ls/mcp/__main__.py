"""Console entry points: ``atlas-mcp``, and ``collibra-fs`` / ``collibra-rag`` (one tool set each).

stdout belongs to the protocol on stdio, so everything else (logs, errors) goes to stderr.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from atlas_core.config import load_settings
from atlas_core.errors import AtlasError
from atlas_ls.mcp.auth import required_token
from atlas_ls.mcp.options import (
    BODY_TIMEOUT_S,
    HEADER_TIMEOUT_S,
    MAX_SESSIONS,
    SESSION_IDLE_S,
    TOOL_SETS,
    ServerOptions,
)

DEFAULT_PORT = 8765
# What --allowed-host takes: a DNS name or IPv4 address, or an IPv6 address in brackets, and a port.
_HOST_NAME = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?"
)


def build_parser(prog: str, default_tools: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Serve the Collibra developer docs to AI agents over MCP "
        "(search, identifier lookup, and list/read/grep of the docs files).",
    )
    parser.add_argument(
        "--bundle",
        action="extend",
        nargs="+",
        default=[],
        metavar="DIR",
        help="bundle directory (repeatable; several are searched together). Default: "
        "$ATLAS_BUNDLE, the config file, the installed bundle, then the demo bundle",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="also serve this repository's index (`atlas index DIR`) beside the docs; default: "
        "$ATLAS_PROJECT, else the repository of the working directory when it has an index",
    )
    parser.add_argument(
        "--mirror",
        type=Path,
        metavar="DIR",
        help="docs mirror for the file tools (a crawled mirror with markdown/ or any folder of "
        ".md files); default: the bundle's mirror",
    )
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"HTTP port (default {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument(
        "--tools",
        choices=TOOL_SETS,
        default=default_tools,
        help="tool set: all, fs (list/read/grep files) or rag (search, lookup, chunks, info)",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow binding a non-loopback --host; requires a bearer token in ATLAS_MCP_TOKEN",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="also accept this Host header (repeatable): the public name of a proxy in front, "
        "which passes the client's Host on. Any port when none is given. On a loopback bind it "
        "joins the loopback names; on another bind it turns the Host check on",
    )
    parser.add_argument(
        "--search-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="time limit of one search_text call (default 10)",
    )
    http = parser.add_argument_group("HTTP serving and limits")
    http.add_argument(
        "--stateless",
        action="store_true",
        help="streamable HTTP without sessions: every request stands alone and is answered with "
        "JSON, so any process (another worker, another replica) can answer it",
    )
    http.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes serving the one port, sharing the bundle's pages; a worker that dies is "
        "replaced. More than 1 needs --stateless (sessions live in one process) (default 1)",
    )
    http.add_argument(
        "--max-sessions",
        type=int,
        default=MAX_SESSIONS,
        metavar="N",
        help="live sessions kept; opening one more ends the least recently used "
        f"(default {MAX_SESSIONS})",
    )
    http.add_argument(
        "--session-idle-timeout",
        type=float,
        default=SESSION_IDLE_S,
        metavar="SECONDS",
        help=f"end a session after this long without a request (default {SESSION_IDLE_S:g})",
    )
    http.add_argument(
        "--header-timeout",
        type=float,
        default=HEADER_TIMEOUT_S,
        metavar="SECONDS",
        help=f"close a connection whose request headers take longer (default {HEADER_TIMEOUT_S:g})",
    )
    http.add_argument(
        "--body-timeout",
        type=float,
        default=BODY_TIMEOUT_S,
        metavar="SECONDS",
        help=f"close a connection whose request body takes longer (default {BODY_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--log-level",
        default=None,
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        type=str.upper,
        help="stderr log level (default: $ATLAS_LOG_LEVEL, else INFO)",
    )
    return parser


def _main(argv: Sequence[str] | None, prog: str, default_tools: str) -> int:
    args = build_parser(prog, default_tools).parse_args(argv)
    try:  # read once: the flags given here, the environment, the config file
        settings = load_settings(
            {"bundles": args.bundle, "project": args.project, "log_level": args.log_level}
        )
    except AtlasError as exc:
        print(f"{prog}: error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return 2
    # Configured before the server is built: the SDK's own setup then leaves our handler alone.
    logging.basicConfig(
        stream=sys.stderr,
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not 0 <= args.port <= 65535:
        print(f"{prog}: error: --port {args.port} is not a port number (0-65535)", file=sys.stderr)
        return 2
    if args.workers < 1:
        print(f"{prog}: error: --workers {args.workers} must be 1 or more", file=sys.stderr)
        return 2
    if args.stateless and args.transport != "http":
        print(
            f"{prog}: error: --stateless needs --transport http\n"
            "  hint: over stdio one client owns the server; stateless serving is for HTTP",
            file=sys.stderr,
        )
        return 2
    if args.workers > 1 and (args.transport != "http" or not args.stateless):
        print(
            f"{prog}: error: --workers {args.workers} needs --transport http --stateless\n"
            "  hint: a session lives in one process, so only stateless requests can go to any "
            "worker; add --stateless (or run one worker per port behind sticky routing)",
            file=sys.stderr,
        )
        return 2
    bad_host = next((h for h in args.allowed_host if not _HOST_NAME.fullmatch(h)), None)
    if bad_host is not None:
        print(
            f"{prog}: error: --allowed-host {bad_host!r} is not a host name\n"
            "  hint: give the name clients put in Host, e.g. atlas.example.com or "
            "atlas.example.com:443 (no scheme, no path)",
            file=sys.stderr,
        )
        return 2
    for flag, value in (
        ("--max-sessions", args.max_sessions),
        ("--session-idle-timeout", args.session_idle_timeout),
        ("--header-timeout", args.header_timeout),
        ("--body-timeout", args.body_timeout),
    ):
        if not value > 0 or value == float("inf"):
            print(f"{prog}: error: {flag} {value} must be a positive number", file=sys.stderr)
            return 2
    try:
        from atlas_core.project import project_bundles

        projects = tuple(str(p) for p in project_bundles(settings.project))
    except AtlasError as exc:
        print(f"{prog}: error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return 2
    options = ServerOptions(
        bundles=tuple(args.bundle),
        settings=settings,
        projects=projects,
        mirror=args.mirror,
        tools=args.tools,
        transport=args.transport,
        host=args.host,
        port=args.port,
        allow_remote=args.allow_remote,
        allowed_hosts=tuple(args.allowed_host),
        search_timeout_s=max(0.1, args.search_timeout),
        max_sessions=args.max_sessions,
        session_idle_s=args.session_idle_timeout,
        header_timeout_s=args.header_timeout,
        body_timeout_s=args.body_timeout,
        stateless=args.stateless,
        workers=args.workers,
    )
    try:
        if options.transport == "http":
            # before the slow SDK import
            required_token(options.host, options.allow_remote, settings.mcp_token)
        from atlas_ls.mcp.server import run

        run(options)
    except AtlasError as exc:
        print(f"{prog}: error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return _main(argv, "atlas-mcp", "all")


def main_fs(argv: Sequence[str] | None = None) -> int:
    return _main(argv, "collibra-fs", "fs")


def main_rag(argv: Sequence[str] | None = None) -> int:
    return _main(argv, "collibra-rag", "rag")


if __name__ == "__main__":
    sys.exit(main())
