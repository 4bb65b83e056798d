"""`atlas setup CLIENT`: add the atlas MCP server to an agent's config; `--list` shows them all."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from atlas_core.errors import ConfigError

if TYPE_CHECKING:
    from atlas_ls.cli.clients import Status

# The registry's names, repeated so `atlas --help` does not import the config editors (a test keeps
# the two in step).
CLIENT_NAMES = (
    "claude-code",
    "claude-desktop",
    "cursor",
    "vscode",
    "opencode",
    "zed",
    "codex",
    "continue",
)


def register(sub: argparse._SubParsersAction) -> None:
    setup = sub.add_parser(
        "setup",
        help="add the atlas MCP server to an agent's config (Claude, Cursor, VS Code, ...)",
        description="Merge an `atlas` MCP server entry into a client's user-level config file. "
        "Other entries are kept, the previous file is backed up beside it, and running it again "
        "changes nothing.",
    )
    setup.add_argument("client", nargs="?", metavar="CLIENT", help=", ".join(CLIENT_NAMES))
    setup.add_argument(
        "--list", action="store_true", help="show every client, its config file and atlas entry"
    )
    setup.add_argument(
        "--dry-run", action="store_true", help="print the change as a diff; write nothing"
    )
    setup.add_argument("--bundle", type=Path, metavar="DIR", help="bundle the server opens")
    setup.add_argument(
        "--project",
        type=Path,
        metavar="DIR",
        help="a repository indexed with `atlas index`, served beside the docs",
    )
    setup.add_argument(
        "--config", type=Path, metavar="FILE", help="edit this file instead of the client's own"
    )
    setup.set_defaults(func=run_setup)


def run_setup(args: argparse.Namespace) -> int:
    from atlas_ls.cli import clients

    if args.list:
        return _print_list(clients.statuses())
    if not args.client:
        raise ConfigError(
            "name the client to set up",
            hint=f"atlas setup CLIENT, one of: {', '.join(CLIENT_NAMES)}",
        )
    client = clients.find_client(args.client)
    command = clients.server_command()
    server_args = clients.server_args(args.bundle, args.project)
    if args.project is not None:
        from atlas_core.project import project_bundles

        project_bundles(args.project)  # no index yet: the server would not start; say so now
    plan = clients.plan_setup(client, command, server_args, args.config)
    if not plan.changed:
        print(f"{plan.path}: the atlas entry is already set up for {client.title}; nothing changed")
        return 0
    if args.dry_run:
        sys.stdout.write(plan.diff())
        print(f"(dry run: {plan.path} was not changed)")
        return 0
    saved = clients.apply(plan)
    if saved is None:
        print(f"created {plan.path} with the atlas entry")
    else:
        print(f"updated {plan.path} (previous version: {saved})")
    print(f"restart {client.title} to load the atlas MCP server")
    return 0


def _print_list(statuses: list[Status]) -> int:
    width = max(len(s.client.name) for s in statuses)
    for status in statuses:
        detail = f": {status.detail}" if status.detail else ""
        print(f"{status.client.name:<{width}}  {status.path}")
        print(f"{'':<{width}}  {status.state}{detail}")
    return 0
