"""MCP client configs: find a client's user-level config file and merge the `atlas` server entry
into it without disturbing anything else (`atlas setup`).

One module per format family (`jsonc` for JSON with or without comments, `toml_text`, `yaml_text`),
`registry` for the clients and their file locations, `plan` for computing and applying a change.
"""

from __future__ import annotations

from atlas_ls.cli.clients.plan import (
    Plan,
    Status,
    apply,
    plan_setup,
    server_args,
    server_command,
    statuses,
)
from atlas_ls.cli.clients.registry import CLIENTS, SERVER_NAME, Client, find_client

__all__ = [
    "CLIENTS",
    "SERVER_NAME",
    "Client",
    "Plan",
    "Status",
    "apply",
    "find_client",
    "plan_setup",
    "server_args",
    "server_command",
    "statuses",
]
