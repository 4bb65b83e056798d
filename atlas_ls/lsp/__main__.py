"""``atlas-ls``: the Atlas language server, on stdio by default.

Only protocol messages go to stdout; logs go to stderr, where editors show them in their LSP log.
The first bundle starts opening before the protocol library is imported, so its cost overlaps
the import and the client's handshake.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from atlas_core.engine import Engine

# Starting up builds about 100,000 long-lived objects (lsprotocol's classes above all) and the
# cyclic collector walks them over and over while they are made: about 60 ms of a 500 ms cold start.
# It stays off for the first seconds, while the client's first requests come in; then one
# collection frees what the imports left behind (~8 MB) and everything still alive is frozen out
# of later collections, which also keeps them short.
STARTUP_GC_DELAY_S = 3.0


def build_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="atlas-ls",
        description="Language server for the Collibra developer docs: hover, go-to-doc, "
        "workspace symbols, code actions, deprecation diagnostics and REST path completion.",
    )
    parser.add_argument(
        "--bundle",
        action="append",
        default=[],
        metavar="DIR",
        help="bundle directory to serve (repeat for several); default: ATLAS_BUNDLE, the config "
        "file, then the installed bundle. The editor setting atlas.bundle overrides it.",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="also serve this repository's index (`atlas index DIR`) beside the docs; default: "
        "$ATLAS_PROJECT, else the repository of the working directory when it has an index",
    )
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    transport.add_argument("--tcp", action="store_true", help="listen on --host:--port instead")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default: 2087)")
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="more logging on stderr (-vv: protocol too)",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    # vscode-languageclient may append this; the server has nothing to do with it.
    parser.add_argument("--clientProcessId", help=argparse.SUPPRESS)
    return parser


# What `build_parser` gives when no option is given.
_DEFAULTS: dict[str, Any] = {
    "bundle": [],
    "project": None,
    "stdio": False,
    "tcp": False,
    "host": "127.0.0.1",
    "port": 2087,
    "verbose": 0,
    "version": False,
    "clientProcessId": None,
}
_VERBOSITY = {"-v": 1, "--verbose": 1, "-vv": 2}
_VALUED = {"--bundle": "bundle", "--project": "project", "--clientProcessId": "clientProcessId"}


def parse_args(argv: list[str]) -> Any:
    """The command line as `build_parser` reads it. The lines editors start the server with
    (no option, ``--stdio``, ``-v``, ``--bundle DIR``, ``--project DIR``) are read here, without
    argparse: with gettext it is 117 KB of source, which every start without a bytecode cache
    compiles. Any other line (``--help``, ``--tcp``, an abbreviation, a mistake) goes to argparse,
    so its help and errors stay the same."""
    quick = _common_args(argv)
    return quick if quick is not None else build_parser().parse_args(argv)


def _common_args(argv: list[str]) -> SimpleNamespace | None:
    """`argv` read as argparse would, when it holds only the options above; else None."""
    values = {**_DEFAULTS, "bundle": []}
    tokens = iter(argv)
    for token in tokens:
        if token == "--stdio":
            values["stdio"] = True
            continue
        if token in _VERBOSITY:
            values["verbose"] += _VERBOSITY[token]
            continue
        option, equals, value = token.partition("=")
        dest = _VALUED.get(option)
        if dest is None:
            return None
        if not equals:
            value = next(tokens, "")
        if not value or value.startswith("-"):
            return None  # argparse's to judge: a missing value, or one it may take for an option
        if dest == "bundle":
            values["bundle"].append(value)
        else:
            values[dest] = value
    return SimpleNamespace(**values)


def configure_logging(verbosity: int) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbosity >= 2 else logging.WARNING)
    level = logging.DEBUG if verbosity >= 1 else logging.INFO
    for name in ("atlas_ls", "atlas_core"):
        logging.getLogger(name).setLevel(level)
    if verbosity == 1:
        logging.getLogger("pygls").setLevel(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.version:
        from atlas_ls.lsp.server import VERSION

        print(f"atlas-ls {VERSION}")
        return 0
    if args.tcp and not 0 < args.port < 65536:
        print(f"atlas-ls: error: --port must be 1-65535, got {args.port}", file=sys.stderr)
        return 2
    configure_logging(args.verbose)
    gc.disable()
    collector = threading.Timer(STARTUP_GC_DELAY_S, collect_startup_garbage)
    collector.daemon = True

    from atlas_core.config import load_settings
    from atlas_core.errors import AtlasError
    from atlas_core.project import project_bundles
    from atlas_core.serving import BundleLoader, EngineHolder

    try:  # read once: the flags given here, the environment, the config file
        settings = load_settings({"bundles": args.bundle, "project": args.project})
        projects = tuple(str(p) for p in project_bundles(settings.project))
    except AtlasError as exc:
        print(f"atlas-ls: error: {exc.one_line()}", file=sys.stderr)
        return 2
    holder: EngineHolder[Engine] = EngineHolder()
    loader = BundleLoader(holder, settings=settings)
    loader.projects = projects
    loader.request(args.bundle)

    from atlas_ls.lsp.features import create_server

    server = create_server(args.bundle, loader=loader, holder=holder)
    collector.start()
    try:
        if args.tcp:
            server.start_tcp(args.host, args.port)
        else:
            server.start_io()
    finally:
        collector.cancel()
        gc.enable()
        server.bundles.stop_watching()
        loader.shutdown()
    # 1 after `exit` without `shutdown` (the LSP spec) or when the input stopped being LSP framing.
    return server.exit_code


def collect_startup_garbage() -> None:
    """Free the import garbage, freeze the survivors, and turn the cyclic collector back on."""
    gc.collect()
    gc.freeze()
    gc.enable()


if __name__ == "__main__":
    sys.exit(main())
