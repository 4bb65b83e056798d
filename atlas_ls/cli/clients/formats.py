"""One reader and one editor per config format family, behind the same three calls: `load` the
parsed document, find the `current` atlas entry, and `edit` the text to hold a new one."""

from __future__ import annotations

import json
from typing import Any

from atlas_core.errors import ConfigError
from atlas_ls.cli.clients import jsonc, limits, toml_text, yaml_text
from atlas_ls.cli.clients.registry import SERVER_NAME, Client

_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
}


def _kind(value: Any) -> str:
    if value is None:
        return "empty"
    return _TYPE_NAMES.get(type(value), f"a {type(value).__name__}")


def _wrong_type(where: str, what: str, value: Any, expected: str) -> ConfigError:
    return ConfigError(
        f"{where}: {what} is {_kind(value)}, expected {expected}",
        hint="fix it by hand (or move the file aside), then run atlas setup again",
        path=where,
    )


def load(client: Client, text: str | None, where: str) -> Any:
    """The parsed document (checked for the types the edit relies on); {} or None for no file."""
    text = text or ""
    try:
        if client.format in ("json", "jsonc"):
            data = jsonc.read(text, comments=client.format == "jsonc", where=where).value
        elif client.format == "toml":
            data = toml_text.read(text, where=where)
        else:
            data = yaml_text.read(text, where=where)
        limits.check_depth(data)
    except limits.LimitError as exc:
        raise limits.config_error(exc, where, text) from None
    if data is None and client.format == "yaml":
        return None
    if not isinstance(data, dict):
        raise _wrong_type(where, "the document", data, "an object of settings")
    servers = data.get(client.container)
    if client.format == "yaml":
        if servers is not None and not isinstance(servers, list):
            raise _wrong_type(where, f'"{client.container}"', servers, "a list of servers")
    elif client.container in data and not isinstance(servers, dict):
        raise _wrong_type(where, f'"{client.container}"', servers, "an object of servers")
    entry = current(client, data)
    if entry is not None and not isinstance(entry, dict):
        raise _wrong_type(where, f'"{client.container}.{SERVER_NAME}"', entry, "an object")
    return data


def current(client: Client, data: Any) -> Any:
    """The atlas entry in a loaded document, or None."""
    if not isinstance(data, dict):
        return None
    servers = data.get(client.container)
    if client.format == "yaml":
        for item in servers or []:
            if isinstance(item, dict) and item.get("name") == SERVER_NAME:
                return item
        return None
    return servers.get(SERVER_NAME) if isinstance(servers, dict) else None


def without_entry(client: Client, data: Any) -> Any:
    """The document less the atlas entry (and a servers key left empty by its removal)."""
    if not isinstance(data, dict):
        return {}
    # Copies of the two levels that change only: a deep copy of a 10 MB document costs as much
    # memory again, and nothing below them is modified.
    rest = dict(data)
    servers = rest.get(client.container)
    if client.format == "yaml" and isinstance(servers, list):
        rest[client.container] = [
            s for s in servers if not (isinstance(s, dict) and s.get("name") == SERVER_NAME)
        ]
    elif isinstance(servers, dict):
        rest[client.container] = {k: v for k, v in servers.items() if k != SERVER_NAME}
    if client.container in rest and not rest[client.container]:
        del rest[client.container]
    return rest


def edit(client: Client, text: str, entry: dict[str, Any], where: str) -> str:
    try:
        if client.format in ("json", "jsonc"):
            return jsonc.set_entry(
                text, client.container, SERVER_NAME, entry, comments=client.format == "jsonc"
            )
        if client.format == "toml":
            return toml_text.set_entry(text, client.container, SERVER_NAME, entry, where=where)
        return yaml_text.set_entry(text, client.container, entry, where=where)
    except limits.LimitError as exc:
        raise limits.config_error(exc, where, text) from None


def snippet(client: Client, entry: dict[str, Any]) -> str:
    """The entry as the user would add it by hand, for messages."""
    if client.format == "toml":
        return f"{SERVER_NAME} = {toml_text.value(entry)} in {client.container}"
    if client.format == "yaml":
        return f"an item of {client.container}: {json.dumps(entry, ensure_ascii=False)}"
    return json.dumps({client.container: {SERVER_NAME: entry}}, ensure_ascii=False)
